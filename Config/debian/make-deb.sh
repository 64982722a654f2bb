#!/usr/bin/env bash
# Builds docent_<version>_<arch>.deb from a release build of this clone and prints its path.
#
#   Config/debian/make-deb.sh [OUTPUT-DIRECTORY]      (default .build-deb)
#
# Needs dpkg-dev (dpkg-shlibdeps) beside the build's packages; lintian to check the result.
# The package: both executables side by side in /usr/lib/docent (docent on the PATH), the
# man page, bash/zsh/fish completions, the systemd user unit, the D-Bus service with GNOME
# Shell's and KRunner's entries, Config/'s defaults as examples, the copyright file in
# Debian's format. Depends: from the executables' shared libraries (dpkg-shlibdeps).
set -euo pipefail
cd "$(dirname "$0")/../.."
umask 022
out=$(mkdir -p "${1:-.build-deb}" && cd "${1:-.build-deb}" && pwd)
scratch=${DOCENT_DEB_SCRATCH:-$out/build}
# As docs/Install.md builds it, with symbols bound at load time (hardening: a read-only GOT).
build=(swift build -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker now --scratch-path "$scratch")
"${build[@]}" --product docent-engine >&2
"${build[@]}" --product docent >&2
bin=$("${build[@]}" --show-bin-path)

# The version: the release docent says, and for a build that is not the release's tag the
# commit's date and name after it (0.2.0+git20261127.0d68e86), so each build sorts above the last.
release=$("$bin/docent" --version | cut -d' ' -f1)
tag=$(git describe --exact-match --tags 2>/dev/null || true)
if [ "$tag" = "$release" ] || [ "$tag" = "v$release" ]; then
    version=$release
else
    version="$release+git$(date -u -d "@$(git log -1 --format=%ct)" +%Y%m%d).$(git rev-parse --short=7 HEAD)"
fi
arch=$(dpkg --print-architecture)
maintainer=${DEBFULLNAME:-Docent maintainers}" <"${DEBEMAIL:-docent@example.org}">"

root=$out/root
rm -rf "$root" && mkdir -p "$root/DEBIAN"
install -D -m 755 "$bin/docent" "$bin/docent-engine" -t "$root/usr/lib/docent/"
strip --strip-unneeded --remove-section=.comment "$root/usr/lib/docent/docent" "$root/usr/lib/docent/docent-engine"
mkdir -p "$root/usr/bin" && ln -s ../lib/docent/docent "$root/usr/bin/docent"
install -d "$root/usr/share/man/man1" && gzip -9n < docs/docent.1 > "$root/usr/share/man/man1/docent.1.gz"
# Completions, as the built executable prints them.
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# (bash-completion sources its scripts: no #! line.)
"$bin/docent" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/docent"
"$bin/docent" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_docent"
"$bin/docent" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/docent.fish"
# The user unit, run from /usr/bin (`systemctl --user enable --now docent` turns it on).
install -d "$root/usr/lib/systemd/user"
sed -e '/^#   /d' -e 's|%h/.local/bin/docent|/usr/bin/docent|' Config/systemd/docent.service \
    > "$root/usr/lib/systemd/user/docent.service"
# Desktop search in GNOME Shell and KRunner without `docent desktop install`.
desktop() { sed -e '/^# /d' -e 's|@DOCENT@|/usr/bin/docent|' "Config/desktop/$1" > "$2"; chmod 644 "$2"; }
install -d "$root/usr/share/dbus-1/services" "$root/usr/share/gnome-shell/search-providers" \
    "$root/usr/share/krunner/dbusplugins" "$root/usr/share/applications"
desktop search-provider.service "$root/usr/share/dbus-1/services/org.docent.Docent.SearchProvider.service"
desktop search-provider.ini "$root/usr/share/gnome-shell/search-providers/docent.search-provider.ini"
desktop krunner.desktop "$root/usr/share/krunner/dbusplugins/docent.desktop"
desktop docent.desktop "$root/usr/share/applications/docent.desktop"
# Documentation: the copyright file, the changelog, the defaults as examples.
doc=$root/usr/share/doc/docent
install -d "$doc/examples"
install -m 644 Config/docent.yaml "$doc/examples/config.yaml"
install -m 644 Config/content-types.yaml "$doc/examples/content-types.yaml"
bash Config/debian/copyright.sh "$scratch" > "$doc/copyright"
{
    printf 'docent (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built from commit %s.\n' "$(git rev-parse --short=12 HEAD)"
    printf '  * What changed in each release: CHANGELOG.md in the source.\n\n'
    printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$(git log -1 --format=%ct)")"
} | gzip -9n > "$doc/changelog.gz"

# Yams, the Swift package that reads Docent's YAML, compiles its own libyaml into the
# executables (Swift packages link C code they carry; there is no way to have it use
# Debian's libyaml): said to lintian, with the reason, rather than hidden.
install -d "$root/usr/share/lintian/overrides"
cat > "$root/usr/share/lintian/overrides/docent" <<'OVERRIDES'
# Yams (the Swift YAML package) builds its own copy of libyaml into the executables; a Swift
# package cannot be pointed at Debian's libyaml.
docent: embedded-library libyaml [usr/lib/docent/docent]
docent: embedded-library libyaml [usr/lib/docent/docent-engine]
OVERRIDES
chmod 644 "$root/usr/share/lintian/overrides/docent"

# Depends: what the executables link, as dpkg-shlibdeps finds it (it reads a debian/control).
shlibs=$out/shlibs
rm -rf "$shlibs" && mkdir -p "$shlibs/debian"
printf 'Source: docent\n\nPackage: docent\nArchitecture: any\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O -e"$root/usr/lib/docent/docent" -e"$root/usr/lib/docent/docent-engine" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
# shared-mime-info's database names the types; Docent reads it at run time.
depends="$depends, shared-mime-info"

(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/md5sums"
cat > "$root/DEBIAN/control" <<CONTROL
Package: docent
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Suggests: tesseract-ocr-eng, chromium
Section: utils
Priority: optional
Description: filesystem-watching document indexer and viewer
 Docent classifies the files under your directories into content types (the
 shared-mime-info database and libmagic), reads them read-only with document
 types in the manner of SwiftUI's document model, and keeps a full-text index
 (SQLite FTS5) current as files change on disk (inotify).
 .
 docent search finds documents with phrases, prefixes and type, name, date
 and size filters, ranked with snippets; docent preview shows one as text,
 and docent serve in a browser; desktop search in GNOME Shell and KRunner.
CONTROL

deb=$out/docent_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
echo "$deb"
