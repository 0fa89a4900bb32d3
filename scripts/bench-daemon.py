#!/usr/bin/env python3
"""Daemon benchmark (`make bench`): the daemon's figures, each beside a floor measured in this run.

Starts owm-replay and the release weatherd (from BIN_DIR) and a bare Unix-socket line server
(scripts/bench/echo-server.c, compiled here with `cc` into .build/bench/), and measures:

  search      a cached `search` reply, p50/p99, one client, requests one after another;
              floor: the same request line echoed by the C server, one floor sample beside each
              daemon sample (which goes first changes), so both meet the machine in the same state;
              and a second floor taken in the same turns: the C server answering the same request
              with a line as long as the daemon's reply (the same bytes in and out).
  state, overlays  a `state` and an `overlays` request the same way, each against the C server
              answering with a line as long as the daemon's reply (the overlays are 2-3 KB).
  event       a `search` from one client (cache hit) -> the `overlays` notification at a second,
              watching client, p50/p99; floor: the same line round trip, taken in turn likewise.
  fan-out     one overlays change (a cached `search`) -> the last of 1,000 watchers has read its
              notification, median of 5; floor: the C server writing a line of the same length to
              1,000 clients, its rounds taken in turn with the daemon's. The daemon's RSS with the
              1,000 watchers connected. Then the same with 10,000 watchers (--many-watchers) and its floor to as many readers, with the CPU time
              each server spends per change (its threads' schedstat, median): the reader needs one
              CPU of the two as well.
  diff fan-out the same with 1,000 watchers that watch with `diff: true` (each change reaches them as
              an `overlays.diff`, encoded once for all); floor: the full fan-out above (the goal: a
              diff to 1,000 diff watchers costs no more than the full collection).
  idle        2 watched cities (their round done), no clients, gpsd as configured (below): over a
              window, the daemon's RSS (/proc/PID/smaps_rollup Rss), CPU per minute (the sum over
              its threads of /proc/PID/task/TID/schedstat, ns; and /proc/PID/stat, 10 ms ticks), and
              wake-ups per second = the sum over its threads (/proc/PID/task/*/status) of voluntary +
              involuntary context switches: each time one of its threads was scheduled. Floor: the
              idle C server, measured the same way.
  weatherctl  `weatherctl search CITY` (cached), whole process, median of N runs;
              floor: `socat - UNIX-CONNECT:SOCK` sending the same request line (stdin from a file).

Every client timing is taken in this Python process (time.perf_counter_ns), the same way for the
daemon and for its floor, so the ratio is the figure to compare; absolute values include Python.

After the table: of the search, event and floor samples above their p99, the share whose midpoint
fell in the busiest fifth of the kernel's scheduler tick period (CONFIG_HZ from /proc/config.gz),
beside that share for as many samples drawn at random. Well above it, the p99 is set by what runs at
the tick (scripts/bench/event-tail.py shows what), not by the code measured.
"""
import argparse, json, os, random, resource, selectors, shutil, socket, statistics, subprocess, sys, tempfile, time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CITIES = ["London,GB", "Seoul,KR"]             # the 2 watched cities
SEARCHED = ["Paris,FR", "Berlin,DE"]           # alternated: each search changes the overlays


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=".build/release")
    p.add_argument("--requests", type=int, default=5000, help="search round trips (after 200 to warm up)")
    p.add_argument("--events", type=int, default=5000, help="event -> notification samples")
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--many-watchers", type=int, default=10000,
                   help="the second fan-out case (0: skip it); needs as many file descriptors, raised here")
    p.add_argument("--fanout-runs", type=int, default=5)
    p.add_argument("--idle-seconds", type=float, default=60.0, help="idle window (after 15 s to settle)")
    p.add_argument("--ctl-runs", type=int, default=30)
    p.add_argument("--gpsd", choices=["auto", "off", "none"], default="auto",
                   help="idle daemon's gpsd: auto = a real gpsd without receiver when installed (as on a "
                        "machine where gpsd runs; default config), none = enabled but nothing listening, "
                        "off = gpsd.enabled false")
    args = p.parse_args()

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536, hard))
    with open("/proc/loadavg") as f:
        load_start = f.read().split()[:3]
    bench = os.path.join(ROOT, ".build", "bench")
    os.makedirs(bench, exist_ok=True)
    echo_bin = os.path.join(bench, "echo-server")
    subprocess.run(["cc", "-O2", "-o", echo_bin, os.path.join(ROOT, "scripts", "bench", "echo-server.c")], check=True)
    reader_bin = os.path.join(bench, "fanout-reader")
    subprocess.run(["cc", "-O2", "-o", reader_bin, os.path.join(ROOT, "scripts", "bench", "fanout-reader.c")], check=True)
    if not shutil.which("socat"):
        sys.exit("bench-daemon: socat is needed (Debian: socat)")

    tmp = tempfile.mkdtemp(prefix="wd-bench-daemon-")
    procs = []
    try:
        base = start_replay(args.bin_dir, procs)
        echo_sock = os.path.join(tmp, "echo.sock")
        echo = spawn(procs, [echo_bin, echo_sock])
        wait_for(echo_sock, echo)

        gpsd_note, gpsd_port = start_gpsd(args.gpsd, procs, tmp)
        sock = os.path.join(tmp, "w.sock")
        daemon = start_daemon(args.bin_dir, tmp, base, sock, gpsd_port, procs)
        warm(sock)   # the watched cities' round, then every searched city cached

        rows = []
        # search, and its floor sample by sample
        ds, fs, ss, reply_length = search_latency(sock, echo_sock, args.requests)
        d, f, sz = pct(ds), pct(fs), pct(ss)
        rows.append(("cached search reply p50", d[50], f[50]))
        rows.append(("cached search reply p99", d[99], f[99]))
        rows.append((f"  p50; floor: a reply line as long as the daemon's ({reply_length} B)", d[50], sz[50]))
        rows.append((f"  p99; floor: a reply line as long as the daemon's ({reply_length} B)", d[99], sz[99]))
        # the other requests answered on the connection's loop: `state` and `overlays`
        for method in ("state", "overlays"):
            ms, mfs, mss, mlength = reply_latency(sock, echo_sock, args.requests, lambda i, m=method: request(m, {}, i))
            d, sz = pct(ms), pct(mss)
            rows.append((f"{method} reply p50; floor: a reply line as long ({mlength} B)", d[50], sz[50]))
            rows.append((f"{method} reply p99; floor: a reply line as long", d[99], sz[99]))
        # event -> notification, and its floor sample by sample
        es, efs = event_latency(sock, echo_sock, args.events)
        d, f = pct(es), pct(efs)
        rows.append(("event -> overlays at a watcher p50", d[50], f[50]))
        rows.append(("event -> overlays at a watcher p99", d[99], f[99]))
        hz = kernel_hz()
        tails = [(name, tick_phase(samples, hz)) for name, samples in
                 (("event", es), ("floor", fs), ("search", ds))] if hz else []
        # fan-out
        (dm, length, rss, each, _), (fm, _) = fanout(reader_bin, sock, echo_sock, args.watchers, args.fanout_runs, daemon.pid, echo.pid)
        rows.append((f"overlays change -> last of {args.watchers} watchers (median of {args.fanout_runs}, {length} B)", dm, fm))
        rows.append((f"RSS with {args.watchers} watchers", ("MB", rss), ("MB", rss_mb(echo.pid))))
        rows.append((f"  per watcher: RSS with them less RSS before, / {args.watchers}", each, ("", "")))
        (ddm, dlength, _, _, _), _ = fanout(reader_bin, sock, None, args.watchers, args.fanout_runs, daemon.pid, None, diff=True)
        rows.append((f"overlays.diff -> last of {args.watchers} diff watchers ({dlength} B); floor: full", ddm, dm))
        if args.many_watchers:
            many = args.many_watchers
            (mm, mlength, mrss, meach, mcpu), (mf, mfcpu) = fanout(reader_bin, sock, echo_sock, many, args.fanout_runs, daemon.pid, echo.pid)
            rows.append((f"overlays change -> last of {many:,} watchers (median of {args.fanout_runs}, {mlength} B)", mm, mf))
            rows.append(("  the server's CPU per change (all its threads, median)", mcpu, mfcpu))
            rows.append((f"RSS with {many:,} watchers", ("MB", mrss), ("MB", rss_mb(echo.pid))))
            rows.append((f"  per watcher: RSS with them less RSS before, / {many:,}", meach, ("", "")))
        # weatherctl
        ctl, soc = weatherctl_vs_socat(args.bin_dir, sock, args.ctl_runs, tmp)
        rows.append((f"weatherctl search (cached), whole process, median of {args.ctl_runs}", ctl, soc))
        # idle: a fresh daemon, its cities' round done, no client connected
        stop(daemon)
        daemon = start_daemon(args.bin_dir, tmp, base, sock, gpsd_port, procs)
        warm(sock, search=False)
        time.sleep(15)   # idle libdispatch workers exit after some seconds
        idle_d, idle_e = idle(daemon.pid, echo.pid, args.idle_seconds)
        rows.append(("idle (2 cities, no clients): RSS", ("MB", idle_d["rss"]), ("MB", idle_e["rss"])))
        rows.append(("idle: CPU per minute (schedstat of its threads)", ("ms/min", idle_d["cpu"]), ("ms/min", idle_e["cpu"])))
        rows.append(("idle: CPU per minute, /proc/PID/stat (10 ms ticks, exited threads too)",
                     ("ms/min", idle_d["stat_ms"]), ("ms/min", idle_e["stat_ms"])))
        rows.append(("idle: wake-ups per second (context switches of its threads)", ("/s", idle_d["wakeups"]), ("/s", idle_e["wakeups"])))
        rows.append((f"idle: threads at the end ({idle_d['exited']} exited during the window)", ("", idle_d["threads"]), ("", idle_e["threads"])))
        with open("/proc/loadavg") as f:
            load_end = f.read().split()[:3]

        print()
        print(f"weatherd daemon figures, binaries in {args.bin_dir}; floor = the C line server (scripts/bench/echo-server.c) "
              f"or socat, same run")
        print(f"load average {' '.join(load_start)} at start, {' '.join(load_end)} at end; {os.cpu_count()} CPUs; "
              f"idle gpsd: {gpsd_note}; idle window {args.idle_seconds:g} s")
        print(f"| {'figure':<72} | {'weatherd':>12} | {'floor':>12} | {'ratio':>6} |")
        print(f"|{'-' * 74}|{'-' * 14}:|{'-' * 14}:|{'-' * 7}:|")
        for name, value, floor in rows:
            print(f"| {name:<72} | {fmt(value):>12} | {fmt(floor):>12} | {ratio(value, floor):>6} |")
        if hz:
            print(f"\nThe slowest 1% of samples against the kernel's scheduler tick (CONFIG_HZ={hz}, every "
                  f"{1000 / hz:g} ms): the share that fell in the busiest fifth of the tick's period, "
                  f"and (in brackets) that share for as many samples drawn at random:")
            print("  " + "; ".join(f"{name} {share:.0%} ({chance:.0%})" for name, (share, chance) in tails))
    finally:
        for proc in reversed(procs):
            stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


