#!/usr/bin/env python3
"""OwnTracks fleet benchmark (`make bench`): 1,000 devices reporting every 30 s through a real Mosquitto to
one weatherd, which shows each on the map with the weather where it is (docs/owntracks.md).

Starts owm-replay (OpenWeatherMap's stand-in, counting the requests that reach it), Mosquitto on a free
loopback port, and weatherd subscribed to `owntracks/+/+` with its OpenWeatherMap budget
(--requests-per-minute). One publisher (a minimal MQTT 3.1.1 client over a socket, QoS 0) then sends
each device's `_type: "location"` payload every --interval seconds (spread evenly) for --seconds: the
devices start at random points of a town of --area degrees; a share of them (--moving) drive at --speed
m/s in a random direction, the others stay parked (a few metres of GPS jitter). With --time-scale K the
same rate is kept while each device reports K times as often and moves K times as far per report (the
interval and the distance per report as at K times the time). It reports the daemon's CPU time as a share
of one core over the run, the upstream requests per minute against the budget, the fixes taken, the
lookups by how they were answered, the devices on the map at the end, and the machine's load. Every number
comes from this run.
"""
import argparse, json, math, os, random, shutil, signal, socket, struct, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import cpu_seconds, free_port, metric, replay_stats as stats, rss_kib, scrape  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=".build/release")
    p.add_argument("--devices", type=int, default=1000)
    p.add_argument("--interval", type=float, default=30.0, help="seconds between one device's reports")
    p.add_argument("--seconds", type=float, default=180.0, help="how long the devices report")
    p.add_argument("--area", type=float, default=0.1, help="the town's side in degrees (0.01° cells: area/0.01 squared)")
    p.add_argument("--moving", type=float, default=0.3, help="share of the devices that drive")
    p.add_argument("--speed", type=float, default=10.0, help="m/s of the driving devices")
    p.add_argument("--time-scale", type=float, default=1.0, help="K: reports K times as often and K times as far apart")
    p.add_argument("--requests-per-minute", type=int, default=60, help="weatherd's OpenWeatherMap budget")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    random.seed(args.seed)
    tmp = tempfile.mkdtemp(prefix="wd-bench-owntracks-")
    children = []
    try:
        run(args, tmp, children)
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


