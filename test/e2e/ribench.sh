#!/usr/bin/env bash
# microbench/ribench (RIBench, seed 1 Listing 6.1), the ground truth of
# `lociprof reuse`: options, every configuration of ribench-configs.txt, and
# --expect against an exact reuse-distance computation of --trace written
# independently here in python (dict of last accesses + Fenwick tree,
# per-thread streams with invalidation, seed Definitions 6.2.1-6.2.2).
. "$(dirname "$0")/lib.sh"

RB="$TOP/microbench/ribench"
CONF="$TOP/microbench/ribench-configs.txt"

if [ ! -x "$RB" ]; then fail "ribench built" "$RB missing (make)"; exit 0; fi

# --- options ----------------------------------------------------------------
"$RB" --help >"$TMP/out" 2>"$TMP/err"; rc=$?
if [ $rc = 0 ] && head -n1 "$TMP/out" | grep -q '^usage: ribench ' && [ ! -s "$TMP/err" ] &&
   grep -q -- '--granularity' "$TMP/out" && grep -q -- '--trace FILE' "$TMP/out"; then
	ok "ribench --help"
else
	fail "ribench --help" "exit $rc, stdout: $(head -n1 "$TMP/out")"
fi
for bad in --no-such-option "--threads 0" "--threads 65" "--a -1" "--a1 x" "--outer 1.5" \
	   "--inv 999999999999" "--granularity page" extra-arg "--e1"; do
	"$RB" $bad >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc = 129 ] && grep -q '^usage: ribench ' "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "ribench $bad exits 129"
	else
		fail "ribench $bad exits 129" "exit $rc"
	fi
done

# --- every configuration: --expect is well-formed and agrees with the seed --
# Hand values from the seed, recomputed here from the options: accesses =
# N outer sum_P r_P (inv + P1 rounded up to even); Table 6.4: phase P's
# accesses to its private array, outer r_P n_P per thread, are all reuses
# but the first pass (cold), and the within-phase ones have distance
# P1 + inv - 1 (the seed's "inv + P1" counts the reuse itself); shared
# stores: cold once per element, then (N >= 2) invalidations, (N = 1) reuses.
cat >"$TMP/valid.py" <<'PY'
import json, sys
name, path, opts = sys.argv[1], sys.argv[2], sys.argv[3].split()
o = dict(zip(opts[0::2], (int(v) for v in opts[1::2])))
d = json.load(open(path))
N, outer, inv = o.get('--threads', 1), o['--outer'], o['--inv']
r = [o['--' + p] for p in 'abcde']
L = [o['--' + p + '1'] for p in 'abcde']
n = [(x + 1) // 2 * 2 for x in L]
J = outer * sum(r)
line = d['granularity'] == 'line'
for k in ('command', 'benchmark', 'mode', 'granularity', 'metric', 'bins', 'time_bins',
          'reuses', 'invalidations', 'cold', 'per_thread', 'parameters'):
    assert k in d, 'missing key ' + k
assert (d['command'], d['benchmark'], d['mode'], d['metric']) == ('reuse', 'ribench', 'private', 'stack')
def bins_ok(bins, total, what):
    s = 0
    for b in bins:
        k = b['hi'].bit_length()
        assert b['lo'] == (0 if k == 0 else 1 << (k - 1)) and b['hi'] == (0 if k == 0 else (1 << k) - 1), \
            '%s: bin %r is not a power-of-two bin' % (what, b)
        assert abs(b['fraction'] - b['count'] / total) < 1e-12, what + ': fraction != count/reuses'
        s += b['fraction']
    assert abs(s - 1) < 1e-9, '%s: fractions sum to %r' % (what, s)
    assert sum(b['count'] for b in bins) == total, what + ': counts do not sum to reuses'
bins_ok(d['bins'], d['reuses'], 'bins')
bins_ok(d['time_bins'], d['reuses'], 'time_bins')
acc = N * outer * sum(ri * (inv + ni) for ri, ni in zip(r, n))
assert d['reuses'] + d['cold'] + d['invalidations'] == acc, \
    'reuses+cold+invalidations %d != accesses %d' % (d['reuses'] + d['cold'] + d['invalidations'], acc)
assert len(d['per_thread']) == N and [t['index'] for t in d['per_thread']] == list(range(N))
for t in d['per_thread']:
    bins_ok(t['bins'], t['reuses'], 'per_thread bins')
    assert t['reuses'] * N == d['reuses'], 'per-thread reuses'
if not line and outer:
    cold = sum(ni for ri, ni in zip(r, n) if ri) + (inv if J else 0)
    assert d['cold'] == N * cold, 'cold %d, expected %d' % (d['cold'], N * cold)
    exp_inv = N * (J - 1) * inv if N >= 2 and J else 0
    assert d['invalidations'] == exp_inv, 'invalidations %d, expected %d' % (d['invalidations'], exp_inv)
    for p in range(5):
        if not r[p] or not n[p]:
            continue
        terms = [t for t in d['terms'] if t['array'] == 'abcde'[p]]
        tot = sum(t['count'] for t in terms)
        assert tot == outer * r[p] * n[p], 'phase %s: %d accesses, Table 6.4 says %d' % ('abcde'[p], tot, outer * r[p] * n[p])
        within = [t for t in terms if t['what'] == 'next j-iteration']
        if r[p] > 1:
            assert within and all(t['stack'] == L[p] + inv - 1 + (n[p] - L[p]) for t in within), \
                'phase %s: within-phase distance %r, Table 6.4: %d - 1' % ('abcde'[p], within, L[p] + inv)
PY
nconf=0
while read -r name opts; do
	case "$name" in ''|'#'*) continue;; esac
	nconf=$((nconf + 1))
	for g in address line; do
		"$RB" $opts --granularity $g --expect >"$TMP/e.json" 2>"$TMP/err"; rc=$?
		if [ $rc != 0 ]; then fail "$name --expect ($g)" "exit $rc: $(head -n1 "$TMP/err")"; continue; fi
		if out=$(python3 "$TMP/valid.py" "$name" "$TMP/e.json" "$opts" 2>&1); then
			ok "$name --expect ($g) is valid JSON, fractions sum to 1, seed counts"
		else
			fail "$name --expect ($g)" "$(echo "$out" | tail -n 1)"
		fi
	done
