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
