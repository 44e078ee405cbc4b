#!/usr/bin/env bash
# pebs-ibs-compare end to end: the microbenchmarks' --expect against their
# formulas (written out here, independently) and the ELF symbol table; a
# --quick run (time, facilities, load share error, bias shares); merge with
# the checked-in example of a real soft run.
. "$(dirname "$0")/lib.sh"
MB=$TOP/microbench
EXAMPLE=$TOP/test/data/pesbench-soft-example.json

# --- every --expect is valid JSON and consistent with the loop it describes
for b in load-ratio locked-load bias-bench multi-event exec-mode; do
	if [ ! -x "$MB/$b" ]; then fail "$b built" "$MB/$b missing"; continue; fi
done
python3 - "$MB" > "$TMP/expect.out" <<'EOF'
import json, subprocess, sys
mb = sys.argv[1]

def expect(b, *args):
    out = subprocess.run([f"{mb}/{b}", "--expect", *args], capture_output=True, text=True, check=True).stdout
    return json.loads(out)

def symsize(b, sym):
    out = subprocess.run(["nm", "-S", f"{mb}/{b}"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == sym and f[2] in "Tt":
            return int(f[1], 16)
    return None

def consistent(d):
    """counts = sums over the loop; offsets increasing inside the symbol"""
    c, loop = d["counts"], d["loop"]
    ld = sum(i["count"] for i in loop if i["kind"] in ("load", "atomic"))
    st = sum(i["count"] for i in loop if i["kind"] in ("store", "atomic"))
    ok = (c["instructions"] == sum(i["count"] for i in loop) and c["loads"] == ld and
          c["stores"] == st and c["branches"] == sum(i["count"] for i in loop if i["branch"]) and
          c["taken_branches"] == sum(i["taken"] for i in loop) and
          c["locked"] == sum(i["count"] for i in loop if i["locked"]))
    offs = [i["offset"] for i in loop]
    ok = ok and len(set(offs)) == len(offs) and all(0 <= o < d["symbol_size"] for o in offs)
    return ok

def check(name, cond, why):
    print(("ok - " if cond else "FAIL - ") + name + ("" if cond else ": " + why))

it = 1000
for n in range(1, 9):
    d = expect("load-ratio", "--ratio", str(n), "--iters", str(it))
    c = d["counts"]
    check(f"load-ratio 1/{n} --expect: loads/instructions == 1/{n} exactly, counts consistent",
          c["loads"] * n == c["instructions"] and c["instructions"] == it * (3 if n == 1 else n) and
          consistent(d) and
          c["stores"] == 0 and c["locked"] == 0 and c["branches"] == it and
          c["taken_branches"] == (it if n == 1 else it - 1), json.dumps(c))
    check(f"load-ratio 1/{n}: symbol {d['symbol']} size {d['symbol_size']} matches the ELF symbol table",
          symsize("load-ratio", d["symbol"]) == d["symbol_size"], str(symsize("load-ratio", d["symbol"])))
d = expect("locked-load", "--iters", str(it)); c = d["counts"]
check("locked-load --expect: 1 locked RMW in 4 instructions", consistent(d) and
      c["instructions"] == 4 * it and c["locked"] == it and c["loads"] == it and c["stores"] == it, json.dumps(c))
d = expect("bias-bench", "--iters", str(it)); c = d["counts"]
names = [i["name"] for i in d["loop"]]
check("bias-bench --expect: 4 loads then subq, cmpq, jne", consistent(d) and
      names == ["load 1", "load 2", "load 3", "load 4", "subq", "cmpq", "jne"] and
      c["instructions"] == 7 * it and c["loads"] == 4 * it and c["stores"] == 0, json.dumps(c))
d = expect("multi-event", "--iters", str(it)); c = d["counts"]
check("multi-event --expect: 10 iters - 2 instructions, 4/3/2 loads/stores/locked per iteration",
      consistent(d) and c["instructions"] == 10 * it - 2 and c["loads"] == 4 * it and
      c["stores"] == 3 * it and c["locked"] == 2 * it and c["calls"] == it and c["returns"] == it and
      c["branches"] == 4 * it - 1 and c["taken_branches"] == 3 * it, json.dumps(c))
d = expect("exec-mode", "--iters", str(it)); c = d["counts"]
check("exec-mode --expect: one syscall per iteration, no user locked op", consistent(d) and
      c["syscalls"] == it and c["locked"] == 0 and c["instructions"] == 6 * it and c["loads"] == it,
      json.dumps(c))
for b in ("locked-load", "bias-bench", "multi-event", "exec-mode"):
    d = expect(b)
    check(f"{b}: symbol {d['symbol']} size matches the ELF symbol table",
          symsize(b, d["symbol"]) == d["symbol_size"], str(symsize(b, d["symbol"])))
EOF
cat "$TMP/expect.out"

# the loops really run: --iters 0 and a short run exit 0
for b in load-ratio locked-load bias-bench multi-event exec-mode; do
	"$MB/$b" --iters 1000 && "$MB/$b" --iters 0 && ok "$b runs" || fail "$b runs" "exit $?"
done
"$MB/load-ratio" --ratio 9 > /dev/null 2>&1; rc=$?
[ $rc = 129 ] && ok "load-ratio --ratio 9 is a usage error" || fail "load-ratio --ratio 9" "exit $rc"

# --- the command (registered in cmd/lociprof.c as pebs-ibs-compare and pesbench)
if ! "$LOCIPROF" pebs-ibs-compare -h > "$TMP/h" 2>&1; then
	fail "pebs-ibs-compare -h" "the command is missing or broken: $(head -c 200 "$TMP/h")"
	exit 1
fi
head -n1 "$TMP/h" | grep -q '^usage: lociprof pebs-ibs-compare ' && ok "pebs-ibs-compare -h" ||
	fail "pebs-ibs-compare -h" "$(head -n1 "$TMP/h")"
"$LOCIPROF" pebs-ibs-compare --runs 0 > /dev/null 2>&1; rc=$?
[ $rc = 129 ] && ok "--runs 0 is a usage error" || fail "--runs 0 exits 129" "exit $rc"

t0=$(date +%s)
"$LOCIPROF" pebs-ibs-compare --quick -q --json "$TMP/q.json" --svg "$TMP/svg" > "$TMP/q.txt" 2> "$TMP/q.err"
rc=$?
t1=$(date +%s)
if [ $rc = 0 ]; then
	ok "--quick run exits 0"
elif [ $rc = 1 ] && grep -q 'no selected facility is usable' "$TMP/q.err"; then
	skip "--quick run" "no facility usable here: $(cat "$TMP/q.err")"
	exit 0
else
	fail "--quick run" "exit $rc: $(tail -n 3 "$TMP/q.err")"
	exit 0
fi
[ $((t1 - t0)) -le 120 ] && ok "--quick took $((t1 - t0)) s (<= 120)" || fail "--quick within 2 minutes" "$((t1 - t0)) s"

"$LOCIPROF" list > "$TMP/list.txt" 2>&1
python3 - "$TMP/q.json" "$TMP/list.txt" "$MB" <<'EOF'
import json, math, subprocess, sys
d = json.load(open(sys.argv[1])); listing = open(sys.argv[2]).read()
def check(name, cond, why):
    print(("ok - " if cond else "FAIL - ") + name + ("" if cond else ": " + why))

facs = {f["name"]: f for f in d["facilities"]}
check("every facility listed (pebs, ibs, soft)", set(facs) >= {"pebs", "ibs", "soft"}, str(list(facs)))
for name, f in facs.items():
    # `lociprof list` prints "  <name>  yes|no  <reason>": the same probe
    line = [l for l in listing.splitlines() if l.split()[:1] == [name]]
    same = bool(line) and f["reason"] in line[0] and (("yes" if f["usable"] else "no") == line[0].split()[1])
    if f["usable"]:
        check(f"{name} usable, as lociprof list says", same, line[0] if line else "not in list")
    else:
        check(f"{name} listed UNAVAILABLE with the probe's reason", same and f["reason"], f["reason"])
ids = [e["id"] for e in d["experiments"]]
check("seven experiments", ids == ["accuracy", "overhead", "period", "bias", "multi", "mode", "tool"], str(ids))
rows = {(r["facility"], r["bench"], r["config"], r["metric"]): r for e in d["experiments"] for r in e["rows"]}

# load share on 1/4: the expectation from --expect, the error from the row's own numbers
ex = json.loads(subprocess.run([sys.argv[3] + "/load-ratio", "--ratio", "4", "--expect"],
                               capture_output=True, text=True, check=True).stdout)
want = 100.0 * ex["counts"]["loads"] / ex["counts"]["instructions"]
r = rows.get(("soft", "load-ratio 1/4", "default period", "load share %"))
if facs["soft"]["usable"] and r:
    err = 100.0 * (r["observed"] - r["expected"]) / r["expected"]
    check("soft load share on 1/4: expected %g%% = loads/instructions" % r["expected"], r["expected"] == want, str(want))
    check("soft load share on 1/4: error %+.1f%% computed from observed %.2f%%" % (r["error_pct"], r["observed"]),
          abs(err - r["error_pct"]) < 1e-9, "%r vs %r" % (err, r["error_pct"]))
    print("# measured: soft load share on load-ratio 1/4 = %.2f%% +- %.2f (expected %.0f%%, error %+.1f%%)"
          % (r["observed"], r["stderr"] or 0, r["expected"], r["error_pct"]))
    s = rows[("soft", "load-ratio 1/4", "default period", "samples")]
    print("# measured: soft samples on 1/4 = %.0f vs %.0f expected from CPU time (error %+.1f%%)"
          % (s["observed"], s["expected"], s["error_pct"]))
else:
    check("soft load share on 1/4 reported", False, "row missing")

bias = [e for e in d["experiments"] if e["id"] == "bias"][0]["rows"]
for cfg in sorted({r["config"] for r in bias}):
    tot = sum(r["observed"] for r in bias if r["config"] == cfg)
    check("bias shares sum to 100%% (%s): %.6f" % (cfg, tot), abs(tot - 100) < 1e-6, str(tot))
    sh = {r["metric"]: r["observed"] for r in bias if r["config"] == cfg}
    print("# measured bias (%s): " % cfg + ", ".join("%s %.1f" % (k, v) for k, v in sh.items()))
mode = {r["metric"]: r for e in d["experiments"] if e["id"] == "mode" for r in e["rows"]}
check("exec-mode: no kernel-mode sample with exclude_kernel", mode["kernel-mode samples"]["observed"] == 0,
      str(mode["kernel-mode samples"]["observed"]))
EOF

# --- text output and figures
grep -q 'UNAVAILABLE' "$TMP/q.txt" && grep -q '== 3. period' "$TMP/q.txt" &&
	ok "text: qualitative table and experiment tables" || fail "text output" "$(head -20 "$TMP/q.txt")"
n=$(ls "$TMP/svg"/*.svg 2>/dev/null | wc -l)
python3 -c "
import sys, glob, xml.dom.minidom
fs = glob.glob(sys.argv[1] + '/*.svg')
[xml.dom.minidom.parse(f) for f in fs]
sys.exit(0 if len(fs) >= 8 else 1)" "$TMP/svg" && ok "--svg: $n figures, all well-formed XML" ||
	fail "--svg figures" "$n files or bad XML"

# --- merge: this run with the checked-in example (a real soft run)
if [ -f "$EXAMPLE" ] && grep -q '"example": "real run of the soft facility' "$EXAMPLE"; then
	ok "checked-in example is labelled as a real soft run"
else
	fail "checked-in example" "$EXAMPLE missing or unlabelled"
fi
if "$LOCIPROF" pesbench --merge --svg "$TMP/msvg" "$TMP/q.json" "$EXAMPLE" > "$TMP/m.txt" 2> "$TMP/m.err"; then
	grep -q '\[A\] soft' "$TMP/m.txt" && grep -q '\[B\] soft' "$TMP/m.txt" &&
		grep -q 'load-ratio 1/4 *default period *load share %' "$TMP/m.txt" &&
		ok "merge: both results side by side" || fail "merge columns" "$(head -30 "$TMP/m.txt")"
	ls "$TMP/msvg"/accuracy-load-share.svg > /dev/null 2>&1 && ok "merge --svg" || fail "merge --svg" "no figure"
else
	fail "merge" "$(cat "$TMP/m.err")"
fi
"$LOCIPROF" pesbench --merge "$TMP/q.txt" > /dev/null 2>&1; rc=$?
[ $rc = 1 ] && ok "merge of a non-result fails with 1, as report and compare do for bad input" || fail "merge of a text file" "exit $rc"

# --- installed: make install puts the microbenchmarks where the installed tool finds them
if make -s -C "$TOP" install DESTDIR="$TMP/root" PREFIX=/usr > "$TMP/inst.log" 2>&1; then
	(cd "$TMP" && "$TMP/root/usr/bin/lociprof" pebs-ibs-compare --quick -q --runs 1 > "$TMP/iq.txt" 2> "$TMP/iq.err"); rc=$?
	[ $rc = 0 ] && grep -q 'load-ratio' "$TMP/iq.txt" && ok "installed pebs-ibs-compare --quick runs its installed microbenchmarks" ||
		fail "installed pebs-ibs-compare" "exit $rc: $(tail -n 2 "$TMP/iq.err")"
else
	fail "make install into a scratch root" "$(tail -n 3 "$TMP/inst.log")"
fi