done <"$CONF"
names=$(grep -v '^#' "$CONF" | awk 'NF { print $1 }')
[ "$(echo "$names" | grep -vc '^ci-')" = 20 ] && [ "$(echo "$names" | grep -c '^ci-')" = 20 ] &&
	[ "$(echo "$names" | sed 's/^ci-//' | sort | uniq -d | wc -l)" = 20 ] &&
	ok "ribench-configs.txt: 20 seed configurations and their 20 ci- variants" ||
	fail "ribench-configs.txt" "$nconf lines, names: $(echo $names)"

# --- exact reuse distances of --trace --------------------------------------
cat >"$TMP/exact.py" <<'PY'
def exact(path, shift):
    """Per-thread reuse of a lociprof trace, from the definitions: each
    thread has a dict key -> [its seq of the last access, live] and a
    Fenwick tree over its own access numbers with a 1 at every live last
    access. Reuse: stack distance = live 1s after the previous access
    (distinct other keys), time distance = accesses strictly between. A
    store by another thread kills the copy (drops the 1); the owner's next
    access is an invalidation. Returns per thread (in order of first
    appearance) {pairs: {(stack, time): n}, cold, inval, invd}."""
    acc, cnt, order = [], {}, []
    with open(path) as f:
        for l in f:
            if l[0] == '#':
                continue
            p = l.split()
            if not p:
                continue
            t = int(p[0])
            if t not in cnt:
                cnt[t] = 0
                order.append(t)
            cnt[t] += 1
            acc.append((t, p[1] in 'Ww', int(p[2], 16) >> shift))
    R = {t: dict(fw=[0] * (cnt[t] + 1), seq=0, live=0, last={}, pairs={}, cold=0, inval=0, invd=0)
         for t in order}
    holders = {}
    for t, w, key in acc:
        s = R[t]; fw = s['fw']; n = len(fw) - 1; last = s['last']
        now = s['seq'] + 1; s['seq'] = now
        e = last.get(key)
        if e is None:
            s['cold'] += 1
            e = last[key] = [now, 1]
        elif not e[1]:
            s['inval'] += 1
            e[0] = now; e[1] = 1
        else:
            p = e[0]; c = 0; i = p
            while i > 0:
                c += fw[i]; i &= i - 1
            k = (s['live'] - c, now - p - 1)
            pr = s['pairs']; pr[k] = pr.get(k, 0) + 1
            i = p
            while i <= n:
                fw[i] -= 1; i += i & -i
            s['live'] -= 1
            e[0] = now
        i = now
        while i <= n:
            fw[i] += 1; i += i & -i
        s['live'] += 1
        h = holders.get(key)
        if h is None:
            holders[key] = {t}
            continue
        h.add(t)
        if w and len(h) > 1:
            for o in h:
                if o == t:
                    continue
                so = R[o]; eo = so['last'][key]
                if eo[1]:
                    eo[1] = 0; so['invd'] += 1; so['live'] -= 1
                    f2 = so['fw']; m = len(f2) - 1; i = eo[0]
                    while i <= m:
                        f2[i] -= 1; i += i & -i
            holders[key] = {t}
    return [R[t] for t in order]

