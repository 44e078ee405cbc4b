#!/usr/bin/env bash
# lociprof compare on the microbenchmarks' --expect output: a file against
# itself is S = 1 and error 0; different models give the S that an
# independent computation here (python, straight from the two JSON files)
# gives; malformed or mismatched input exits 1 naming the file and key.
. "$(dirname "$0")/lib.sh"

MB="$TOP/microbench"

# a missing command or tool is a failure, never a skip: make deps installs python3
"$LOCIPROF" compare -h >/dev/null 2>&1; rc=$?
if [ $rc != 0 ]; then
	fail "compare" "'lociprof compare -h' exits $rc: the command is missing or broken"
	exit 1
fi
if ! command -v python3 >/dev/null; then
	fail "compare" "python3 missing: run make deps"
	exit 1
fi
for b in point-to-point write-volume false-sharing; do
	if [ ! -x "$MB/$b" ]; then fail "compare inputs" "$MB/$b missing (make)"; exit 1; fi
done

"$MB/point-to-point" --expect --threads 4 --pairs 0-1,2-3 --fractions 1.0,0.5 >"$TMP/p2p.json"
"$MB/write-volume" --expect --threads 4 >"$TMP/wv.json"
"$MB/false-sharing" --expect --threads 4 --false-fraction 0.5 >"$TMP/fs.json"
"$MB/false-sharing" --expect --threads 3 --false-fraction 0.25 >"$TMP/fs3.json"
"$MB/false-sharing" --expect --threads 12 --false-fraction 0.5 >"$TMP/fs12.json"

# Independent S and false fractions: python3 ref.py EXP MEAS -> JSON
cat >"$TMP/ref.py" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def sim(x, y):
    n = max(len(x), len(y))
    def cell(m, i, j):
        return m[i][j] if i < len(m) and j < len(m) else 0.0
    sx = sum(map(sum, x)); sy = sum(map(sum, y))
    if sx == 0 and sy == 0: return 1.0
    if sx == 0 or sy == 0: return 0.0
    return 1 - 0.5 * sum(abs(cell(x, i, j) / sx - cell(y, i, j) / sy)
                         for i in range(n) for j in range(n))
def ff(r):
    if "false_fraction" in r: return r["false_fraction"]
    t = r["totals"]
    return t["false"] / t["all"] if t["all"] else None
out = {k: sim(a["matrix"][k], b["matrix"][k]) for k in ("all", "true", "false")}
out["ff"] = [ff(a), ff(b)]
print(json.dumps(out))
EOF

# check_pair NAME EXP MEAS: lociprof's JSON against ref.py, to 1e-9
check_pair() {
	local n=$1 e=$2 m=$3 rc out
	"$LOCIPROF" compare --json "$TMP/cmp.json" "$e" "$m" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc != 0 ]; then fail "$n" "exit $rc: $(head -c 200 "$TMP/err")"; return; fi
	python3 "$TMP/ref.py" "$e" "$m" >"$TMP/ref.json"
	if out=$(python3 - "$TMP/cmp.json" "$TMP/ref.json" 2>&1 <<'EOF'
import json, sys
c, r = (json.load(open(p)) for p in sys.argv[1:3])
assert c["command"] == "compare" and c["kind"] == "comdetect", c
for k in ("all", "true", "false"):
    assert abs(c["similarity"][k] - r[k]) < 1e-9, (k, c["similarity"][k], r[k])
fe, fm = r["ff"]
assert abs(c["false_fraction"]["expected"] - fe) < 1e-12, (c["false_fraction"], fe)
assert abs(c["false_fraction"]["measured"] - fm) < 1e-12, (c["false_fraction"], fm)
assert abs(c["false_fraction"]["error"] - abs(fe - fm)) < 1e-12, c["false_fraction"]
print(" ".join("%s=%.4f" % (k, r[k]) for k in ("all", "true", "false")))
EOF
	); then ok "$n ($out)"; else fail "$n" "$(echo "$out" | tail -n 1)"; fi
}

# 1. a file against itself
for f in p2p wv fs; do
	"$LOCIPROF" compare --json "$TMP/self.json" "$TMP/$f.json" "$TMP/$f.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 0 ] && grep -Eq '^  all +1\.000' "$TMP/out" && grep -Eq '^  error +0\.000' "$TMP/out" &&
	   python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert all(v == 1 for v in c["similarity"].values()), c; assert c["false_fraction"]["error"] == 0, c' "$TMP/self.json" 2>/dev/null; then
		ok "compare $f with itself: S=1.000, error 0"
	else
		fail "compare $f with itself" "exit $rc: $(head -c 300 "$TMP/out")"
	fi
done

