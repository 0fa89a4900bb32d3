#!/usr/bin/env bash
# The map page's browser tests: headless Chromium (Debian's) against the real weatherd and owm-replay.
#
# Installs what is missing (scripts/browser-venv.sh): the Debian packages and the pinned Python
# packages of Tests/browser/requirements.txt in .build/browser-venv; builds the debug binaries;
# runs pytest. Works as root on a fresh Debian 12 with no standard input.
# Exits non-zero when a test fails, none ran, or (with CI set) any was skipped.
# Usage: scripts/browser-test.sh [PYTEST ARGS...]     e.g. scripts/browser-test.sh -k reconnect -x
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

python=$(scripts/browser-venv.sh)

if [[ -z ${BROWSER_TEST_NO_BUILD:-} ]]; then
    ${SWIFT:-swift} build --product weatherd
    ${SWIFT:-swift} build --product owm-replay
fi

# Selenium Manager must never run: the tests pass the browser and the driver by path, and offline
# mode keeps it from downloading should anything ever ask it.
export SE_OFFLINE=true
exec "$python" -m pytest Tests/browser -p no:cacheprovider -rfEs "$@"