def binof(d):
    return d.bit_length()	# bin 0 = {0}, bin k = [2^(k-1), 2^k)

def similarity(exp_bins, pairs, which):
    """S = 1 - sum |B - B'| / 2 over fractions of reuses (seed 6.5.1)."""
    h = {}
    for k, c in pairs.items():
        b = binof(k[which]); h[b] = h.get(b, 0) + c
    tot, etot = sum(h.values()), sum(b['count'] for b in exp_bins)
    e = {binof(b['hi']): b['count'] for b in exp_bins}
    return 1 - sum(abs(e.get(k, 0) / etot - h.get(k, 0) / tot) for k in set(e) | set(h)) / 2
PY
cat >"$TMP/cmp.py" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from exact import exact, similarity
name, trace = sys.argv[2], sys.argv[3]
for path in sys.argv[4:]:
    d = json.load(open(path))
    g = d['granularity']
    R = exact(trace, 6 if g == 'line' else 0)
    pairs = {}
    for r in R:
        for k, c in r['pairs'].items():
            pairs[k] = pairs.get(k, 0) + c
    for key, which, metric in (('bins', 0, 'stack'), ('time_bins', 1, 'time')):
        S = similarity(d[key], pairs, which)
        print(('ok - ' if S >= 0.999 else 'FAIL - ') +
              '%s %s %s: --expect vs exact from --trace: S = %.6f' % (name, g, metric, S))
    # the closed form's terms are exact distances: the same multiset
    want = {}
    for t in d['terms']:
        if 'stack' in t:
            k = (t['stack'], t['time']); want[k] = want.get(k, 0) + t['count'] * len(R)
    cold, inval, invd = (sum(r[k] for r in R) for k in ('cold', 'inval', 'invd'))
    bad = [k for k in set(want) | set(pairs) if want.get(k) != pairs.get(k)]
    if bad or (cold, inval, invd) != (d['cold'], d['invalidations'], d['invalidated_uses']) or \
       len(R) != d['parameters']['threads']:
        k = min(bad) if bad else None
        print('FAIL - %s %s: distances/counts differ from exact: (stack,time) %r: expect %r exact %r; '
              'cold %d/%d inval %d/%d invalidated %d/%d' % (name, g, k, want.get(k), pairs.get(k),
              d['cold'], cold, d['invalidations'], inval, d['invalidated_uses'], invd))
    else:
        print('ok - %s %s: every (stack, time) distance, cold, invalidation count exact' % (name, g))
PY
grep '^ci-' "$CONF" | while read -r name opts; do
	echo "$name $opts"
done >"$TMP/ci.list"
run_ci() {	# one ci- configuration: trace, expectations, comparison
	local name=$1; shift
	local d="$TMP/ci/$name"
	mkdir -p "$d"
	if ! "$RB" "$@" --trace "$d/trace" 2>"$d/err"; then
		echo "FAIL - $name --trace: $(head -n1 "$d/err")"; return
	fi
	"$RB" "$@" --expect >"$d/addr.json" && "$RB" "$@" --expect --granularity line >"$d/line.json" &&
		python3 "$TMP/cmp.py" "$TMP" "$name" "$d/trace" "$d/addr.json" "$d/line.json" 2>&1 |
		sed '/^\(ok\|FAIL\) - /!s/^/FAIL - '"$name"' python: /'
	rm -f "$d/trace"
}
export -f run_ci
export RB TMP
if [ "$(wc -l <"$TMP/ci.list")" != 20 ]; then fail "ci- configurations" "expected 20"; fi
# two at a time (2 cpus): the python exact computation is the slow part
xargs -P 2 -L 1 bash -c 'run_ci "$@"' _ <"$TMP/ci.list" >"$TMP/ci.out"
sort "$TMP/ci.out"

