# Sourced by each example's check.sh: builds the example (its directory is the caller's),
# and gives `app` (its binary), `work` (a temporary directory, removed at exit) and `fail`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[1]}")"
swift build
app=$PWD/.build/debug/$(basename "$PWD")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "$(basename "$PWD")/check.sh: $*" >&2; exit 1; }
