# Sourced by each example's check.sh: builds the example (its directory is the caller's),
# in Docent's own build directory, and gives `app` (its binary), `work` (a temporary directory, removed at exit) and `fail`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[1]}")"
# The examples build in Docent's own build directory: Docent's modules and the packages it
# depends on, compiled alike for the package and for an example that depends on it, are
# compiled once (after `swift test`, an example builds in 17 s where a directory of its own
# took 88 s; building the package again afterwards took 6 s).
scratch=$(cd ../.. && pwd)/.build
swift build --scratch-path "$scratch"
app=$scratch/debug/$(basename "$PWD")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "$(basename "$PWD")/check.sh: $*" >&2; exit 1; }
