#!/usr/bin/env bash
# `make run`: starts weatherd in the foreground with its socket under the repository.
#
# With OWM_API_KEY set it asks api.openweathermap.org, then api.open-meteo.com; otherwise it starts
# owm-replay, the offline stand-in for both that answers from the recorded responses in demo/owm/
# with their times moved to now (--shift-times), and points weatherd at it. The stand-in's
# OpenWeatherMap is set to fail for Enschede (after a second, once the other cities have their
# weather), so Open-Meteo answers that one: the demo shows both providers and the failover.
#
# However it is stopped (Ctrl-C, SIGTERM or SIGHUP to its process group, the terminal closed, its
# parent gone) it ends weatherd, owm-replay, gpsfake and gpsfake's gpsd, and removes their sockets. A gpsfake that a
# demo killed with SIGKILL left behind is ended at the next start rather than used.
#
# The tests (Tests/IntegrationTests/DemoTests.swift) run it with WEATHERD_BIN_DIR (the binaries;
# default `swift build --show-bin-path`), WEATHERD_DEMO_DIR (default run), WEATHERD_DEMO_GPSD_PORT
# (default 2947) and WEATHERD_DEMO_WEB_PORT (default 8080, or the next free port up to 8099).
set -euo pipefail

cd "$(dirname "$0")/.."
bin=${WEATHERD_BIN_DIR:-$(realpath --relative-to=. "$(swift build --show-bin-path)")}
rundir=${WEATHERD_DEMO_DIR:-run}
gpsd_port=${WEATHERD_DEMO_GPSD_PORT:-2947}
log=demo/nmea/bu353s4.log
mkdir -p "$rundir/state"
config="$rundir/weatherd.toml"
pids="$rundir/demo.pids"  # what this demo started, for the next start to end if this one was killed
replay_pid=
weatherd_pid=
helper_pid=
watcher_pid=
gpsfake_pgid=
gpsfake_tmp=

# The processes of a group, one pid a line (none once the group is gone).
group_members() { ps -e -o pid=,pgid= | awk -v g="$1" '$2 == g { print $1 }'; }

# Ends gpsfake's process group (gpsfake can hang on SIGTERM: SIGKILL) and waits until its gpsd is
# gone too; then removes gpsfake's control socket (in its own TMPDIR).
end_gpsfake() {
    local pgid=$1 tmp=$2
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$pgid" 2>/dev/null || true  # gpsfake is this shell's child (setsid execs it)
    for _ in $(seq 50); do [[ -z $(group_members "$pgid") ]] && break; sleep 0.1; done
    if [[ -n $tmp ]]; then rm -rf "$tmp"; fi
}

# Ends `pid` with SIGTERM (SIGKILL after 5 s) and reaps it.
end_child() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid") != Z* ]] || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

stopping=
cleanup() {
    [[ -z $stopping ]] || return 0
    stopping=1
    # Further signals (a second Ctrl-C, the hang-up that follows a SIGHUP when the terminal's session
    # ends) must not cut the clean-up short.
    trap '' INT TERM HUP
    # Not waited for (its zombie goes with this shell): it may have ended by itself, reaped by the wait
    # the signal interrupted, and bash's wait would then block until another child ends.
    if [[ -n $watcher_pid ]]; then kill -KILL -- "-$watcher_pid" 2>/dev/null || true; fi
    if [[ -n $helper_pid ]]; then kill -KILL "$helper_pid" 2>/dev/null || true; fi
    if [[ -n $weatherd_pid ]]; then end_child "$weatherd_pid"; fi
    if [[ -n $replay_pid ]]; then end_child "$replay_pid"; fi
    if [[ -n $gpsfake_pgid ]]; then end_gpsfake "$gpsfake_pgid" "$gpsfake_tmp"; fi
    rm -f "$rundir/weatherd.sock" "$pids"
}
trap cleanup EXIT
# A signal ends the demo (weatherd, in the background of this shell, gets SIGTERM from cleanup: a
# SIGHUP alone would only make it reload) and exits with the signal's status.
for signal in INT TERM HUP; do
    # shellcheck disable=SC2064
    trap "cleanup; exit $((128 + $(kill -l $signal)))" "$signal"
done

