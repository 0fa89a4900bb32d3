#!/usr/bin/env bash
# The map page's browser tests: headless Chromium (Debian's) against the real weatherd and owm-replay.
#
# Installs what is missing: the Debian packages (scripts/install-deps.sh browser) and the pinned
# Python packages of Tests/browser/requirements.txt in a virtual environment under .build/; builds
# the debug binaries; runs pytest. Works as root on a fresh Debian 12 with no standard input.
# Exits non-zero when a test fails, none ran, or (with CI set) any was skipped.
# Usage: scripts/browser-test.sh [PYTEST ARGS...]     e.g. scripts/browser-test.sh -k reconnect -x
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

scripts/install-deps.sh browser

venv=.build/browser-venv
requirements=Tests/browser/requirements.txt
stamp="$venv/requirements.sha256"
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
if [[ ! -x $venv/bin/python ]] || ! sha256sum --check --status "$stamp" 2>/dev/null; then
    echo "browser-test: installing $requirements into $venv" >&2
    rm -rf "$venv"
    mkdir -p .build
    "$python" -m venv "$venv"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --quiet --no-input -r "$requirements"
    sha256sum "$requirements" >"$stamp"
fi

if [[ -z ${BROWSER_TEST_NO_BUILD:-} ]]; then
    ${SWIFT:-swift} build --product weatherd
    ${SWIFT:-swift} build --product owm-replay
fi

# Selenium Manager must never run: the tests pass the browser and the driver by path, and offline
# mode keeps it from downloading should anything ever ask it.
export SE_OFFLINE=true
exec "$venv/bin/python" -m pytest Tests/browser -p no:cacheprovider -rfEs "$@"
