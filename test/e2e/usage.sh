#!/usr/bin/env bash
# -h of every registered command: exit 0, usage on stdout, nothing on stderr;
# a bad option: exit 129 with usage on stderr; the man page SYNOPSIS is the
# usage line.
. "$(dirname "$0")/lib.sh"

cmds=$("$LOCIPROF" --help | awk '/^Commands:/{c=1;next} c && !NF {exit} c {print $1}')
[ -n "$cmds" ] && ok "lociprof --help lists commands" || fail "lociprof --help lists commands" "none found"

"$LOCIPROF" --version | grep -q '^lociprof version ' && ok "--version" || fail "--version" "no version line"
"$LOCIPROF" nosuchcmd >/dev/null 2>&1; rc=$?
[ $rc = 129 ] && ok "unknown command exits 129" || fail "unknown command exits 129" "exit $rc"

for c in $cmds; do
	"$LOCIPROF" "$c" -h >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 0 ] && head -n1 "$TMP/out" | grep -q "^usage: lociprof $c" && [ ! -s "$TMP/err" ]; then
		ok "$c -h"
	else
		fail "$c -h" "exit $rc, stdout: $(head -n1 "$TMP/out"), stderr: $(head -c 200 "$TMP/err")"
	fi
	"$LOCIPROF" "$c" --no-such-option >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 129 ] && grep -q "^usage: lociprof $c" "$TMP/err"; then
		ok "$c bad option exits 129"
	else
		fail "$c bad option exits 129" "exit $rc"
	fi
	page="$TOP/man/lociprof-$c.1"
	if [ ! -f "$page" ]; then
		fail "$c man page" "$page missing"; continue
	fi
	syn=$(awk '/^\.SH SYNOPSIS/{s=1;next} /^\.SH/{s=0} s' "$page" | sed -E 's/^\.(B|I|BR|IR|RB|RI|nf|fi|PP|br)( |$)//; s/\\-/-/g; s/\\fB|\\fI|\\fR|\\fP//g' | grep -v '^$' | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
	use=$("$LOCIPROF" "$c" -h | head -n1 | sed 's/^usage: //')
	if [ "$syn" = "$use" ]; then ok "$c man SYNOPSIS matches -h"; else fail "$c man SYNOPSIS matches -h" "man: '$syn' vs -h: '$use'"; fi
	# every option of -h is a tag of the man page's OPTIONS, and every tag is in -h
	hopts=$("$LOCIPROF" "$c" -h | grep -oE '^ +(-[A-Za-z0-9], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u)
	# (the tag lines of OPTIONS: the line after each .TP)
	mopts=$(awk '/^\.SH OPTIONS/{s=1;next} /^\.SH/{s=0} s && t {print; t=0} s && /^\.TP/{t=1}' "$page" | sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u)
	if [ -z "$hopts" ] && [ -z "$mopts" ]; then
		ok "$c has no long options, nor does its man page"
	elif [ "$hopts" = "$mopts" ]; then
		ok "$c man OPTIONS lists every option of -h ($(echo $hopts | wc -w))"
	else
		fail "$c man OPTIONS lists every option of -h" "only in -h: $(comm -23 <(echo "$hopts") <(echo "$mopts") | tr '\n' ' '); only in man: $(comm -13 <(echo "$hopts") <(echo "$mopts") | tr '\n' ' ')"
	fi
	if command -v man >/dev/null && man -l "$page" >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then
		ok "$c man page renders"
	else
		fail "$c man page renders" "$(head -c 300 "$TMP/err")"
	fi
done

# lociprof test: a number is the stable id printed on the test's line; no match is an error
line=$("$LOCIPROF" test -l | sed -n 3p)
id=$(echo "$line" | awk -F: '{print $1+0}'); name=$(echo "$line" | awk '{print $2}')
got=$("$LOCIPROF" test "$id" | grep -E '^ *[0-9]+: ')
if [ "$(echo "$got" | wc -l)" = 1 ] && [ "$(echo "$got" | awk -F: '{print $1+0}')" = "$id" ]; then
	ok "lociprof test $id runs test $id ($name)"
else
	fail "lociprof test $id runs test $id" "$got"
fi
"$LOCIPROF" test no-such-test > "$TMP/out" 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no self test matches 'no-such-test'" "$TMP/err" && ok "lociprof test with no match fails" ||
	fail "lociprof test with no match fails" "exit $rc: $(cat "$TMP/out" "$TMP/err" | head -c 200)"
