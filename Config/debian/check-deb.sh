#!/usr/bin/env bash
# The Debian package as a user meets it (run by .ci/run, as root): built from this clone,
# checked by lintian (no errors), installed with apt, used from /usr/bin (index, search,
# serve, the man page, the completions, the units), then removed with nothing left behind.
#   Config/debian/check-deb.sh [OUTPUT-DIRECTORY]
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "check-deb: $*" >&2; exit 1; }
deb=$(bash Config/debian/make-deb.sh "${1:-.build-deb}" | tail -1)
echo "check-deb: built $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | sed -n '/Depends:/p'

# lintian: no errors; its warnings are listed (docs/Install.md says why each is kept).
lintian --fail-on error --tag-display-limit 0 "$deb" || fail "lintian found errors"

[ "$(id -u)" = 0 ] || fail "installing needs root"
sudo=$(command -v sudo || true)
dpkg -s docent >/dev/null 2>&1 && fail "a docent package is installed already"
$sudo apt-get install -y "$(realpath "$deb")" >/dev/null
files=$(dpkg -L docent)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache XDG_CONFIG_HOME=$work/config
mkdir -p "$HOME" "$work/tree"
cd "$work"
[ "$(command -v docent)" = /usr/bin/docent ] || fail "docent is not /usr/bin/docent"
docent --version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{12}\)$' || fail "docent --version: $(docent --version)"
printf 'Notes from the lighthouse keeper.\n' > tree/notes.txt
printf '# Tide tables\n\nThe lighthouse at dawn.\n' > tree/tides.md
docent index tree >/dev/null
found=$(docent search lighthouse --files | sort)
[ "$found" = "$(printf '%s\n%s' "$work/tree/notes.txt" "$work/tree/tides.md")" ] || fail "docent search: $found"
docent search 'lighthouse type:markdown' | grep -q 'Tide tables' || fail "docent search by type"
docent preview tree/tides.md | grep -q 'lighthouse at dawn' || fail "docent preview"

# docent serve: the page, with the token it printed; nothing without it.
docent serve --port 0 > serve.out 2> serve.err &
serve=$!
for _ in $(seq 1 100); do grep -q 'http://127.0.0.1' serve.out 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1[^ ]*' serve.out | head -1)
[ -n "$url" ] || { cat serve.err >&2; fail "docent serve printed no address"; }
# The token becomes a cookie, then the page.
curl -fsSL -c cookies -b cookies "$url" | grep -q '<title>' || fail "docent serve: no page at $url"
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url%%\?*}")" != 200 ] || fail "docent serve answered without its token"
kill "$serve" && wait "$serve" || true

[ "$(man -w docent)" = /usr/share/man/man1/docent.1.gz ] || fail "man -w docent: $(man -w docent)"
man docent 2>/dev/null | grep -q 'docent search' || fail "man docent"
bash -c 'source /usr/share/bash-completion/completions/docent && complete -p docent' | grep -q docent || fail "bash completion"
grep -q 'docent' /usr/share/zsh/vendor-completions/_docent /usr/share/fish/vendor_completions.d/docent.fish || fail "zsh/fish completions"
grep -qx 'ExecStart=/usr/bin/docent watch' /usr/lib/systemd/user/docent.service || fail "the systemd unit"
grep -qx 'Exec=/usr/bin/docent desktop run --idle-exit 60' /usr/share/dbus-1/services/org.docent.Docent.SearchProvider.service \
    || fail "the D-Bus service"
[ -f /usr/share/gnome-shell/search-providers/docent.search-provider.ini ] && [ -f /usr/share/krunner/dbusplugins/docent.desktop ] \
    || fail "GNOME Shell's and KRunner's entries"

cd /
$sudo apt-get remove --purge -y docent >/dev/null
dpkg -s docent >/dev/null 2>&1 && fail "docent is still installed"
left=$(echo "$files" | while read -r path; do
    # The package's own files and directories; a directory other packages share may stay.
    if [ -L "$path" ] || [ -f "$path" ]; then echo "$path"; fi
    case "$path" in /usr/lib/docent|/usr/share/doc/docent|/usr/share/doc/docent/examples) [ -d "$path" ] && echo "$path";; esac
done)
[ -z "$left" ] || fail "left after removal: $left"
echo "check-deb: built, lintian-clean, installed, used and removed"