# On a terminal: whoever started it (make) or the session's leader (the terminal's shell) gone, or
# the terminal hung up, without a signal passed on (when a terminal closes, the kernel signals the
# session's leader only, and make waits for its children), it ends too. (Off a terminal, as under
# nohup or in the tests, it runs until signalled.) The watcher is a process group of its own
# (setsid), ended as a whole; it ends itself when this shell is gone.
if [[ -t 2 ]]; then
    # shellcheck disable=SC2016
    watcher='while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null && kill -0 "$3" 2>/dev/null && [ -t 2 ]; do
        sleep 1
    done
    kill -TERM "$3" 2>/dev/null'
    session_leader=$(ps -o sid= -p $$ | tr -d ' ')
    if [[ $session_leader == "$$" || $session_leader -le 1 ]]; then session_leader=$PPID; fi
    setsid bash -c "$watcher" watcher "$PPID" "$session_leader" "$$" </dev/null &
    watcher_pid=$!
fi

# What a previous demo left (killed with SIGKILL, its traps never ran): a gpsfake recorded in
# $pids, and any gpsfake replaying this log on this demo's gpsd port whose demo (its parent) is gone.
# A gpsfake on another port is not in this demo's way: it may be another demo's, even a running one's
# a moment after its start.
if [[ -f $pids ]]; then
    while read -r what pid tmp; do
        [[ $(ps -o args= -p "$pid" 2>/dev/null) == *"$what"* ]] || continue
        echo "weatherd: ending the $what (pid $pid) that an earlier demo left behind" >&2
        if [[ $what == gpsfake ]]; then end_gpsfake "$pid" "$tmp"; else kill -KILL "$pid" 2>/dev/null || true; fi
    done <"$pids"
    rm -f "$pids"
fi
while read -r pid ppid args; do
    if [[ $args == *gpsfake*" -P $gpsd_port "*"$log"* && $(ps -o args= -p "$ppid" 2>/dev/null) != *run-demo.sh* ]]; then
        echo "weatherd: ending a gpsfake (pid $pid) that an earlier demo left behind" >&2
        # It may be gone by now: then there is nothing to read (and nothing to end).
        tmp=$( (tr '\0' '\n' <"/proc/$pid/environ") 2>/dev/null | sed -n 's/^TMPDIR=//p') || tmp=
        [[ $tmp == */weatherd-demo.* ]] || tmp=
        end_gpsfake "$pid" "$tmp"
        rm -f "${TMPDIR:-/tmp}/gpsfake-$pid.sock"
    fi
done < <(ps -e -o pid=,ppid=,args=)
: >"$pids"

if [[ -n "${OWM_API_KEY:-}" ]]; then
    base_url="https://api.openweathermap.org"
    key_line='# the key comes from $OWM_API_KEY'
    open_meteo='# Open-Meteo at its own addresses (the defaults)'
    air_quality='# the air quality API at its own address (the default)'
    alerts='# the NWS at its own address (the default); set contact to your e-mail address or URL'
    echo "weatherd: using api.openweathermap.org with the key in \$OWM_API_KEY, then api.open-meteo.com" >&2
else
    "$bin/owm-replay" --port 0 --data demo/owm --shift-times --mark-sample \
        --delay openweathermap:Enschede=1000 --fail openweathermap:Enschede=503 \
        >"$rundir/owm-replay.out" 2>"$rundir/owm-replay.log" &
    replay_pid=$!
    echo "owm-replay $replay_pid" >>"$pids"
    for _ in $(seq 100); do
        grep -q "listening on" "$rundir/owm-replay.out" 2>/dev/null && break
        kill -0 "$replay_pid" 2>/dev/null || { cat "$rundir/owm-replay.log" >&2; exit 1; }
        sleep 0.1
    done
    base_url=$(sed -n 's/.*listening on //p' "$rundir/owm-replay.out")
    [[ -n "$base_url" ]] || { echo "owm-replay did not start" >&2; exit 1; }
    key_line='api_key = "offline-demo"'
    open_meteo="base_url = \"$base_url\"
geocoding_url = \"$base_url\""
    air_quality="base_url = \"$base_url\""
    alerts="nws_url = \"$base_url\"
contact = \"weatherd offline demo\""
    echo "weatherd: no OWM_API_KEY given: offline demo, OpenWeatherMap and Open-Meteo answered by owm-replay at $base_url from demo/owm/" >&2
    echo "          (sample data: recorded answers with their times moved to now, made-up ones for other places; its" >&2
    echo "          OpenWeatherMap fails for Enschede, so Open-Meteo answers that one; set OWM_API_KEY to use the real APIs)" >&2