# 2. different models: S from the files, computed here
check_pair "point-to-point vs write-volume S" "$TMP/p2p.json" "$TMP/wv.json"
if python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["similarity"]["all"] < 0.5, c' "$TMP/cmp.json" 2>/dev/null; then
	ok "point-to-point vs write-volume S well below 1"
else
	fail "point-to-point vs write-volume S well below 1" "$(head -c 200 "$TMP/cmp.json")"
fi
check_pair "false-sharing vs write-volume S and false-fraction error" "$TMP/fs.json" "$TMP/wv.json"
check_pair "false-sharing 12 vs 4 threads (union of sizes)" "$TMP/fs12.json" "$TMP/fs.json"
check_pair "false-sharing 4 vs 3 threads, F 0.5 vs 0.25" "$TMP/fs.json" "$TMP/fs3.json"
"$LOCIPROF" compare "$TMP/fs.json" "$TMP/fs3.json" >"$TMP/out" 2>&1
grep -q "differ in size (4x4 vs 3x3)" "$TMP/out" && ok "size mismatch is reported" ||
	fail "size mismatch is reported" "$(head -c 300 "$TMP/out")"

# 3. malformed input: exit 1, message names the file (and the key)
head -c 100 "$TMP/p2p.json" >"$TMP/truncated.json"
"$LOCIPROF" compare "$TMP/p2p.json" "$TMP/truncated.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
if [ $rc = 1 ] && grep -q "error: '$TMP/truncated.json': line 1 col [0-9]* (byte offset [0-9]*)" "$TMP/err"; then
	ok "truncated file: exit 1 naming file, line and offset"
else
	fail "truncated file: exit 1 naming file, line and offset" "exit $rc: $(head -c 300 "$TMP/err")"
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["matrix"]["true"][1][2]="x"; print(json.dumps(d))' \
	"$TMP/wv.json" >"$TMP/badcell.json"
"$LOCIPROF" compare "$TMP/badcell.json" "$TMP/wv.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
if [ $rc = 1 ] && grep -q "'$TMP/badcell.json': key 'matrix.true.1.2': expected a number" "$TMP/err"; then
	ok "wrong type: exit 1 naming file and key"
else
	fail "wrong type: exit 1 naming file and key" "exit $rc: $(head -c 300 "$TMP/err")"
fi
"$LOCIPROF" compare "$TMP/wv.json" "$TMP/nonexistent.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "nonexistent.json" "$TMP/err" && ok "missing file: exit 1" ||
	fail "missing file: exit 1" "exit $rc"
"$LOCIPROF" compare "$TMP/wv.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 129 ] && grep -q "^usage: lociprof compare" "$TMP/err" && ok "one file: exit 129" ||
	fail "one file: exit 129" "exit $rc"

# 4. reuse histograms: S by hand-independent python, granularity refused
cat >"$TMP/r1.json" <<'EOF'
{"command":"reuse","granularity":"line","bins":[{"lo":0,"hi":0,"fraction":0.4},
 {"lo":1,"hi":1,"fraction":0.2},{"lo":2,"hi":3,"fraction":0.1},{"lo":"cold","hi":"inf","fraction":0.3}],
 "per_thread":[{"bins":[{"lo":0,"hi":0,"fraction":1}]},{"bins":[{"lo":1,"hi":1,"fraction":0.5},{"lo":4,"hi":7,"fraction":0.5}]}],
 "reuses":90,"invalidations":10}
EOF
cat >"$TMP/r2.json" <<'EOF'
{"command":"reuse","granularity":"line","bins":[{"lo":0,"hi":0,"count":30},
 {"lo":2,"hi":3,"count":30},{"lo":4,"hi":7,"count":20},{"lo":"inf","count":20}],
 "per_thread":[{"bins":[{"lo":0,"hi":0,"fraction":0.5},{"lo":1,"hi":1,"fraction":0.5}]},{"bins":[{"lo":4,"hi":7,"fraction":1}]}],
 "reuses":60,"invalidations":20}
