#!/usr/bin/env python3
"""Fleet benchmark (`make bench`): N real daemons behind scripts/fleet-proxy.sh (Debian's nginx) in front of
owm-replay, which stands in for OpenWeatherMap and counts the requests that reach it (docs/fleet.md).

Starts owm-replay (with a fixed upstream latency and --api-key: it answers only the account's key), the
proxy (the account's key from a file, OpenWeatherMap's budget --requests-per-minute), and the largest fleet
size of weatherd (each with its own state directory and the placeholder key "fleet"). Then, for each
fleet size n in --devices, the first n devices search for --seconds: each one every --interval seconds
(with jitter) the weather at a random point of a town of --cells 0.01° cells (a new town for each size,
so no size finds the cache of another warm). It reports, per size and per minute: the searches made, the
requests the devices sent to the proxy (without it, each would have gone to the provider), the requests
that reached the provider, the 429s of the budget; and the resident memory of each daemon, of nginx and
of owm-replay, with the machine's load. Every number comes from this run.
"""
import argparse, json, os, random, shutil, signal, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import free_port, rss_kib, replay_stats as stats  # noqa: E402

ACCOUNT_KEY = "bench-account-key-0123456789abcdef"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=".build/release")
    p.add_argument("--devices", default="10,25,50,100", help="fleet sizes, comma-separated (the largest is started)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long each fleet size searches")
    p.add_argument("--interval", type=float, default=5.0, help="seconds between one device's searches (mean)")
    p.add_argument("--cells", type=int, default=50, help="0.01-degree cells of the town the devices are in")
    p.add_argument("--requests-per-minute", type=int, default=600, help="the fleet's OpenWeatherMap budget (burst: a sixth)")
    p.add_argument("--latency-ms", type=int, default=50, help="upstream latency")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    sizes = sorted({int(n) for n in args.devices.split(",")})
    random.seed(args.seed)
    tmp = tempfile.mkdtemp(prefix="wd-bench-fleet-")
    children = []
    try:
        run(args, sizes, tmp, children)
    finally:
        for child in reversed(children):
            if child.poll() is None:
                child.terminate()
        for child in reversed(children):
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def run(args, sizes, tmp, children):
    load_before = os.getloadavg()
    replay = subprocess.Popen([f"{args.bin_dir}/owm-replay", "--port", "0", "--data", "demo/owm", "--api-key", ACCOUNT_KEY,
                               "--delay", f"*={args.latency_ms}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    children.append(replay)
    replay_url = replay.stdout.readline().strip().split("listening on ")[1]
    key_file = os.path.join(tmp, "owm-api-key")
    with open(key_file, "w") as f:
        f.write(ACCOUNT_KEY + "\n")
    port = free_port()
    proxy_dir = os.path.join(tmp, "proxy")
    proxy = subprocess.Popen(["scripts/fleet-proxy.sh", "--listen", f"127.0.0.1:{port}", "--dir", proxy_dir,
                              "--openweathermap", replay_url, "--key-file", key_file,
                              "--requests-per-minute", str(args.requests_per_minute)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    children.append(proxy)
    line = proxy.stdout.readline()
    if "listening on" not in line:
        sys.exit("fleet-proxy.sh did not start: " + line + proxy.stderr.read())
    proxy_url = f"http://127.0.0.1:{port}"

    devices = [start_daemon(args, tmp, i, proxy_url, children) for i in range(max(sizes))]
    for device in devices:
        wait_for_socket(device)
    print(f"{len(devices)} daemons, fleet-proxy.sh (nginx) and owm-replay running; "
          f"OpenWeatherMap budget {args.requests_per_minute} a minute", flush=True)

    results = []
    for town, n in enumerate(sizes):
        results.append(phase(args, town, devices[:n], proxy_dir, replay_url))
        r = results[-1]
        print(f"  {n:>4} devices: {r['searches']} searches, {r['proxy']} to the proxy, {r['upstream']} upstream, "
              f"{r['refused']} refused by the budget, {r['errors']} errors", flush=True)

    rss = [rss_kib(d["process"].pid) for d in devices]
    nginx_pids = [int(x) for x in subprocess.run(["pgrep", "-s", str(os.getpgid(proxy.pid)), "nginx"],
                                                  capture_output=True, text=True).stdout.split()]
    nginx_rss = sum(rss_kib(pid) for pid in nginx_pids)
    load_after = os.getloadavg()
    minutes = args.seconds / 60
    print()
    print(f"fleet: devices searching a town of {args.cells} cells, one search every {args.interval:g} s each (mean), "
          f"{args.seconds:g} s per size; OpenWeatherMap budget {args.requests_per_minute} a minute; "
          f"upstream latency {args.latency_ms} ms; binaries in {args.bin_dir}")
    wrong = sum(r["wrong_key"] for r in results)
    print(f"requests owm-replay refused for their key: {wrong}")
    print(f"{'devices':>7}  {'searches/min':>12}  {'to the proxy/min':>16}  {'upstream/min':>12}  {'cells asked':>11}  "
          f"{'429s':>5}  {'rate_limited':>12}  {'errors':>6}")
    for r in results:
        print(f"{r['devices']:>7}  {r['searches'] / minutes:>12.0f}  {r['proxy'] / minutes:>16.0f}  "
              f"{r['upstream'] / minutes:>12.0f}  {r['cells']:>11}  {r['refused']:>5}  {r['rate_limited']:>12}  {r['errors']:>6}")
    print(f"resident memory: weatherd {sum(rss) / len(rss) / 1024:.1f} MiB each on average "
          f"(min {min(rss) / 1024:.1f}, max {max(rss) / 1024:.1f}, {sum(rss) / 1024:.0f} MiB for {len(rss)}); "
          f"nginx {nginx_rss / 1024:.1f} MiB ({len(nginx_pids)} processes); "
          f"owm-replay {rss_kib(replay.pid) / 1024:.1f} MiB")
    print(f"machine: {os.cpu_count()} CPUs, {mem_total_gib():.0f} GiB; load average {load_before[0]:.1f} before, "
          f"{load_after[0]:.1f} after")


def phase(args, town, devices, proxy_dir, replay_url):
    """The first len(devices) devices search for args.seconds in a town of their own."""
    lat0, lon0 = -30.0 - town * 1.0, -20.0  # far from every place owm-replay knows: each cell is its own point
    width = max(1, int(args.cells ** 0.5))
    cells = [(round(lat0 - (c // width) * 0.01, 2), round(lon0 - (c % width) * 0.01, 2)) for c in range(args.cells)]
    before_stats = stats(replay_url)
    before_log = log_lines(proxy_dir)
    counts = {"searches": 0, "errors": 0, "rate_limited": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds

    def device_loop(device, rng):
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(device["socket"])
        reader = sock.makefile("r")
        time.sleep(rng.uniform(0, args.interval))
        n = 0
        while time.monotonic() < deadline:
            lat, lon = rng.choice(cells)
            point = {"name": "bench", "lat": round(lat + rng.uniform(-0.0049, 0.0049), 4),
                     "lon": round(lon + rng.uniform(-0.0049, 0.0049), 4)}
            n += 1
            sock.sendall((json.dumps({"jsonrpc": "2.0", "id": n, "method": "search", "params": {"place": point}}) + "\n").encode())
            while True:
                reply = json.loads(reader.readline())
                if reply.get("id") == n:
                    break
            with lock:
                counts["searches"] += 1
                if "error" in reply:
                    counts["errors"] += 1
                    if reply["error"].get("data", {}).get("name") == "rate_limited":
                        counts["rate_limited"] += 1
            time.sleep(max(0.0, rng.uniform(0.5, 1.5) * args.interval))
        sock.close()

    threads = [threading.Thread(target=device_loop, args=(d, random.Random(random.random()))) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after_stats = stats(replay_url)
    lines = log_lines(proxy_dir)[len(before_log):]
    asked = {k for k, v in after_stats["by_query"].items() if v > before_stats["by_query"].get(k, 0) and k.startswith("lat=")}
    return {"devices": len(devices), "searches": counts["searches"], "errors": counts["errors"],
            "rate_limited": counts["rate_limited"],
            "proxy": sum(1 for l in lines if "/openweathermap/" in l),
            "refused": sum(1 for l in lines if '" 429 ' in l),
            "upstream": after_stats["requests"] - before_stats["requests"], "cells": len(asked),
            "wrong_key": after_stats.get("wrong_key", 0)}


def start_daemon(args, tmp, index, proxy_url, children):
    home = os.path.join(tmp, f"device-{index}")
    os.makedirs(home)
    sock = os.path.join(home, "weatherd.sock")
    config = os.path.join(home, "weatherd.toml")
    with open(config, "w") as f:
        f.write(f'cities = []\n[weather]\nproviders = ["openweathermap"]\n'
                f'[openweathermap]\nbase_url = "{proxy_url}/openweathermap"\napi_key = "fleet"\n'
                f'[air-quality]\nenabled = false\n'
                f'[socket]\npath = "{sock}"\n[gpsd]\nenabled = false\n[state]\ndirectory = "{home}/state"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY")}
    process = subprocess.Popen([f"{args.bin_dir}/weatherd", "--config", config, "--log-level", "warning"],
                               stderr=subprocess.DEVNULL, env=env)
    children.append(process)
    return {"process": process, "socket": sock}


def wait_for_socket(device):
    deadline = time.monotonic() + 60
    while not os.path.exists(device["socket"]):
        if time.monotonic() > deadline or device["process"].poll() is not None:
            sys.exit(f"weatherd (pid {device['process'].pid}) did not start")
        time.sleep(0.05)




def log_lines(proxy_dir):
    with open(os.path.join(proxy_dir, "access.log")) as f:
        return f.read().splitlines()




def mem_total_gib():
    with open("/proc/meminfo") as f:
        return int(f.readline().split()[1]) / 1024 / 1024


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    main()