fi

# Locations: a real gpsd if one answers on 127.0.0.1:$gpsd_port, else gpsfake replaying a receiver
# log, a sentence every 0.15 s: a fix (3 to 6 sentences) at least every second.
if (exec 3<>"/dev/tcp/127.0.0.1/$gpsd_port") 2>/dev/null; then
    echo "weatherd: using the gpsd that answers on 127.0.0.1:$gpsd_port" >&2
elif command -v gpsfake >/dev/null && command -v gpsd >/dev/null; then
    # gpsfake adds its pty through gpsd's control socket as soon as the socket file exists, which can
    # be before gpsd listens on it: then the device is never added and gpsd sends no fix. Start anew
    # when gpsd lists no device within 10 s (gpsfake is Python: python3 is there). gpsfake puts that
    # socket in $TMPDIR: a directory of its own, removed when the demo stops.
    : >"$rundir/gpsfake.log"
    for _ in 1 2 3; do
        gpsfake_tmp=$(mktemp -d "${TMPDIR:-/tmp}/weatherd-demo.XXXXXX")
        TMPDIR=$gpsfake_tmp setsid gpsfake -q -n -c 0.15 -P "$gpsd_port" "$log" >>"$rundir/gpsfake.log" 2>&1 &
        gpsfake_pgid=$!
        echo "gpsfake $gpsfake_pgid $gpsfake_tmp" >>"$pids"
        python3 scripts/gpsd_devices.py "$gpsd_port" 10 &
        helper_pid=$!
        if wait "$helper_pid"; then helper_pid= && break; fi
        helper_pid=
        echo "weatherd: gpsfake's gpsd got no device (gpsfake's control-socket race): starting it anew" >&2
        end_gpsfake "$gpsfake_pgid" "$gpsfake_tmp"
        gpsfake_pgid= gpsfake_tmp=
    done
    echo "weatherd: no gpsd on 127.0.0.1:$gpsd_port: gpsfake replays $log there (a fix near Hamilton, NZ)" >&2
else
    echo "weatherd: no gpsd and no gpsfake (apt-get install gpsd gpsd-clients): locate will answer no_fix" >&2
fi

# The map: 127.0.0.1:8080, or the next free port up to 8099 (0 = any, announced in the log).
web_port=${WEATHERD_DEMO_WEB_PORT:-}
if [[ -z $web_port ]]; then
    web_port=0
    for port in $(seq 8080 8099); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then web_port=$port; break; fi
    done
fi

cat >"$config" <<TOML
# Written by scripts/run-demo.sh for \`make run\`; see config/weatherd.toml for every key.
cities = ["Seoul,KR", "London,GB", "Enschede,NL", "Norman,US"]
refresh = "10m"

[weather]
providers = ["openweathermap", "open-meteo"]

[openweathermap]
base_url = "$base_url"
api_key_file = "$rundir/owm-api-key"
$key_line

[open-meteo]
$open_meteo

[air-quality]
$air_quality

[alerts]
$alerts

[socket]
path = "$rundir/weatherd.sock"

[gpsd]
enabled = true
host = "127.0.0.1"
port = $gpsd_port

[state]
directory = "$rundir/state"

[web]
listen = "127.0.0.1:$web_port"
TOML

if [[ $bin == /* ]]; then bin_hint=$bin; else bin_hint="\$PWD/$bin"; fi
cat >&2 <<HELP
weatherd: the map: http://127.0.0.1:$web_port/ (open it in a browser; the daemon's log says "map page at" once it is up)
weatherd: serving on $rundir/weatherd.sock (Ctrl-C stops it). In another terminal, from this directory:
    export WEATHERD_SOCKET=$rundir/weatherd.sock PATH="$bin_hint:\$PATH"
    weatherctl search London
    weatherctl locate
    weatherctl watch
HELP
# In the background, so that a signal's trap runs at once (a shell runs traps only between commands).
"$bin/weatherd" --config "$config" "$@" &
weatherd_pid=$!
echo "weatherd $weatherd_pid" >>"$pids"
status=0
wait "$weatherd_pid" || status=$?
weatherd_pid=
exit "$status"
