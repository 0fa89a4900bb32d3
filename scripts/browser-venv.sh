#!/usr/bin/env bash
# The browser tools the map page's tests and benchmark share: Debian's Chromium and chromedriver
# (scripts/install-deps.sh browser) and the pinned Python packages of Tests/browser/requirements.txt
# in .build/browser-venv, installed when missing or when the requirements changed.
# Prints the venv's Python on stdout. Works as root on a fresh Debian 12 with no standard input.
# Usage: python=$(scripts/browser-venv.sh)
set -euo pipefail

cd "$(dirname "$0")/.."

scripts/install-deps.sh browser >&2

venv=.build/browser-venv
requirements=Tests/browser/requirements.txt
stamp="$venv/requirements.sha256"
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
if [[ ! -x $venv/bin/python ]] || ! sha256sum --check --status "$stamp" 2>/dev/null; then
    echo "browser-venv: installing $requirements into $venv" >&2
    rm -rf "$venv"
    mkdir -p .build
    "$python" -m venv "$venv"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --quiet --no-input -r "$requirements" >&2
    sha256sum "$requirements" >"$stamp"
fi
echo "$PWD/$venv/bin/python"