# --- processes -------------------------------------------------------------------------------------

def start_replay(bin_dir, procs):
    """owm-replay on a free port, serving demo/owm; returns its base URL."""
    replay = spawn(procs, [f"{bin_dir}/owm-replay", "--port", "0", "--data", os.path.join(ROOT, "demo/owm")],
                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return replay.stdout.readline().strip().split("listening on ")[1]


def spawn(procs, argv, **kw):
    proc = subprocess.Popen(argv, **kw)
    procs.append(proc)
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill(); proc.wait()


def wait_for(path, proc):
    deadline = time.monotonic() + 10
    while not os.path.exists(path):
        if time.monotonic() > deadline or proc.poll() is not None:
            sys.exit(f"bench-daemon: {proc.args[0]} did not start")
        time.sleep(0.02)



def start_gpsd(mode, procs, tmp):
    if mode == "off":
        return "disabled (gpsd.enabled = false)", None
    gpsd = shutil.which("gpsd") or ("/usr/sbin/gpsd" if os.path.exists("/usr/sbin/gpsd") else None)
    if mode == "auto" and gpsd:
        port = free_port()
        spawn(procs, [gpsd, "-N", "-n", "-S", str(port), "-F", os.path.join(tmp, "gpsd.ctl")],
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return "a real gpsd, no receiver, connected", port
            except OSError:
                time.sleep(0.05)
        sys.exit("bench-daemon: gpsd did not start")
    return "enabled, nothing listening (backoff to 30 s)", free_port()


def start_daemon(bin_dir, tmp, base, sock, gpsd_port, procs):
    config = os.path.join(tmp, "weatherd.toml")
    gpsd = f'enabled = true\nport = {gpsd_port}\n' if gpsd_port else 'enabled = false\n'
    with open(config, "w") as f:
        f.write(f'cities = {json.dumps(CITIES)}\n[weather]\ncache_ttl = "1h"\n'
                f'[openweathermap]\nbase_url = "{base}"\napi_key = "bench"\n'
                f'requests_per_minute = 6000\n[air-quality]\nbase_url = "{base}"\n[socket]\npath = "{sock}"\nmax_clients = 16384\n'
                f'[gpsd]\n{gpsd}[state]\ndirectory = "{tmp}/state"\n')
    env = {k: v for k, v in os.environ.items()
           if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "LISTEN_FDS", "LISTEN_PID")}
    if os.path.exists(sock):
        os.unlink(sock)
    daemon = spawn(procs, [f"{bin_dir}/weatherd", "--config", config, "--log-level", "warning"],
                   stderr=subprocess.DEVNULL, env=env)
    wait_for(sock, daemon)
    return daemon


def warm(sock, search=True):
    """Waits for the watched cities' round to settle; with `search`, caches every searched city."""
    c = Line(sock)
    c.send(request("watch", {"replay": True, "topics": ["state"]}, 0))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        msg = json.loads(c.readline())
        if msg.get("method") == "state" and msg["params"]["phase"] != "loading" and not msg["params"]["running"]:
            break
    else:
        sys.exit("bench-daemon: the watched cities' round did not settle")
    c.close()
    if search:
        c = Line(sock)
        for i, city in enumerate(SEARCHED + CITIES):
            c.send(request("search", {"city": city}, i))
            reply = json.loads(c.readline())
            if "result" not in reply:
                sys.exit(f"bench-daemon: search {city}: {reply}")
        c.close()


# --- clients ---------------------------------------------------------------------------------------

def request(method, params, ident):
    return (json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params},
                       separators=(",", ":")) + "\n").encode()