# Random small configurations (odd lengths, empty phases, 1-3 threads):
# --expect's exact distances against the trace.
cat >"$TMP/fuzz.py" <<'PY'
import json, random, subprocess, sys
sys.path.insert(0, sys.argv[1])
from exact import exact
rb, tmp = sys.argv[2], sys.argv[1]
random.seed(12345)
bad = []
for it in range(40):
    a = ['--threads', str(random.randint(1, 3)), '--outer', str(random.randint(0, 3)),
         '--inv', str(random.choice([0, 1, 7, 8, 9, 17]))]
    for p in 'abcde':
        a += ['--' + p, str(random.randint(0, 3)), '--' + p + '1', str(random.choice([0, 1, 2, 5, 8, 9, 16, 17, 30]))]
    subprocess.run([rb] + a + ['--trace', tmp + '/f.trace'], check=True)
    for g, shift in (('address', 0), ('line', 6)):
        d = json.loads(subprocess.run([rb] + a + ['--expect', '--granularity', g], check=True,
                                      capture_output=True).stdout)
        R = exact(tmp + '/f.trace', shift)
        got, want = {}, {}
        for r in R:
            for k, c in r['pairs'].items():
                got[k] = got.get(k, 0) + c
        for t in d['terms']:
            if 'stack' in t:
                k = (t['stack'], t['time']); want[k] = want.get(k, 0) + t['count'] * int(a[1])
        if got != want or sum(r['cold'] for r in R) != d['cold'] or \
           sum(r['inval'] for r in R) != d['invalidations']:
            bad.append(' '.join(a) + ' ' + g)
assert not bad, '%d of 80 differ, e.g. %s' % (len(bad), bad[0])
PY
if out=$(python3 "$TMP/fuzz.py" "$TMP" "$RB" 2>&1); then
	ok "40 random small configurations x 2 granularities: --expect distances = exact from --trace"
else
	fail "random small configurations" "$(echo "$out" | tail -n 1)"
fi

# --- shared cache: --expect --shared-cache is the exact engine's answer -----
# One LRU stack over --trace's interleaved stream (reuse --trace
# --shared-cache): bins, time bins, counts and every thread's histograms
# equal, bin for bin, on the 20 ci- configurations and 40 random small ones
# (1-3 threads, odd lengths, empty phases), both granularities.
cat >"$TMP/shared.py" <<'PY'
import json, random, subprocess, sys
lp, rb, tmp, conf = sys.argv[1:5]
key = lambda bins: [(x['lo'], x['hi'], x['count']) for x in bins if x['count'] > 0]
def differ(a):
    subprocess.run([rb] + a + ['--trace', tmp + '/s.trace'], check=True)
    for g in ('address', 'line'):
        e = json.loads(subprocess.run([rb] + a + ['--expect', '--shared-cache', '--granularity', g],
                                      check=True, capture_output=True).stdout)
        subprocess.run([lp, 'reuse', '-q', '--trace', tmp + '/s.trace', '--shared-cache',
                        '--granularity', g, '--json', tmp + '/s.json'], check=True,
                       stdout=subprocess.DEVNULL)
        x = json.load(open(tmp + '/s.json'))
        if e['mode'] != 'shared':
            return g + ': mode ' + e['mode']
        for k in ('reuses', 'cold', 'invalidations', 'cross_thread'):
            if e[k] != x[k]:
                return '%s: %s %s, exact %s' % (g, k, e[k], x[k])
        for k in ('bins', 'time_bins'):
            if key(e[k]) != key(x[k]):
                return '%s %s: %r != exact %r' % (g, k, key(e[k]), key(x[k]))
        xt = {t['tid']: t for t in x['per_thread']}
        for t in e['per_thread']:
            o = xt.get(t['tid'])
            if o is None and t['reuses'] + t['cold'] == 0:
                continue	# no access: not in the trace
            if o is None or any(t[k] != o[k] for k in ('reuses', 'cold', 'cross_thread')) or \
               key(t['bins']) != key(o['bins']) or key(t['time_bins']) != key(o['time_bins']):
                return '%s: thread %d differs' % (g, t['tid'])
    return None