EOF
"$LOCIPROF" compare --json "$TMP/rc.json" "$TMP/r1.json" "$TMP/r2.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
if [ $rc = 0 ] && out=$(python3 - "$TMP/r1.json" "$TMP/r2.json" "$TMP/rc.json" 2>&1 <<'EOF'
import json, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
def hist(bins):
    h = {}
    for x in bins:
        k = "cold" if x["lo"] in ("cold", "inf") else (x["lo"], x["hi"])
        h[k] = h.get(k, 0) + x.get("fraction", x.get("count"))
    t = sum(h.values())
    return {k: v / t for k, v in h.items()}
def sim(x, y):
    x, y = hist(x), hist(y)
    return 1 - 0.5 * sum(abs(x.get(k, 0) - y.get(k, 0)) for k in set(x) | set(y))
s = sim(a["bins"], b["bins"])
assert c["kind"] == "reuse" and abs(c["similarity"]["all"] - s) < 1e-9, (c, s)
pt = [sim(p["bins"], q["bins"]) for p, q in zip(a["per_thread"], b["per_thread"])]
assert len(c["per_thread"]) == 2 and all(abs(u - v) < 1e-9 for u, v in zip(c["per_thread"], pt)), (c, pt)
ie = a["invalidations"] / (a["reuses"] + a["invalidations"])
im = b["invalidations"] / (b["reuses"] + b["invalidations"])
f = c["invalidation_fraction"]
assert abs(f["expected"] - ie) < 1e-12 and abs(f["measured"] - im) < 1e-12 and abs(f["error"] - abs(ie - im)) < 1e-12, f
print("S=%.4f per-thread=%s" % (s, ",".join("%.2f" % v for v in pt)))
EOF
); then ok "reuse histograms ($out)"; else fail "reuse histograms" "exit $rc: ${out:-$(head -c 200 "$TMP/err")}"; fi
sed 's/"line"/"addr"/' "$TMP/r2.json" >"$TMP/r3.json"
"$LOCIPROF" compare "$TMP/r1.json" "$TMP/r3.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "granularity differs ('line' vs 'addr')" "$TMP/err" &&
	ok "reuse: different granularity refused" || fail "reuse: different granularity refused" "exit $rc: $(head -c 200 "$TMP/err")"
"$LOCIPROF" compare "$TMP/r1.json" "$TMP/wv.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "reuse result but" "$TMP/err" &&
	ok "reuse vs comdetect refused" || fail "reuse vs comdetect refused" "exit $rc"

# --- sampling error: two samplings of one trace (the trace facility, seeds 1
# and 2) differ within their standard errors in most bins, a sampling of one
# program against another program's exact histogram does not, and two
# results without errors get no such section
RIB=$TOP/microbench/ribench
rcfg() { sed -n "s/^$1 //p" "$TOP/microbench/ribench-configs.txt"; }
"$RIB" $(rcfg ci-short-decreasing-case3) --trace "$TMP/sd.trace"
"$RIB" $(rcfg ci-short-bell) --expect > "$TMP/sb.exp"
"$RIB" $(rcfg ci-short-decreasing-case3) --expect > "$TMP/sd.exp"
for s in 1 2; do
	"$LOCIPROF" reuse -q --sampler trace="$TMP/sd.trace" -c 200 --seed $s --json "$TMP/sd$s.json" 2> /dev/null
done
"$LOCIPROF" compare --json "$TMP/c12.json" "$TMP/sd1.json" "$TMP/sd2.json" > "$TMP/c12.txt" 2> "$TMP/err"
"$LOCIPROF" compare --json "$TMP/cx.json" "$TMP/sb.exp" "$TMP/sd1.json" > "$TMP/cx.txt" 2>> "$TMP/err"
"$LOCIPROF" compare --json "$TMP/ce.json" "$TMP/sb.exp" "$TMP/sd.exp" > /dev/null 2>> "$TMP/err"
got=$(python3 - "$TMP/c12.json" "$TMP/cx.json" "$TMP/ce.json" "$TMP/sd1.json" "$TMP/sb.exp" <<'PY'
import json, math, sys
same, other, exact, meas, exp = (json.load(open(p)) for p in sys.argv[1:6])
a = same['sampling_error']; b = other['sampling_error']
# the other comparison's beyond bins, recomputed from the inputs: counts
# normalized with the top-level cold (as S), the stderr scaled alike
def norm(d):
    h = {(x['lo'], x['hi']): x for x in d['bins']}
    tot = sum(x['count'] for x in d['bins']) + d.get('cold', 0)
    return h, tot
he, te = norm(exp); hm, tm = norm(meas)
z = {}
for k in set(he) | set(hm):
    x = he[k]['count'] / te if k in he else 0
    y = hm[k]['count'] / tm if k in hm else 0
    se = hm[k]['stderr'] * (y / hm[k]['fraction']) if k in hm and hm[k]['fraction'] > 0 else 0
    z[k] = abs(x - y) / se if se > 0 else (math.inf if abs(x - y) > 1e-9 else 0)
want = sorted(k for k in z if z[k] > 2)
got = sorted((d['lo'], d['hi']) for d in b['beyond'])
print(a['within'] >= 3 * len(a['beyond']), len(b['beyond']) >= 2, want == got,
      'sampling_error' not in exact)
PY
)
[ "$got" = "True True True True" ] && grep -q "^bins beyond 2 standard errors" "$TMP/cx.txt" &&
	ok "compare: bins beyond 2 standard errors of sampling (two seeds mostly within; another program's exact histogram beyond)" ||
	fail "compare: bins beyond 2 standard errors of sampling" "$got; $(head -c 300 "$TMP/err")"