class Line:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def readline(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def close(self):
        self.s.close()


def pct(samples):
    """Percentiles of (start ns, duration ns) samples."""
    xs = sorted(d for _, d in samples)
    return {q: ("µs", xs[min(len(xs) - 1, int(len(xs) * q / 100))] / 1000) for q in (50, 90, 99)}


def kernel_hz():
    """CONFIG_HZ of the running kernel (from /proc/config.gz), or None."""
    try:
        import gzip
        with gzip.open("/proc/config.gz", "rt") as f:
            for line in f:
                if line.startswith("CONFIG_HZ="):
                    return int(line.split("=")[1])
    except OSError:
        pass
    return None


def tick_phase(samples, hz):
    """Of the samples above p99, the share whose midpoint falls in the busiest fifth of the
    scheduler tick's period (the tick fires at a fixed phase of CLOCK_MONOTONIC, the clock of
    time.perf_counter_ns on Linux); beside it the same share for as many samples drawn at random
    (what it is when the slow samples are unrelated to the tick: a little over 20%, as the busiest
    fifth of a few dozen samples is a maximum). `hz`: the kernel's CONFIG_HZ (`kernel_hz()`)."""
    period = 1e9 / hz

    def busiest_fifth(chosen):
        bins = [0] * 10
        for t, d in chosen:
            bins[int(((t + d / 2) % period) / period * 10)] += 1
        return max(bins[i] + bins[(i + 1) % 10] for i in range(10)) / max(1, len(chosen))

    xs = sorted(d for _, d in samples)
    p99 = xs[int(len(xs) * 0.99)]
    slow = [(t, d) for t, d in samples if d > p99]
    draw = random.Random(0)
    chance = statistics.mean(busiest_fifth(draw.sample(samples, len(slow))) for _ in range(20))
    return busiest_fifth(slow), chance


def timed(client, line):
    """(start, duration) in ns of one request/reply round trip."""
    t = time.perf_counter_ns()
    client.send(line)
    client.readline()
    return t, time.perf_counter_ns() - t


def search_latency(sock, echo_sock, n):
    """n cached `search` round trips to the daemon and n of the same lines to the C server, one of
    each in turn (which goes first changes each time), after 200 of each to warm up: both meet the
    machine as it is at that moment. The C server is asked twice: echoing the request line, and
    answering it with a line as long as the daemon's reply (the same bytes each way). Returns
    (daemon samples, echo floor samples, sized floor samples, reply length), each sample (start ns,
    duration ns)."""
    return reply_latency(sock, echo_sock, n, lambda i: request("search", {"city": SEARCHED[i % 2]}, i))


def reply_latency(sock, echo_sock, n, line_for):
    """As `search_latency`, for the request lines `line_for(i)` (i from 0), alternated as they
    come (the replies' length is averaged over the first two)."""
    daemon, floor, sized = Line(sock), Line(echo_sock), Line(echo_sock)
    lengths = []
    for i in range(2):
        daemon.send(line_for(i))
        lengths.append(len(daemon.readline()) + 1)
    length = round(sum(lengths) / len(lengths))
    sized.send(f"={length}\n".encode())
    sized.readline()
    ds, fs, ss = [], [], []
    for i in range(n + 200):
        line = line_for(i)
        turns = [(daemon, ds), (floor, fs), (sized, ss)]
        turns = turns[i % 3:] + turns[:i % 3]
        for client, samples in turns:
            sample = timed(client, line)
            if i >= 200:
                samples.append(sample)
    daemon.close(); floor.close(); sized.close()
    return ds, fs, ss, length


def event_latency(sock, echo_sock, n):
    """n times a cached `search` from one client until the `overlays` notification reaches a second,
    watching client, each beside a round trip of the same line to the C server at `echo_sock` (in
    turn, as in `search_latency`; none when it is None), after 100 of each. Returns (event samples,
    floor samples)."""
    watcher = Line(sock)
    watcher.send(request("watch", {"replay": False, "topics": ["overlays"]}, 0))
    watcher.readline()
    client, floor = Line(sock), Line(echo_sock) if echo_sock else None
    samples, floors = [], []
    for i in range(n + 100):
        line = request("search", {"city": SEARCHED[i % 2]}, i)
        if floor and i % 2:
            f = timed(floor, line)
        t = time.perf_counter_ns()
        client.send(line)
        notification = watcher.readline()
        t1 = time.perf_counter_ns()
        assert b'"overlays"' in notification[:60], notification[:80]
        client.readline()    # its reply, not timed
        if floor and not i % 2:
            f = timed(floor, line)
        if i >= 100:
            samples.append((t, t1 - t))
            if floor:
                floors.append(f)
    client.close(); watcher.close()
    if floor:
        floor.close()
    return samples, floors


class FanoutReader:
    """`n` clients of `path` in scripts/bench/fanout-reader.c (one C thread with epoll: 1,000
    sockets read by Python's selectors took 16 ms, whoever wrote to them, and hid the server's
    part). Each sends `first` (a watch request) and reads its reply; then every `round()` waits
    for one more line on each client."""

    def __init__(self, binary, path, n, first=None):
        argv = [binary, path, str(n)] + ([first.decode().rstrip("\n")] if first else [])
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.p.stdout.readline().strip() != "ready":
            sys.exit(f"bench-daemon: the fan-out reader did not start ({self.p.wait()})")

    def round(self):
        """(CLOCK_MONOTONIC ns when the last client had its line, length of client 0's line)."""
        row = self.p.stdout.readline().split()
        if len(row) != 2:
            sys.exit(f"bench-daemon: the fan-out reader ended ({self.p.wait()})")
        return int(row[0]), int(row[1])

    def close(self):
        self.p.stdin.close()
        self.p.kill()
        self.p.wait()


def now_ns():
    """The clock the fan-out reader stamps its rounds with."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def fanout(reader_bin, sock, echo_sock, n, runs, pid, echo_pid, diff=False):
    """One change to `n` watchers of the daemon (`pid`), median of `runs`, and with `echo_sock` its floor:
    the C server (`echo_pid`) writing a line as long to `n` readers. The floor's rounds are taken in
    turn with the daemon's (which goes first changes from round to round), as the search and event
    samples are, so that both meet the machine in the same state. Without `echo_sock`, the daemon's
    rounds alone (floor None). With `diff`, the watchers watch with diff: true: the first change
    (the warm-up round) reaches them in full, the later ones as diffs; the length returned is then
    that of the last diff.

    Returns ((median ms, line length, RSS MB, RSS per watcher, median CPU ms per change), floor),
    the floor being (median ms, the C server's median CPU ms per change)."""
    watch = request("watch", {"replay": False, "topics": ["overlays"], "diff": diff}, 1)
    rss_before = rss_mb(pid)
    reader = FanoutReader(reader_bin, sock, n, watch)
    probe = Line(sock)   # one more watcher, read here: what the watchers get
    probe.send(watch)
    probe.readline()
    client = Line(sock)
    floor_reader = trigger = None   # the floor's readers and the line that makes the C server write to them

    def daemon_round(r):
        cpu0, t0 = cpu_ns(pid), now_ns()
        client.send(request("search", {"city": SEARCHED[r % 2]}, r))
        last, length = reader.round()
        client.readline()
        seen = probe.readline()
        return last - t0, cpu_ns(pid) - cpu0, length, seen

    def floor_round(length):
        cpu0, t0 = cpu_ns(echo_pid), now_ns()
        trigger.send(f"!{length}\n".encode())
        last, _ = floor_reader.round()
        return last - t0, cpu_ns(echo_pid) - cpu0

    times, cpus, ftimes, fcpus = [], [], [], []
    try:
        _, _, length, seen = daemon_round(0)   # warms up, and tells the floor's line length
        if echo_sock:
            floor_reader, trigger = FanoutReader(reader_bin, echo_sock, n), Line(echo_sock)
            time.sleep(0.3)   # every connection accepted
            floor_round(length)   # warms up
        for r in range(1, runs + 1):
            time.sleep(0.2)
            if trigger and r % 2:
                t, c = floor_round(length); ftimes.append(t); fcpus.append(c)
                time.sleep(0.2)
            t, c, length, seen = daemon_round(r); times.append(t); cpus.append(c)
            if trigger and not r % 2:
                time.sleep(0.2)
                t, c = floor_round(length); ftimes.append(t); fcpus.append(c)
        rss = rss_mb(pid)
    finally:
        if trigger:
            trigger.close()
            floor_reader.close()
        client.close()
        probe.close()
        reader.close()
    if diff and b'"overlays.diff"' not in seen:
        sys.exit("bench-daemon: a diff watcher got no overlays.diff: " + seen[:200].decode())
    per_watcher = ("KB", (rss - rss_before) * 1024 / n)
    ms = lambda values: ("ms", statistics.median(values) / 1e6)
    daemon = (ms(times), length, rss, per_watcher, ms(cpus))
    return daemon, ((ms(ftimes), ms(fcpus)) if trigger else None)


def cpu_ns(pid):
    """The CPU time of all of `pid`'s live threads, in ns (/proc/PID/task/TID/schedstat)."""
    return sum(cpu for cpu, _ in threads(pid).values())


def weatherctl_vs_socat(bin_dir, sock, runs, tmp):
    line = os.path.join(tmp, "search.jsonl")
    with open(line, "wb") as f:
        f.write(request("search", {"city": SEARCHED[0]}, 1))
    ctl = [f"{bin_dir}/weatherctl", "--socket", sock, "search", SEARCHED[0]]
    soc = ["socat", "-", f"UNIX-CONNECT:{sock}"]

    def once(argv):
        with open(line, "rb") as stdin:
            t = time.perf_counter_ns()
            out = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout
            elapsed = time.perf_counter_ns() - t
        if not out.strip():
            sys.exit(f"bench-daemon: {argv[0]} printed nothing")
        return elapsed

    a, b = [], []
    for i in range(runs + 3):   # interleaved, the first 3 of each to warm up
        x, y = once(ctl), once(soc)
        if i >= 3:
            a.append(x); b.append(y)
    return ("ms", statistics.median(a) / 1e6), ("ms", statistics.median(b) / 1e6)


# --- /proc -----------------------------------------------------------------------------------------

def rss_mb(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for row in f:
            if row.startswith("Rss:"):
                return int(row.split()[1]) / 1024
    return float("nan")


def threads(pid):
    """Per live thread: (CPU ns, context switches). CPU is the first field of
    /proc/PID/task/TID/schedstat (ns, where /proc/PID/stat counts 10 ms ticks); switches are the
    voluntary + involuntary ones of /proc/PID/task/TID/status: each time the thread was scheduled."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                cpu = int(f.read().split()[0])
            sw = 0
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for row in f:
                    if row.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        sw += int(row.split()[1])
            out[tid] = (cpu, sw)
        except FileNotFoundError:
            pass
    return out


def stat_ticks(pid):
    """utime + stime of the whole process (threads that exited included), in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def idle(pid, floor_pid, seconds):
    """CPU and wake-ups over the window, summed over the threads alive at both ends (an idle
    libdispatch worker may exit meanwhile: its share is then in `stat_ms`, the coarse figure of
    /proc/PID/stat, 10 ms ticks, which counts exited threads too)."""
    before = {p: (threads(p), stat_ticks(p)) for p in (pid, floor_pid)}
    t0 = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - t0
    out = []
    for p in (pid, floor_pid):
        (t_before, ticks0), t_after = before[p], threads(p)
        kept = [t for t in t_after if t in t_before]
        cpu = sum(t_after[t][0] - t_before[t][0] for t in kept)
        sw = sum(t_after[t][1] - t_before[t][1] for t in kept)
        ticks = stat_ticks(p) - ticks0
        out.append({"rss": rss_mb(p), "cpu": cpu / 1e6 * 60 / elapsed,
                    "stat_ms": ticks / os.sysconf("SC_CLK_TCK") * 1000 * 60 / elapsed,
                    "wakeups": sw / elapsed, "threads": len(t_after),
                    "exited": len([t for t in t_before if t not in t_after])})
    return out


# --- the table -------------------------------------------------------------------------------------

def fmt(v):
    unit, x = v
    if unit == "":
        return f"{x}"
    if unit in ("/s", "ms/min"):
        return f"{x:.1f} {unit}"
    return f"{x:.1f} {unit}" if x >= 10 else f"{x:.2f} {unit}"


def ratio(v, floor):
    if v[0] != floor[0] or not floor[1]:
        return "—"
    return f"{v[1] / floor[1]:.1f}×"


if __name__ == "__main__":
    main()
