#!/usr/bin/env bash
# Waits until no process holds apt's and dpkg's locks, saying on stderr for what it waits; exit status 1
# when one is still held after APT_LOCK_TIMEOUT seconds (default 600). scripts/install-deps.sh runs it
# before each apt-get, since another apt (a second make, unattended upgrades) may be running: apt-get
# waits for dpkg's lock with DPkg::Lock::Timeout, but silently, and apt-get update not at all for the
# package lists' lock.
# Usage: scripts/wait-apt-locks.sh [LOCK_FILE...]   (default: the locks apt-get update and install take)
set -euo pipefail

timeout=${APT_LOCK_TIMEOUT:-600}
locks=("$@")
[[ ${#locks[@]} -gt 0 ]] || locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)

# The process holding a POSIX lock (as apt and dpkg take them) on FILE, from /proc/locks; nothing if none.
lock_holder() {
    local inode
    inode=$(stat -L -c %i "$1" 2>/dev/null) || return 0
    # "1: POSIX  ADVISORY  WRITE PID MAJOR:MINOR:INODE START END"; a waiter's line has "->" second.
    awk -v inode="$inode" '$2 == "POSIX" { n = split($6, id, ":"); if (id[n] == inode) { print $5; exit } }' /proc/locks
}

waited=0
said=""
while true; do
    pid=""
    for lock in "${locks[@]}"; do
        pid=$(lock_holder "$lock")
        [[ -n $pid ]] && break
    done
    [[ -z $pid ]] && exit 0
    if [[ -z $said ]]; then
        echo "waiting for $lock, held by process $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo gone)), at most ${timeout}s" >&2
        said=yes
    fi
    if ((waited >= timeout)); then
        echo "error: $lock is still held by process $pid after ${timeout}s" >&2
        exit 1
    fi
    sleep 1
    waited=$((waited + 1))
done
