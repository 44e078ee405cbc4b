# Sourced by the end-to-end tests. Each check prints one line:
#   ok - NAME | FAIL - NAME: why | skip - NAME: why
# and test/run.sh counts them.
set -u
: "${LOCIPROF:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/lociprof}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok()   { echo "ok - $1"; }
fail() { echo "FAIL - $1: $2"; }
skip() { echo "skip - $1: $2"; }

# check NAME CMD...: ok if CMD exits 0
check() { local n=$1; shift; if "$@"; then ok "$n"; else fail "$n" "'$*' failed"; fi; }

# wp_fires: true when this machine's watchpoints trap (some hypervisors let
# them open and never deliver the exception); WP_REASON says why not
wp_fires() {
	if [ -z "${WP_FIRES:-}" ]; then
		local j
		j=$("$LOCIPROF" list --json 2>/dev/null)
		WP_FIRES=$(python3 -c "import json,sys; d=json.load(sys.stdin)['debug_registers']; print('yes' if d.get('fire') else 'no'); print(d.get('fire_reason') or d.get('reason') or '')" <<<"$j" 2>/dev/null | head -1)
		WP_REASON=$(python3 -c "import json,sys; d=json.load(sys.stdin)['debug_registers']; print(d.get('fire_reason') or d.get('reason') or 'lociprof list --json failed')" <<<"$j" 2>/dev/null)
		[ -n "$WP_FIRES" ] || WP_FIRES=no
	fi
	[ "$WP_FIRES" = yes ]
}

# pool_runs FILE...: the first comdetect JSON with the matrices and the
# detections of all summed, on stdout (runs pooled before lociprof compare)
pool_runs() {
	python3 - "$@" <<'PY'
import json, sys
ds = [json.load(open(f)) for f in sys.argv[1:]]
out = ds[0]
for k in out['matrix']:
    out['matrix'][k] = [[sum(d['matrix'][k][i][j] for d in ds) for j in range(len(row))]
                        for i, row in enumerate(out['matrix'][k])]
out['totals']['detections'] = sum(d['totals']['detections'] for d in ds)
json.dump(out, sys.stdout)
PY
}
