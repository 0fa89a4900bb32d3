#!/usr/bin/env bash
# `make install`: scripts/install.sh BIN_DIR DESTDIR PREFIX SYSCONFDIR UNITDIR
set -euo pipefail
bin=$1 destdir=$2 prefix=$3 sysconfdir=$4 unitdir=$5
cd "$(dirname "$0")/.."

install -d "$destdir$prefix/bin" "$destdir$unitdir" "$destdir$sysconfdir/weatherd" \
    "$destdir$prefix/share/bash-completion/completions" "$destdir$prefix/share/zsh/site-functions" \
    "$destdir$prefix/share/fish/vendor_completions.d"
install -m 0755 "$bin/weatherd" "$bin/weatherctl" "$destdir$prefix/bin/"

# The map page ([web] listen); weatherd finds it in ../share/weatherd/web beside its bin/.
# Leaflet comes from Debian's libjs-leaflet (/usr/share/javascript/leaflet).
if [[ -d web ]]; then
    install -d "$destdir$prefix/share/weatherd/web"
    find web -maxdepth 1 -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.geojson' -o -name '*.svg' -o -name '*.png' \) \
        -exec install -m 0644 {} "$destdir$prefix/share/weatherd/web/" \;
fi

# The units name the installed binary and configuration.
for unit in weatherd.service weatherd.socket; do
    sed -e "s|/usr/local/bin/|$prefix/bin/|g" -e "s|/etc/weatherd/|$sysconfdir/weatherd/|g" \
        "systemd/$unit" >"$destdir$unitdir/$unit"
    chmod 0644 "$destdir$unitdir/$unit"
done

# The example configuration, unless one is there already (an operator's edits are kept).
if [[ -e "$destdir$sysconfdir/weatherd/weatherd.toml" ]]; then
    echo "kept $destdir$sysconfdir/weatherd/weatherd.toml (already present)"
else
    install -m 0644 config/weatherd.toml "$destdir$sysconfdir/weatherd/weatherd.toml"
fi

for tool in weatherd weatherctl; do
    "$bin/$tool" --generate-completion-script bash >"$destdir$prefix/share/bash-completion/completions/$tool"
    "$bin/$tool" --generate-completion-script zsh >"$destdir$prefix/share/zsh/site-functions/_$tool"
    "$bin/$tool" --generate-completion-script fish >"$destdir$prefix/share/fish/vendor_completions.d/$tool.fish"
done
echo "installed weatherd and weatherctl in $destdir$prefix/bin, units in $destdir$unitdir, the map page in $destdir$prefix/share/weatherd/web"
echo "the map page needs Leaflet: apt-get install libjs-leaflet"