def run(args, tmp, children):
    load_before = os.getloadavg()
    replay = subprocess.Popen([f"{args.bin_dir}/owm-replay", "--port", "0", "--data", "demo/owm"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    children.append(replay)
    replay_url = replay.stdout.readline().strip().split("listening on ")[1]

    broker_port = free_port()
    broker_conf = os.path.join(tmp, "mosquitto.conf")
    with open(broker_conf, "w") as f:
        f.write(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n"
                f"log_type error\n" + ("user root\n" if os.getuid() == 0 else ""))
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", broker_conf], stderr=subprocess.DEVNULL)
    children.append(broker)
    wait_for_port(broker_port, broker)

    web_port = free_port()
    sock = os.path.join(tmp, "weatherd.sock")
    config = os.path.join(tmp, "weatherd.toml")
    with open(config, "w") as f:
        f.write(f'cities = []\n[weather]\nproviders = ["openweathermap"]\n'
                f'[openweathermap]\nbase_url = "{replay_url}"\napi_key = "bench"\n'
                f'requests_per_minute = {args.requests_per_minute}\n'
                f'[socket]\npath = "{sock}"\n[gpsd]\nenabled = false\n[state]\ndirectory = "{tmp}/state"\n'
                f'[web]\nlisten = "127.0.0.1:{web_port}"\n'
                f'[mqtt]\nbroker = "mqtt://127.0.0.1:{broker_port}"\nclient_id = "bench"\n'
                f'[owntracks]\nmqtt_topics = ["owntracks/+/+"]\n')
    env = {k: v for k, v in os.environ.items() if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY")}
    log = open(os.path.join(tmp, "weatherd.log"), "w")
    daemon = subprocess.Popen([f"{args.bin_dir}/weatherd", "--config", config, "--log-level", "info"], stderr=log, env=env)
    children.append(daemon)
    wait_for_line(os.path.join(tmp, "weatherd.log"), "subscribed to the OwnTracks topics", daemon)

    # The devices: where each is, and which way it drives.
    metres_per_degree = 111_195.0
    lat0, lon0 = 48.10, 11.50  # a town; owm-replay makes its weather up
    devices = []
    for i in range(args.devices):
        moving = random.random() < args.moving
        devices.append({"topic": f"owntracks/fleet/v{i:04d}", "lat": lat0 + random.uniform(0, args.area),
                        "lon": lon0 + random.uniform(0, args.area), "heading": random.uniform(0, 2 * math.pi),
                        "moving": moving})
    interval = args.interval / args.time_scale
    step = args.speed * args.interval  # metres between two reports of a driving device

    publisher = MQTTPublisher("127.0.0.1", broker_port, "bench-phones")
    stats_before = stats(replay_url)
    cpu_before, wall_before = cpu_seconds(daemon.pid), time.monotonic()
    per_minute = []
    sent = 0
    start = time.monotonic()
    next_minute, minute_requests = start + 60, stats_before["requests"]
    while time.monotonic() - start < args.seconds:
        for index, device in enumerate(devices):
            due = start + (sent // len(devices)) * interval + index * interval / len(devices)
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if device["moving"]:
                device["lat"] += step * math.cos(device["heading"]) / metres_per_degree
                device["lon"] += step * math.sin(device["heading"]) / (metres_per_degree * math.cos(math.radians(device["lat"])))
                if random.random() < 0.1:
                    device["heading"] += random.uniform(-1, 1)
            jitter = 5 / metres_per_degree
            payload = {"_type": "location", "lat": round(device["lat"] + random.uniform(-jitter, jitter), 6),
                       "lon": round(device["lon"] + random.uniform(-jitter, jitter), 6), "acc": 8, "tid": "FL",
                       "batt": 80, "tst": int(time.time())}
            publisher.publish(device["topic"], json.dumps(payload, separators=(",", ":")).encode())
            sent += 1
            if time.monotonic() >= next_minute:
                requests = stats(replay_url)["requests"]
                per_minute.append(requests - minute_requests)
                minute_requests, next_minute = requests, next_minute + 60
        if time.monotonic() - start >= args.seconds:
            break
    elapsed = time.monotonic() - start
    # The last payloads read, then the figures.
    time.sleep(2)
    cpu_after, wall_after = cpu_seconds(daemon.pid), time.monotonic()
    stats_after = stats(replay_url)
    metrics = scrape(web_port)
    overlays = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{web_port}/overlays.geojson").read())
    publisher.close()
    load_after = os.getloadavg()

    upstream = stats_after["requests"] - stats_before["requests"]
    cpu = (cpu_after - cpu_before) / (wall_after - wall_before)
    on_map = sum(1 for f in overlays["features"] if f["properties"].get("source") == "device")
    print(f"owntracks: {args.devices} devices ({args.moving:.0%} driving at {args.speed:g} m/s, the others parked) in a town of "
          f"{args.area:g}° ({round(args.area / 0.01) ** 2} cells of 0.01°), each reporting every {args.interval:g} s"
          + (f" (time compressed {args.time_scale:g}×: every {interval:g} s)" if args.time_scale != 1 else "")
          + f", through Mosquitto; OpenWeatherMap budget {args.requests_per_minute} a minute; binaries in {args.bin_dir}")
    print(f"payloads published: {sent} in {elapsed:.0f} s ({sent / elapsed:.1f} a second)")
    print(f"fixes taken: {metric(metrics, 'weatherd_location_fixes_total', source='owntracks', accepted='true'):.0f}, "
          f"dropped or too old: {metric(metrics, 'weatherd_location_fixes_total', source='owntracks', accepted='false'):.0f}")
    print("lookups: " + ", ".join(f"{r} {metric(metrics, 'weatherd_lookups_total', result=r):.0f}" for r in ("cache", "shared", "upstream")))
    print(f"upstream requests: {upstream} in {elapsed / 60:.1f} minutes ({upstream / (elapsed / 60):.1f} a minute); "
          f"per whole minute: {per_minute}; budget {args.requests_per_minute} a minute")
    print(f"devices on the map at the end: {on_map} of {args.devices}")
    print(f"weatherd CPU: {cpu * 100:.2f} % of one core ({cpu_after - cpu_before:.2f} s in {wall_after - wall_before:.0f} s); "
          f"resident memory {rss_kib(daemon.pid) / 1024:.1f} MiB")
    print(f"machine: {os.cpu_count()} CPUs; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")


class MQTTPublisher:
    """Just enough MQTT 3.1.1 to publish at QoS 0: CONNECT, PUBLISH, PINGREQ, DISCONNECT."""

    def __init__(self, host, port, client_id):
        self.sock = socket.create_connection((host, port))
        cid = client_id.encode()
        body = b"\x00\x04MQTT\x04\x02" + struct.pack("!H", 60) + struct.pack("!H", len(cid)) + cid
        self.sock.sendall(b"\x10" + self.length(len(body)) + body)
        ack = self.sock.recv(4)
        if len(ack) < 4 or ack[0] != 0x20 or ack[3] != 0:
            sys.exit(f"the broker refused the publisher: {ack!r}")
        self.last = time.monotonic()

    @staticmethod
    def length(n):
        out = bytearray()
        while True:
            byte, n = n % 128, n // 128
            out.append(byte | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def publish(self, topic, payload):
        t = topic.encode()
        body = struct.pack("!H", len(t)) + t + payload
        self.sock.sendall(b"\x30" + self.length(len(body)) + body)
        if time.monotonic() - self.last > 30:
            self.sock.sendall(b"\xc0\x00")  # PINGREQ; the PINGRESP is left unread
            self.last = time.monotonic()

    def close(self):
        self.sock.sendall(b"\xe0\x00")
        self.sock.close()










def wait_for_port(port, process):
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit("mosquitto did not start")
            time.sleep(0.05)


def wait_for_line(path, text, process):
    deadline = time.monotonic() + 60
    while True:
        with open(path) as f:
            if text in f.read():
                return
        if time.monotonic() > deadline or process.poll() is not None:
            sys.exit(f"weatherd did not say {text!r}; its log:\n" + open(path).read())
        time.sleep(0.1)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    main()