bad, n = [], 0
for l in open(conf):
    w = l.split()
    if w and w[0].startswith('ci-'):
        n += 1
        r = differ(w[1:])
        if r:
            bad.append(w[0] + ' ' + r)
random.seed(54321)
for it in range(40):
    a = ['--threads', str(random.randint(1, 3)), '--outer', str(random.randint(0, 3)),
         '--inv', str(random.choice([0, 1, 7, 8, 9, 17]))]
    for p in 'abcde':
        a += ['--' + p, str(random.randint(0, 3)), '--' + p + '1', str(random.choice([0, 1, 2, 5, 8, 9, 16, 17, 30]))]
    n += 1
    r = differ(a)
    if r:
        bad.append(' '.join(a) + ' ' + r)
assert n == 60, '%d configurations' % n
assert not bad, '%d of %d differ, e.g. %s' % (len(bad), n, bad[0])
PY
if out=$(python3 "$TMP/shared.py" "$LOCIPROF" "$RB" "$TMP" "$CONF" 2>&1); then
	ok "--expect --shared-cache = reuse --trace --shared-cache bin for bin (20 ci- + 40 random configurations x 2 granularities)"
else
	fail "--expect --shared-cache vs the exact shared engine" "$(echo "$out" | tail -n 1)"
fi
# shared differs from private where it should: a thread's own passes are
# farther apart (the other thread's pass in between), and the shared stores
# are reuses across threads, not invalidations
opts=$(awk '$1 == "ci-short-bell-case2" { $1 = ""; print }' "$CONF")
"$RB" $opts --expect >"$TMP/pp.json"; "$RB" $opts --expect --shared-cache >"$TMP/ps.json"
if out=$(python3 - "$TMP/pp.json" "$TMP/ps.json" <<'PY' 2>&1
import json, sys
p, s = (json.load(open(f)) for f in sys.argv[1:3])
assert p['mode'] == 'private' and s['mode'] == 'shared', (p['mode'], s['mode'])
assert p['invalidations'] > 0 and s['invalidations'] == 0 and s['cross_thread'] > 0
assert s['accesses'] == p['accesses'] and s['cold'] < p['cold']
assert s['reuses'] + s['cold'] == s['accesses']
within = lambda d: sorted(t['stack'] for t in d['terms'] if t['what'] == 'next j-iteration' and t['array'] == 'e')
assert within(s)[0] > within(p)[0], (within(p), within(s))
PY
); then ok "--shared-cache: no invalidations, cross-thread reuses, a thread's passes farther apart"
else fail "--expect --shared-cache vs private" "$(echo "$out" | tail -n 1)"; fi

