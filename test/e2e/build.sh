#!/usr/bin/env bash
# The static binary's own names: none of lociprof's objects defines a
# global that libc defines. (A global error() once took the place of
# glibc's, which libdw's out-of-memory path calls as error(1, ENOMEM, ...).)
. "$(dirname "$0")/lib.sh"
cd "$TOP"
libc=$(gcc -print-file-name=libc.a)
objs=$(ls cmd/*.o core/*.o arch/*/*.o 2>/dev/null)
if [ ! -f "$libc" ] || [ -z "$objs" ]; then
	fail "no lociprof global shadows a libc name" "libc.a ($libc) or the objects are missing: run make"
else
	nm -g --defined-only "$libc" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBWRV]/ {print $3}' | sort -u > "$TMP/libc"
	nm -g --defined-only $objs 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u > "$TMP/ours"
	clash=$(comm -12 "$TMP/ours" "$TMP/libc" | tr '\n' ' ')
	n=$(wc -l < "$TMP/ours")
	[ -z "$clash" ] && [ "$n" -gt 100 ] && ok "no lociprof global shadows a libc name ($n globals checked)" ||
		fail "no lociprof global shadows a libc name" "${clash:-only $n globals found}"
fi
