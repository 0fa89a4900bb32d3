#!/usr/bin/env bash
# `make deb`: packaging/deb/build.sh BIN_DIR OUT_DIR
# Packs the release binaries in BIN_DIR (built with the Swift runtime linked statically) into
# OUT_DIR/weatherd_VERSION_ARCH.deb with dpkg-deb, then checks it with lintian (errors fail).
# No network, no debhelper: the package's files are laid out here, its Depends come from
# dpkg-shlibdeps, and file dates come from the changelog's, so the same binaries give the same .deb.
set -euo pipefail
bin=$(realpath "$1") out=$2
cd "$(dirname "$0")/../.."
pkg=packaging/deb

upstream=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/WeatherRPC/WeatherdVersion.swift)
version=$(dpkg-parsechangelog -l "$pkg/changelog" -S Version)
if [[ ${version%-*} != "$upstream" ]]; then
    echo "error: packaging/deb/changelog is at $version but WeatherdVersion.current is $upstream;" \
        "add an entry for $upstream-1 at the top of packaging/deb/changelog" >&2
    exit 1
fi
arch=$(dpkg --print-architecture)
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$pkg/changelog" -S Timestamp)
export SOURCE_DATE_EPOCH
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)

umask 022
mkdir -p "$out"
out=$(realpath "$out")
root=$out/root
rm -rf "$root" "$out"/weatherd_*.deb "$out/shlibdeps"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/weatherd" \
    "$root/usr/share/man/man1" "$root/usr/share/man/man5" "$root/usr/share/man/man8" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/weatherd"

# Binaries, stripped as dh_strip does.
for tool in weatherd weatherctl; do
    install -m 0755 "$bin/$tool" "$root/usr/bin/$tool"
    strip --remove-section=.comment --remove-section=.note "$root/usr/bin/$tool"
    if ldd "$root/usr/bin/$tool" | grep -q 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime'; then
        echo "error: $tool links the Swift runtime dynamically (build it with --static-swift-stdlib)" >&2
        ldd "$root/usr/bin/$tool" >&2
        exit 1
    fi
done

# Units, naming the packaged binary.
for unit in weatherd.service weatherd.socket; do
    sed -e 's|/usr/local/bin/|/usr/bin/|g' "systemd/$unit" >"$root/lib/systemd/system/$unit"
    chmod 0644 "$root/lib/systemd/system/$unit"
done

# The example configuration, a conffile.
install -m 0644 config/weatherd.toml "$root/etc/weatherd/weatherd.toml"
echo /etc/weatherd/weatherd.toml >"$root/DEBIAN/conffiles"

# The map page, when this tree has it; Leaflet comes from libjs-leaflet.
if [[ -d web ]]; then
    install -d "$root/usr/share/weatherd/web"
    find web -maxdepth 1 -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.geojson' -o -name '*.svg' -o -name '*.png' \) \
        -exec install -m 0644 {} "$root/usr/share/weatherd/web/" \;
fi

# Manual pages: weatherd(8) and weatherctl(1) from the argument parser, weatherd.toml(5) from
# docs/protocol.md.
man=$out/man
rm -rf "$man" && mkdir -p "$man"
"$bin/generate-manual" "$root/usr/bin/weatherd" --section 8 --date "$date" --output-directory "$man"
"$bin/generate-manual" "$root/usr/bin/weatherctl" --section 1 --date "$date" --output-directory "$man"
python3 "$pkg/config-manpage.py" docs/protocol.md "$upstream" "$date" >"$man/weatherd.toml.5"
for page in weatherd.8 weatherctl.1 weatherd.toml.5; do
    gzip -9n <"$man/$page" >"$root/usr/share/man/man${page##*.}/$page.gz"
done

# Shell completions (bash-completion sources its files: no #! line).
for tool in weatherd weatherctl; do
    "$root/usr/bin/$tool" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/$tool"
    "$root/usr/bin/$tool" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$tool"
    "$root/usr/bin/$tool" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$tool.fish"
done

# Documentation.
install -m 0644 "$pkg/copyright" "$root/usr/share/doc/weatherd/copyright"
gzip -9n <"$pkg/changelog" >"$root/usr/share/doc/weatherd/changelog.Debian.gz"
gzip -9n <docs/protocol.md >"$root/usr/share/doc/weatherd/protocol.md.gz"
# The status bars' page, its screenshots, and configurations to copy (waybar, i3/sway, polybar).
gzip -9n <docs/status-bars.md >"$root/usr/share/doc/weatherd/status-bars.md.gz"
install -m 0644 docs/bar-*.png "$root/usr/share/doc/weatherd/"
install -d "$root/usr/share/doc/weatherd/examples"
install -m 0644 docs/examples/* "$root/usr/share/doc/weatherd/examples/"
# A fleet's caching proxy and budget on the system's nginx (packaging/nginx/, docs/fleet.md).
install -d "$root/usr/share/doc/weatherd/examples/nginx"
install -m 0644 packaging/nginx/README.md packaging/nginx/weatherd-fleet.conf "$root/usr/share/doc/weatherd/examples/nginx/"

# What lintian says that does not apply, each with its reason (packaging/deb/lintian-overrides).
install -d "$root/usr/share/lintian/overrides"
install -m 0644 "$pkg/lintian-overrides" "$root/usr/share/lintian/overrides/weatherd"

# Maintainer scripts.
install -m 0755 "$pkg/postinst" "$pkg/prerm" "$pkg/postrm" "$root/DEBIAN/"

# Depends: the shared libraries the binaries use, as dpkg-shlibdeps finds them; libmosquitto and
# libsodium, which weatherd loads on first use (dlopen: Sources/COnDemand), so no DT_NEEDED entry
# names them; and Leaflet for the map page.
mkdir -p "$out/shlibdeps/debian"
printf 'Source: weatherd\n\nPackage: weatherd\nArchitecture: any\n' >"$out/shlibdeps/debian/control"
shlibs=$(cd "$out/shlibdeps" && dpkg-shlibdeps -O -e"$root/usr/bin/weatherd" -e"$root/usr/bin/weatherctl")
depends="${shlibs#shlibs:Depends=}, libmosquitto1, libsodium23, libjs-leaflet"
rm -rf "$out/shlibdeps"

find "$root" -path "$root/DEBIAN" -prune -o -type f -print | sort >"$out/files"
size=$(xargs -a "$out/files" stat -c %s | awk '{ k += int(($1 + 1023) / 1024) } END { print k }')
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@INSTALLED_SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
    "$pkg/control.in" >"$root/DEBIAN/control"
(cd "$root" && find usr lib -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
rm -f "$out/files"

find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
deb=$out/weatherd_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "built $deb"
dpkg-deb --field "$deb" Version Depends Installed-Size

if command -v lintian >/dev/null; then
    lintian --fail-on error --info "$deb"
    echo "lintian: no errors"
else
    echo "warning: lintian is not installed; the package was not checked" >&2
fi