# --- granularity: line differs from address where it should -----------------
# ci-short-bell-case2: n_a = 26 elements = 3 full lines + 2 elements, inv =
# 50 = 7 lines. Per pass over n elements, n - ceil(n/8) line reuses have
# distance 0 (none by address); the shared invalidations drop to 7 per
# j-iteration instead of 50.
opts=$(awk '$1 == "ci-short-bell-case2" { $1 = ""; print }' "$CONF")
"$RB" $opts --expect >"$TMP/ga.json"; "$RB" $opts --expect --granularity line >"$TMP/gl.json"
if out=$(python3 - "$TMP/ga.json" "$TMP/gl.json" <<'PY' 2>&1
import json, sys
a, l = (json.load(open(p)) for p in sys.argv[1:3])
assert all(b['lo'] > 0 for b in a['bins']), 'address: distance-0 reuses'
n = [26, 76, 176, 376, 776]; r = [50, 40, 40, 10, 3]; outer, N, J = 2, 2, 2 * 143
zero = N * (outer * sum(ri * (ni - (ni + 7) // 8) for ri, ni in zip(r, n)) + J * (50 - 7))
b0 = [b for b in l['bins'] if b['hi'] == 0]
assert b0 and b0[0]['count'] == zero, 'line bin 0: %r, expected %d' % (b0, zero)
assert a['invalidations'] == N * (J - 1) * 50 and l['invalidations'] == N * (J - 1) * 7, \
    'invalidations %d / %d' % (a['invalidations'], l['invalidations'])
assert max(b['hi'] for b in l['bins']) < max(b['hi'] for b in a['bins']), 'line distances not shorter'
PY
); then ok "granularity line: distance-0 line reuses and per-line invalidations"
else fail "granularity line vs address" "$(echo "$out" | tail -n 1)"; fi

# --- the trace file ----------------------------------------------------------
opts=$(awk '$1 == "ci-long-bell-case2" { $1 = ""; print }' "$CONF")
"$RB" $opts --trace "$TMP/t.trace"; "$RB" $opts --expect >"$TMP/t.json"
if out=$(python3 - "$TMP/t.trace" "$TMP/t.json" <<'PY' 2>&1
import json, re, sys
d = json.load(open(sys.argv[2]))
first, n, tids, owners = None, 0, [], {}
pat = re.compile(r'^(\d+) ([RW]) 0x([0-9a-f]+) 8$')
for l in open(sys.argv[1]):
    l = l.rstrip('\n')
    if first is None:
        first = l
    if l.startswith('#'):
        continue
    m = pat.match(l)
    assert m, 'bad line %r' % l
    n += 1
    t = int(m.group(1))
    if t not in tids:
        tids.append(t)
    owners.setdefault(int(m.group(3), 16) >> 6, set()).add(t)
assert first == '# lociprof-trace 1', 'header %r' % first
assert n == d['accesses'], '%d accesses, --expect says %d' % (n, d['accesses'])
assert tids == [0, 1], 'tids in order of appearance %r' % tids
shared = [k for k, v in owners.items() if len(v) > 1]
assert len(shared) == (100 + 7) // 8, '%d lines used by both threads, expected the 13 of shared_array' % len(shared)
PY
); then ok "--trace: lociprof-trace(5) lines, one per access, private lines never shared"
else fail "--trace format" "$(echo "$out" | tail -n 1)"; fi
"$RB" $opts --trace - | head -n 3 | grep -q '^# lociprof-trace 1' && ok "--trace - writes to stdout" ||
	fail "--trace -" "no header on stdout"

# --- the compiled loops: loads keep their address register ------------------
if command -v objdump >/dev/null; then
	objdump -d --no-show-raw-insn --disassemble=rib_phase "$RB" >"$TMP/dis" 2>/dev/null
	nmem=$(grep -cE 'mov +\(%r[a-z0-9]+\),%r' "$TMP/dis")
	clob=$(grep -E 'mov +\((%r[a-z0-9]+)\),\1$' "$TMP/dis" | wc -l)
	if [ "$nmem" -ge 1 ] && [ "$clob" = 0 ]; then
		ok "rib_phase: $nmem loads, none overwrites its address register"
	else
		fail "rib_phase loads" "$nmem loads, $clob of them 'mov (%rX),%rX'"
	fi
else
	skip "rib_phase loads" "no objdump"
fi

# --- real runs ---------------------------------------------------------------
opts=$(awk '$1 == "ci-short-decreasing-case2" { $1 = ""; print }' "$CONF")
"$RB" $opts --expect >"$TMP/r.json"
"$RB" $opts -v --pin >"$TMP/out" 2>"$TMP/err"; rc=$?
if [ $rc = 0 ] && [ ! -s "$TMP/out" ] && python3 - "$TMP/err" "$TMP/r.json" <<'PY'
import json, sys
v, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert v['benchmark'] == 'ribench' and len(v['counts']) == 2
for c, t in zip(v['counts'], e['per_thread']):
    assert c['loads'] + c['stores'] == c['accesses'] == t['accesses'], (c, t['accesses'])
PY
then ok "run -v --pin: silent, per-thread access counts = --expect's"
else fail "run -v" "exit $rc, stderr $(head -c 200 "$TMP/err")"; fi
start=$(date +%s.%N)
"$RB" --threads 2 >"$TMP/out" 2>"$TMP/err"; rc=$?
secs=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
if [ $rc = 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
	ok "default run (--threads 2) exits 0 silently (${secs} s)"
else
	fail "default run" "exit $rc"
fi
