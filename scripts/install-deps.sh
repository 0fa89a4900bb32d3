#!/usr/bin/env bash
# Installs the Debian packages weatherd needs to build, run and test, if any is missing.
# Usage: scripts/install-deps.sh [build|test|bench|order|browser|deb|systest]
set -euo pipefail

packages=(libcurl4-gnutls-dev libgps-dev libmosquitto-dev libsodium-dev libsystemd-dev pkg-config gpsd gpsd-clients libjs-leaflet)
case "${1:-build}" in
    # mosquitto: the MQTT tests' broker; prometheus (and promtool): scrapes and lints /metrics in the tests;
    # nodejs: the map page's module tests (node --test); nginx: scripts/fleet-proxy.sh, the fleet's proxy;
    # the real status bars weatherctl bar is tested in: waybar under a headless sway (grim takes its
    # screenshots), i3bar under Xvfb with i3 (imagemagick's import takes them, xdotool clicks), read by
    # tesseract in DejaVu Sans; curl: the OwnTracks app in HTTP mode; GeoClue on a private D-Bus bus
    # (dbus-daemon, unshare for its configuration)
    test) packages+=(socat curl gdal-bin mosquitto mosquitto-clients prometheus nodejs nginx sway waybar grim i3-wm xvfb imagemagick xdotool tesseract-ocr fonts-dejavu-core geoclue-2.0 dbus-daemon util-linux) ;;
    # scripts/bench-daemon.py: socat is the floor of weatherctl; cc builds the C floor of the socket;
    # scripts/bench-fleet.py: nginx (scripts/fleet-proxy.sh); scripts/bench-owntracks.py: mosquitto.
    bench) packages+=(socat gcc nginx mosquitto) ;;
    order) packages+=(valgrind binutils) ;;  # scripts/order-files.py: callgrind, strip
    # scripts/browser-test.sh: Chromium and its driver, Leaflet for the map page, a venv for Selenium,
    # and a colour emoji font so screenshots show the weather symbols.
    browser) packages+=(chromium chromium-driver libjs-leaflet python3 python3-venv fonts-noto-color-emoji) ;;
    deb) packages+=(dpkg-dev binutils lintian) ;;  # make deb: dpkg-deb, dpkg-shlibdeps, strip, lintian
    systest) packages+=(systemd-container debootstrap debian-archive-keyring util-linux) ;;  # make systest: systemd-nspawn, nsenter
esac

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}" >&2
if [[ $(id -u) -eq 0 ]]; then
    sudo=()
elif command -v sudo >/dev/null; then
    sudo=(sudo)
else
    echo "error: missing Debian packages ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# Another apt or dpkg may hold the package system's locks: wait for them (saying so), and let apt wait
# too (DPkg::Lock::Timeout) for one taken in between. APT_LOCK_TIMEOUT: at most this many seconds (600).
here=$(dirname "${BASH_SOURCE[0]}")
timeout=${APT_LOCK_TIMEOUT:-600}
apt_get=("${sudo[@]}" apt-get -o DPkg::Lock::Timeout="$timeout")
"$here/wait-apt-locks.sh"
"${apt_get[@]}" update -qq
"$here/wait-apt-locks.sh"
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
