"""What the benchmark scripts share: a free loopback port, a process's RSS and CPU time, owm-replay's
request counts, a Prometheus scrape. Imported by scripts/bench-*.py (they put scripts/bench on sys.path)."""
import json, os, socket, urllib.request


def free_port():
    """A TCP port on 127.0.0.1 nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kib(pid):
    """The process's resident set (VmRSS) in KiB; 0 once it has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def cpu_seconds(pid):
    """The process's user and system CPU time so far, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def replay_stats(replay_url):
    """owm-replay's counts of the requests it answered (its `/_stats`)."""
    with urllib.request.urlopen(replay_url + "/_stats") as r:
        return json.load(r)


def scrape(port):
    """The daemon's `/metrics` page as text."""
    return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()


def metric(text, name, **labels):
    """The sum of the samples of `name` in a scrape whose labels include `labels`."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total
