#!/usr/bin/env python3
"""The memory of `weatherctl bar` over a day's worth of changes, sped up.

Starts owm-replay, weatherd and `weatherctl bar --format waybar --template {name}` (from BIN_DIR),
then searches the cities below in turn, --changes times, through the daemon's socket: each search
changes the place the bar shows, so it writes a line, and it asks the daemon for the forecast of
the place shown, one request at a time (a day of watched-city refreshes every 10 minutes is 144
changes; a busy desktop's searches, a few hundred). After each search it waits for the bar's line naming the city, so every change went
through the bar. The bar's RSS (/proc/PID/status VmRSS) is sampled every --every changes; the figure
is its growth from the first sample (after warming up) to the last.

    scripts/bench-bar-memory.py --bin-dir .build/release --changes 50000 --every 5000
"""
import argparse, importlib.util, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("bench_daemon", os.path.join(ROOT, "scripts", "bench-daemon.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

SEARCHED = ["Paris,FR", "Berlin,DE", "Seoul,KR", "London,GB"]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=".build/release")
    p.add_argument("--changes", type=int, default=5000)
    p.add_argument("--every", type=int, default=250, help="changes between two samples")
    p.add_argument("--warm-up", type=int, default=200, help="changes before the first sample")
    args = p.parse_args()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]

    tmp = tempfile.mkdtemp(prefix="wd-bench-bar-")
    procs = []
    try:
        base = bench.start_replay(args.bin_dir, procs)
        sock = os.path.join(tmp, "w.sock")
        bench.start_daemon(args.bin_dir, tmp, base, sock, None, procs)
        bench.warm(sock, search=False)
        bar = bench.spawn(procs, [f"{args.bin_dir}/weatherctl", "--socket", sock, "bar", "--template", "{name}"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        c = bench.Line(sock)
        samples = []
        started = time.monotonic()
        for i in range(args.warm_up + args.changes):
            city = SEARCHED[i % len(SEARCHED)]
            c.send(bench.request("search", {"city": city}, i))
            reply = json.loads(c.readline())
            if "result" not in reply:
                sys.exit(f"bench-bar-memory: search {city}: {reply}")
            name = city.split(",")[0]
            while True:
                line = bar.stdout.readline()
                if not line:
                    sys.exit("bench-bar-memory: the bar ended")
                if json.loads(line)["text"] == name:
                    break
            done = i + 1 - args.warm_up
            if done >= 0 and done % args.every == 0:
                samples.append((done, rss_kib(bar.pid)))
        elapsed = time.monotonic() - started
        c.close()
    finally:
        for proc in reversed(procs):
            bench.stop(proc)
    print(f"weatherctl bar: {args.changes} changes after {args.warm_up} to warm up, {elapsed:.0f} s, load {' '.join(load)}")
    print("changes  RSS KiB")
    for done, kib in samples:
        print(f"{done:7d}  {kib:7d}")
    first, last = samples[0][1], samples[-1][1]
    print(f"RSS {first} KiB -> {last} KiB ({last - first:+d} KiB over {args.changes} changes; max {max(k for _, k in samples)} KiB)")


if __name__ == "__main__":
    main()
