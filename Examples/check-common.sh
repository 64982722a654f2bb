# Sourced by each example's check.sh: builds the example (its directory is the caller's),
# in the build directory the examples share, and gives `app` (its binary), `work` (a temporary directory, removed at exit) and `fail`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[1]}")"
# The three examples share one build directory: Docent's own modules, the same in each, are
# compiled once, not three times (a clean-clone CI run is that much shorter).
scratch=$(cd ../.. && pwd)/.build-examples
swift build --scratch-path "$scratch"
app=$scratch/debug/$(basename "$PWD")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "$(basename "$PWD")/check.sh: $*" >&2; exit 1; }
