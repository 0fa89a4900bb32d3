#!/usr/bin/env bash
# `make run`: starts weatherd in the foreground with its socket under the repository.
#
# With OWM_API_KEY set it asks api.openweathermap.org, then api.open-meteo.com; otherwise it starts
# owm-replay, the offline stand-in for both that answers from the recorded responses in demo/owm/,
# and points weatherd at it. The stand-in's OpenWeatherMap is set to fail for Enschede (after a
# second, once the other cities have their weather), so Open-Meteo answers that one: the demo shows
# both providers and the failover between them.
set -euo pipefail

cd "$(dirname "$0")/.."
bin=$(realpath --relative-to=. "$(swift build --show-bin-path)")
rundir=run
mkdir -p "$rundir/state"
config="$rundir/weatherd.toml"
replay_pid=
gpsfake_pgid=
gpsd_port=2947

cleanup() {
    if [[ -n "$replay_pid" ]]; then kill "$replay_pid" 2>/dev/null || true; fi
    # gpsfake can hang on SIGTERM: end its whole process group.
    if [[ -n "$gpsfake_pgid" ]]; then kill -KILL -- "-$gpsfake_pgid" 2>/dev/null || true; fi
}
trap cleanup EXIT

if [[ -n "${OWM_API_KEY:-}" ]]; then
    base_url="https://api.openweathermap.org"
    key_line='# the key comes from $OWM_API_KEY'
    open_meteo='# Open-Meteo at its own addresses (the defaults)'
    echo "weatherd: using api.openweathermap.org with the key in \$OWM_API_KEY, then api.open-meteo.com" >&2
else
    "$bin/owm-replay" --port 0 --data demo/owm \
        --delay openweathermap:Enschede=1000 --fail openweathermap:Enschede=503 \
        >"$rundir/owm-replay.out" 2>"$rundir/owm-replay.log" &
    replay_pid=$!
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
    echo "weatherd: no OWM_API_KEY given: offline demo, OpenWeatherMap and Open-Meteo answered by owm-replay at $base_url from demo/owm/" >&2
    echo "          (recorded London, Zocca and Berlin, sample data for the other places; its OpenWeatherMap fails for Enschede," >&2
    echo "          so Open-Meteo answers that one; set OWM_API_KEY to use the real APIs)" >&2
fi

# Locations: a real gpsd if one answers on 127.0.0.1:2947, else gpsfake replaying a receiver log.
if (exec 3<>"/dev/tcp/127.0.0.1/$gpsd_port") 2>/dev/null; then
    echo "weatherd: using the gpsd that answers on 127.0.0.1:$gpsd_port" >&2
elif command -v gpsfake >/dev/null && command -v gpsd >/dev/null; then
    # gpsfake adds its pty through gpsd's control socket as soon as the socket file exists, which can
    # be before gpsd listens on it: then the device is never added and gpsd sends no fix. Start anew
    # when gpsd lists no device within 5 s (gpsfake is Python: python3 is there).
    : >"$rundir/gpsfake.log"
    for _ in 1 2 3; do
        setsid gpsfake -q -n -c 1 -P "$gpsd_port" demo/nmea/bu353s4.log >>"$rundir/gpsfake.log" 2>&1 &
        gpsfake_pgid=$!
        python3 scripts/gpsd_devices.py "$gpsd_port" 10 && break
        echo "weatherd: gpsfake's gpsd got no device (gpsfake's control-socket race): starting it anew" >&2
        kill -KILL -- "-$gpsfake_pgid" 2>/dev/null || true
        gpsfake_pgid=
    done
    echo "weatherd: no gpsd on 127.0.0.1:$gpsd_port: gpsfake replays demo/nmea/bu353s4.log there (a fix near Hamilton, NZ)" >&2
else
    echo "weatherd: no gpsd and no gpsfake (apt-get install gpsd gpsd-clients): locate will answer no_fix" >&2
fi

# The map: 127.0.0.1:8080, or the next free port up to 8099 (0 = any, announced in the log).
web_port=0
for port in $(seq 8080 8099); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then web_port=$port; break; fi
done

cat >"$config" <<TOML
# Written by scripts/run-demo.sh for \`make run\`; see config/weatherd.toml for every key.
cities = ["Seoul,KR", "London,GB", "Enschede,NL"]
refresh = "10m"

[weather]
providers = ["openweathermap", "open-meteo"]

[openweathermap]
base_url = "$base_url"
api_key_file = "$rundir/owm-api-key"
$key_line

[open-meteo]
$open_meteo

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

cat >&2 <<HELP
weatherd: the map: http://127.0.0.1:$web_port/ (open it in a browser; the daemon's log says "map page at" once it is up)
weatherd: serving on $rundir/weatherd.sock (Ctrl-C stops it). In another terminal, from this directory:
    export WEATHERD_SOCKET=$rundir/weatherd.sock
    $bin/weatherctl search London
    $bin/weatherctl locate
    $bin/weatherctl watch
HELP
"$bin/weatherd" --config "$config" "$@"
