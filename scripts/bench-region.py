#!/usr/bin/env python3
"""Region-drag benchmark (`make bench`): a simulated map drag against the real daemon.

Starts owm-replay with a fixed upstream latency and weatherd (both from BIN_DIR), then sends
region events at RATE per second for DURATION seconds along a straight drag, and reports, once with
OpenWeatherMap as the provider and once with Open-Meteo:
  - upstream HTTP requests for weather the drag cost, and the grid points they asked (from
    owm-replay's /_stats): OpenWeatherMap has no several-points endpoint, so a 3x3 grid is 9 requests;
    Open-Meteo asks the whole grid in one request (its budget counts it as 9),
  - the requests to Open-Meteo's air quality API (air quality is on): one for the grid whichever
    provider gives the weather,
  - time from the last region event to the overlays notification of its grid,
  - the daemon's CPU time (user + system, from /proc) during the drag and its search,
  - the NWS alert requests (owm-replay's /_nws) sent by the time the grid's overlays arrived, and 2 s
    later: alerts are asked on their own timer for the places the overlays show, never on the drag's
    path. With --over-us the drag crosses Oklahoma (inside the NWS's area), else the Atlantic (none asked).
Every number comes from this run; rerun it to compare.
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import cpu_seconds  # noqa: E402

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=".build/release")
    p.add_argument("--duration", type=float, default=10.0, help="seconds of dragging")
    p.add_argument("--rate", type=float, default=60.0, help="region events per second")
    p.add_argument("--latency-ms", type=int, default=50, help="upstream latency")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--over-us", action="store_true", help="drag over Oklahoma, where the NWS has alerts")
    args = p.parse_args()
    results = {provider: [run_once(args, i, provider) for i in range(args.runs)] for provider in PROVIDERS}
    print()
    print(f"region drag: {args.duration:g} s at {args.rate:g} events/s, upstream latency {args.latency_ms} ms, "
          f"{args.runs} runs per provider, binaries in {args.bin_dir}")
    print(f"{'provider':>14}  {'run':>3}  {'events':>6}  {'HTTP requests':>13}  {'points asked':>12}  "
          f"{'air quality':>11}  {'last event -> overlays':>22}  {'daemon CPU':>10}  {'alerts at overlays / 2 s later':>30}")
    for provider, runs in results.items():
        for i, r in enumerate(runs, 1):
            print(f"{provider:>14}  {i:>3}  {r['events']:>6}  {r['requests']:>13}  {r['points']:>12}  "
                  f"{r['air_quality']:>11}  {r['latency_ms']:>19.1f} ms  {r['cpu_ms']:>7.0f} ms  "
                  f"{r['alerts_at_overlays']:>23} / {r['alerts_later']:>4}")
    print("requests per drag (one 3x3 grid): " + ", ".join(
        f"{provider} {min(r['requests'] for r in runs)} weather + {min(r['air_quality'] for r in runs)} air quality"
        for provider, runs in results.items()) + " (one request per point: 9)")

PROVIDERS = ("openweathermap", "open-meteo")

def run_once(args, index, provider):
    tmp = tempfile.mkdtemp(prefix="wd-bench-")
    replay = subprocess.Popen([f"{args.bin_dir}/owm-replay", "--port", "0", "--data", "demo/owm",
                               "--delay", f"*={args.latency_ms}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = replay.stdout.readline().strip().split("listening on ")[1]
    sock = os.path.join(tmp, "w.sock")
    config = os.path.join(tmp, "weatherd.toml")
    with open(config, "w") as f:
        f.write(f'cities = []\n[weather]\nproviders = ["{provider}"]\n'
                f'[openweathermap]\nbase_url = "{base}"\napi_key = "bench"\nrequests_per_minute = 6000\n'
                f'[open-meteo]\nbase_url = "{base}"\ngeocoding_url = "{base}"\nrequests_per_minute = 6000\n'
                f'[air-quality]\nbase_url = "{base}"\n'
                f'[alerts]\nnws_url = "{base}"\n'
                f'[socket]\npath = "{sock}"\n[gpsd]\nenabled = false\n[state]\ndirectory = "{tmp}/state"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY")}
    daemon = subprocess.Popen([f"{args.bin_dir}/weatherd", "--config", config, "--log-level", "warning"],
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(sock):
            if time.monotonic() > deadline or daemon.poll() is not None:
                sys.exit("weatherd did not start: " + daemon.stderr.read())
            time.sleep(0.02)
        watcher = socket.socket(socket.AF_UNIX); watcher.connect(sock)
        watcher.sendall(b'{"jsonrpc":"2.0","id":1,"method":"watch","params":{"replay":false,"topics":["overlays"]}}\n')
        reader = watcher.makefile("r")
        reader.readline()  # the watch reply
        before = requests(base)
        cpu_before = cpu_seconds(daemon.pid)
        client = socket.socket(socket.AF_UNIX); client.connect(sock)
        client.setblocking(True)
        events = int(args.duration * args.rate)
        start = time.monotonic()
        for i in range(events):
            target = start + i / args.rate
            now = time.monotonic()
            if target > now:
                time.sleep(target - now)
            # A drag 0.01° per event: over the Atlantic, or (--over-us) across Oklahoma.
            lat, lon = (33 + i * 0.005, -100 + i * 0.01) if args.over_us else (40 + i * 0.01, -30 + i * 0.01)
            client.sendall((json.dumps({"jsonrpc": "2.0", "method": "region",
                                        "params": {"center": {"lat": round(lat, 4), "lon": round(lon, 4)}}}) + "\n").encode())
        last_event = time.monotonic()
        watcher.settimeout(30)
        line = reader.readline()
        landed = time.monotonic()
        overlays = json.loads(line)["params"]
        cpu_after = cpu_seconds(daemon.pid)
        after = requests(base)
        alerts_at_overlays = alert_requests(base)
        time.sleep(2)
        alerts_later = alert_requests(base)
        client.close(); watcher.close()
        return {"events": events, "requests": after[0] - before[0], "points": after[1] - before[1],
                "air_quality": after[2] - before[2],
                "latency_ms": (landed - last_event) * 1000,
                "cpu_ms": (cpu_after - cpu_before) * 1000, "features": len(overlays["features"]),
                "alerts_at_overlays": alerts_at_overlays, "alerts_later": alerts_later}
    finally:
        daemon.terminate(); daemon.wait(5)
        replay.terminate(); replay.wait(5)

def requests(base):
    """HTTP requests for weather to either service so far, the points of weather they asked, and the
    requests to the air quality API."""
    with urllib.request.urlopen(base + "/_stats") as r:
        stats = json.load(r)
    open_meteo = stats.get("open_meteo", {})
    owm_weather = sum(n for query, n in stats.get("by_query", {}).items() if query.startswith(("lat=", "q=")))
    return (stats["requests"] + open_meteo.get("requests", 0),
            owm_weather + open_meteo.get("forecast_points", 0), open_meteo.get("air_quality_requests", 0))

def alert_requests(base):
    """The NWS alert and zone requests owm-replay answered so far."""
    with urllib.request.urlopen(base + "/_nws") as r:
        return json.load(r)["requests"]

if __name__ == "__main__":
    main()
