#!/usr/bin/env python3
"""Where the slowest 1% of `make bench`'s event samples go: a profile, not part of `make bench`.

  scripts/bench/event-tail.py [--bin-dir .build/release] [--events 5000]

Starts owm-replay and the release weatherd as scripts/bench-daemon.py does, takes its event samples
(a cached `search` from one client -> the `overlays` notification at a second, watching client)
while `perf sched record -a` records every context switch of the machine, and sorts each sample
slower than the p99 by what happened inside it:

  another thread ran   a thread that is neither the daemon's, the client's nor the idle task ran
                       on a CPU during the sample (ksoftirqd, rcu_preempt, kworker, another process)
  perf (the recorder) ran
                       perf itself ran during the sample (it is given a large buffer to run seldom)
  a daemon thread ran long
                       one of the daemon's threads ran for more than twice its usual stretch (its
                       median inside samples) at once: interrupted inside (an interrupt, the
                       hypervisor) or slow work
  the client ran long  the same for the Python client
  other                none of these

It also prints where the slow samples fall in the period of the kernel's scheduler tick, as
bench-daemon.py does. Needs perf (Debian: linux-perf) and root, or perf_event_paranoid <= -1.
"""
import argparse, bisect, collections, importlib.util, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("bench_daemon", os.path.join(ROOT, "scripts", "bench-daemon.py"))
bd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bd)

SWITCH = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d+):\s+sched:sched_switch: prev_comm=.*? prev_pid=\d+ .*==> next_comm=(.*?) next_pid=(\d+)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=os.path.join(ROOT, ".build", "release"))
    p.add_argument("--events", type=int, default=5000)
    args = p.parse_args()
    if not shutil.which("perf"):
        sys.exit("event-tail: perf is needed (Debian: linux-perf)")

    tmp = tempfile.mkdtemp(prefix="wd-event-tail-")
    procs = []
    try:
        base = bd.start_replay(args.bin_dir, procs)
        sock = os.path.join(tmp, "w.sock")
        daemon = bd.start_daemon(args.bin_dir, tmp, base, sock, None, procs)
        bd.warm(sock)
        record = os.path.join(tmp, "perf.data")
        # CLOCK_MONOTONIC: the clock of the samples' time stamps (time.perf_counter_ns on Linux).
        # A large buffer, so that perf itself wakes up seldom while the samples are taken.
        perf = subprocess.Popen(["perf", "sched", "record", "-m", "16M", "-k", "CLOCK_MONOTONIC", "-o", record, "-a"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not os.path.exists(record) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # perf opens its events after it creates its file
        samples, _ = bd.event_latency(sock, None, args.events)
        perf.send_signal(2)
        perf.wait()
        script = subprocess.run(["perf", "script", "-i", record, "-F", "comm,tid,cpu,time,event,trace", "--ns"],
                                capture_output=True, text=True, check=True).stdout
        threads = {int(t) for t in os.listdir(f"/proc/{daemon.pid}/task")}
        report(samples, script, threads, os.getpid())
    finally:
        for proc in reversed(procs):
            bd.stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


def report(samples, script, daemon_threads, client_pid):
    # Each CPU's runs: (start ns, end ns, pid, comm), from consecutive switches on that CPU.
    running, runs = {}, []
    for line in script.splitlines():
        m = SWITCH.search(line)
        if not m:
            continue
        cpu, t = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0")[:9])
        if cpu in running:
            start, pid, comm = running[cpu]
            runs.append((start, t, pid, comm))
        running[cpu] = (t, int(m.group(5)), m.group(4))
    runs.sort()
    starts = [r[0] for r in runs]

    def kind(pid, comm=""):
        if pid == 0:
            return "idle"
        if pid in daemon_threads:
            return "daemon"
        if pid == client_pid:
            return "client"
        if comm == "perf":
            return "perf"
        return "other"

    def inside(t0, t1):
        i = max(0, bisect.bisect_left(starts, t0 - 10**7))
        while i < len(runs) and runs[i][0] < t1:
            s, e, pid, comm = runs[i]
            if min(e, t1) > max(s, t0):
                yield s, e, pid, comm
            i += 1

    # Each thread's usual stretch: the median of its runs that overlap a sample.
    stretches = collections.defaultdict(list)
    for t, d in samples:
        for s, e, pid, _ in inside(t, t + d):
            stretches[pid].append(e - s)
    usual = {pid: sorted(v)[len(v) // 2] for pid, v in stretches.items() if v}

    def long_run(found, who):
        return any(kind(pid) == who and e - s > 2 * usual[pid] for s, e, pid, _ in found)

    xs = sorted(d for _, d in samples)
    p50, p99 = xs[len(xs) // 2], xs[int(len(xs) * 0.99)]
    classes, others = collections.Counter(), collections.Counter()
    for t, d in samples:
        if d <= p99:
            continue
        found = list(inside(t, t + d))
        foreign = [(e - s, comm) for s, e, pid, comm in found if kind(pid, comm) == "other"]
        if foreign:
            classes["another thread ran"] += 1
            for length, comm in foreign:
                others[re.sub(r"/\d+$", "", comm)] += length
        elif any(kind(pid, comm) == "perf" for _, _, pid, comm in found):
            classes["perf (the recorder) ran"] += 1
        elif long_run(found, "daemon"):
            classes["a daemon thread ran long"] += 1
        elif long_run(found, "client"):
            classes["the client ran long"] += 1
        else:
            classes["other"] += 1
    slow = sum(classes.values())
    print(f"{len(samples)} event samples: p50 {p50 / 1000:.1f} µs, p99 {p99 / 1000:.1f} µs (perf recording adds to both)")
    print(f"the {slow} samples slower than p99:")
    for name, count in classes.most_common():
        print(f"  {name:<26} {count:4}")
    if others:
        print("  time of the other threads inside them: " +
              ", ".join(f"{comm} {ns / 1000:.0f} µs" for comm, ns in others.most_common(6)))
    hz = bd.kernel_hz()
    if hz:
        phase = bd.tick_phase(samples, hz)
        print(f"share of them in the busiest fifth of the scheduler tick's period (CONFIG_HZ={hz}): "
              f"{phase[0]:.0%}; for as many samples at random: {phase[1]:.0%}")


if __name__ == "__main__":
    main()
