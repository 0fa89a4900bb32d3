#!/usr/bin/env python3
"""Map-event benchmark (`make bench`): a user's drag of the real map page to the grid's markers on it.

Starts owm-replay (fixed upstream latency) and the release weatherd with its web listener on a free
port (the URL from its `map page at` log line), opens the map page in Debian's headless Chromium, and
drags the map with the mouse (W3C pointer actions: press, move, hold still, release, so Leaflet adds
no inertia and the page sends its region on the release) around a square of 4 map positions. One
lap first warms the cache with every grid; then each of ITERATIONS drags goes to the next position,
far enough from the last (more than a tenth of the span) to start a search, whose grid is then all
cache hits (owm-replay's request count is printed: 0 when it is so). Measured in the page, with
performance.now():

  release        the mouse button's release (the event's timeStamp)
  region sent    the page's WebSocket send of the `region` request (on Leaflet's moveend)
  overlays in    the overlays notification with that grid reaching the page's message handler
  markers in DOM the page's handler returned: every feature of the collection is a marker element
  next frame     the first animation frame after that (the markers painted, give or take)

Each figure is printed beyond region.debounce (the daemon's effective configuration, read with
`weatherd --check-config`; --debounce sets it), as p50/p90/max/min. The floor is measured in the same
run on the same page and WebSocket: the round trip of a `version` request after each grid landed,
once at once and once after the debounce's time idle, and the `region` request's own round trip
(its reply waits for the page to finish redrawing the move). The split says where the time goes: a
watcher on the daemon's Unix socket and one on its WebSocket (outside the browser) timestamp each
overlays notification as the daemon sends it (wall clock, matched to the page's clock by reading
both; the match's uncertainty is printed), and the page's frame for the `state` notification that
precedes the overlays is timed (requestAnimationFrame, then the next task).

The page is not changed: the probe is a script the benchmark adds to the page through the DevTools
protocol (Page.addScriptToEvaluateOnNewDocument) before it loads. It wraps WebSocket's send and its
`message` listeners to take timestamps, listens for the mouse release, asks for animation frames
after the notifications, and sends the floor's `version` requests, whose string ids the page's own
handler ignores. Nothing is asserted: every number comes from this run; rerun it to compare. Run it
with the browser venv's Python (scripts/browser-venv.sh prints it), e.g.
  "$(scripts/browser-venv.sh)" scripts/bench-map.py --bin-dir .build/release
"""
import argparse, json, os, platform, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time
import tomllib, urllib.request
from pathlib import Path

os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never download anything

import websocket  # noqa: E402  (websocket-client, which Selenium needs, in the browser venv)
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# The probe: timestamps only; the page's behaviour is unchanged (see the docstring).
PROBE = r"""
(() => {
  'use strict';
  const probe = { sends: [], messages: [], releases: [], socket: null, wake: null, pings: new Map(), nextPing: 1 };
  Object.defineProperty(window, '__mapBench', { value: probe });
  const WS = window.WebSocket;
  const nativeSend = WS.prototype.send;
  const nativeAdd = EventTarget.prototype.addEventListener;
  const wake = () => { const w = probe.wake; probe.wake = null; if (w) w(); };
  WS.prototype.send = function (data) {
    const t = performance.now();
    probe.socket = this;
    if (typeof data === 'string' && data.length < 4096) {
      try {
        const m = JSON.parse(data);
        if (m && typeof m.method === 'string') {
          const rec = { t, method: m.method, id: m.id === undefined ? null : m.id, params: m.method === 'region' ? m.params : null };
          probe.sends.push(rec);
          // When the page's main thread is next free: the rest of the move's work (redrawing) done.
          if (m.method === 'region') setTimeout(() => { rec.free = performance.now(); }, 0);
        }
      } catch (e) { /* not ours to judge */ }
    }
    return nativeSend.call(this, data);
  };
  WS.prototype.addEventListener = function (type, listener, options) {
    if (type !== 'message' || typeof listener !== 'function') return nativeAdd.call(this, type, listener, options);
    return nativeAdd.call(this, type, function (event) {
      const start = performance.now();
      try { return listener.apply(this, arguments); } finally { note(event, start, performance.now()); }
    }, options);
  };
  function note(event, start, end) {
    if (typeof event.data !== 'string') return;
    let m;
    try { m = JSON.parse(event.data); } catch (e) { return; }
    if (Array.isArray(m) || !m) return;
    const rec = { created: event.timeStamp, start, end, method: m.method || null, id: m.id === undefined ? null : m.id };
    if (typeof m.id === 'string' && probe.pings.has(m.id)) {
      const resolve = probe.pings.get(m.id);
      probe.pings.delete(m.id);
      resolve(start);
      return;
    }
    if ((m.method === 'overlays' || m.method === 'overlays.diff') && m.params) {
      // The page has handled it (this runs after its listener): the markers in the DOM are its result.
      const shown = [...document.querySelectorAll('[data-testid="feature"]')];
      const drawn = new Set(shown.map((e) => e.dataset.featureId));
      const sent = m.method === 'overlays'
        ? (Array.isArray(m.params.features) ? m.params.features : [])
        : [].concat(Array.isArray(m.params.added) ? m.params.added : [], Array.isArray(m.params.changed) ? m.params.changed : []);
      rec.method = 'overlays';
      rec.diff = m.method === 'overlays.diff';
      rec.seq = m.params.seq;
      rec.features = shown.length;
      rec.grid = shown.filter((e) => e.dataset.source === 'region' || e.dataset.source === 'around').length;
      rec.drawn = sent.every((f) => f && drawn.has(String(f.id)));
      rec.bytes = event.data.length;
      requestAnimationFrame(() => { rec.frame = performance.now(); wake(); });
    }
    if (m.method === 'state') {
      // The frame the page draws for it: its start (animation frame callbacks) and end (the next task).
      requestAnimationFrame(() => { rec.frame = performance.now(); setTimeout(() => { rec.frameDone = performance.now(); }, 0); });
    }
    probe.messages.push(rec);
    if (rec.method !== 'overlays') wake();
  }
  // The floor: a version request on the page's own socket, with an id the page does not know.
  probe.ping = () => new Promise((resolve) => {
    const id = 'bench-' + probe.nextPing++;
    const sent = performance.now();
    probe.pings.set(id, (received) => resolve(received - sent));
    nativeSend.call(probe.socket, JSON.stringify({ jsonrpc: '2.0', id: id, method: 'version', params: {} }));
  });
  probe.pingAfter = (ms) => new Promise((resolve) => setTimeout(() => probe.ping().then(resolve), ms));
  for (const type of ['pointerup', 'mouseup']) {
    window.addEventListener(type, (e) => probe.releases.push({ type, stamp: e.timeStamp, t: performance.now() }), { capture: true });
  }
})();
"""

# Waits in the page (no polling from here, which would take the page's main thread) until an
# overlays notification newer than SEQ has been handled and its frame drawn; returns its record.
WAIT_OVERLAYS = r"""
const seq = arguments[0], done = arguments[arguments.length - 1], probe = window.__mapBench;
const check = () => {
  const m = probe.messages.find((r) => r.method === 'overlays' && r.seq > seq && r.frame !== undefined);
  if (m) done(m); else probe.wake = check;
};
check();
"""

# A spot on the map to press, free of markers, controls, popups and the panel, from which the
# drag (dx, dy) stays on the map.
FREE_SPOT = r"""
const dx = arguments[0], dy = arguments[1];
const map = document.querySelector('[data-testid="map"]').getBoundingClientRect();
for (const fy of [0.55, 0.45, 0.6, 0.4, 0.65, 0.35, 0.7, 0.3]) {
  for (const fx of [0.65, 0.6, 0.7, 0.55, 0.75, 0.5, 0.8]) {
    const x = Math.round(map.left + map.width * fx), y = Math.round(map.top + map.height * fy);
    const inside = (px, py) => px > map.left + 10 && px < map.right - 10 && py > map.top + 10 && py < map.bottom - 10;
    if (!inside(x, y) || !inside(x + dx, y + dy)) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit.closest('[data-testid="map"]') &&
        !hit.closest('.leaflet-marker-icon, .leaflet-popup, .leaflet-control, .panel')) return [x, y];
  }
}
return null;
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", default=str(ROOT / ".build" / "release"))
    p.add_argument("--iterations", type=int, default=40, help="measured drags (default 40)")
    p.add_argument("--debounce", help='region.debounce to configure, e.g. "250ms" (default: the daemon\'s default)')
    p.add_argument("--latency-ms", type=int, default=50, help="upstream latency of owm-replay (only the warm-up lap pays it)")
    p.add_argument("--drag", type=int, nargs=2, default=(300, 220), metavar=("DX", "DY"),
                   help="pixels of each drag: the square's sides (default 300 220)")
    p.add_argument("--window", type=int, nargs=2, default=(1280, 860), metavar=("W", "H"))
    p.add_argument("--chromium", default=os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium"))
    p.add_argument("--chromedriver", default=os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    p.add_argument("--json", help="also write every sample to this file")
    args = p.parse_args()
    bench = Bench(args)
    try:
        bench.start()
        bench.run()
    finally:
        bench.stop()
    bench.report()


class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = Path(args.bin_dir)
        self.tmp = Path(tempfile.mkdtemp(prefix="wd-mapbench-"))
        self.replay = self.daemon = self.driver = self.watcher = None
        self.notified = {}  # overlays seq -> wall clock time the Unix socket watcher read it
        self.ws_notified = {}  # the same for the WebSocket watcher
        self.ws_watcher = None
        self.samples, self.pings, self.idle_pings, self.warmup = [], [], [], []
        self.load = [os.getloadavg()]

    # ------------------------------------------------------------ processes

    def start(self):
        for name in ("weatherd", "owm-replay"):
            if not (self.bin / name).is_file():
                sys.exit(f"bench-map: {self.bin / name} not found: build first (swift build -c release)")
        self.replay = subprocess.Popen(
            [str(self.bin / "owm-replay"), "--port", "0", "--data", str(ROOT / "demo" / "owm"),
             "--delay", f"*={self.args.latency_ms}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
        self.owm = self.replay.stdout.readline().strip().split("listening on ")[1]
        sock = self.tmp / "w.sock"
        self.socket_path = sock
        debounce = f'debounce = "{self.args.debounce}"\n' if self.args.debounce else ""
        config = self.tmp / "weatherd.toml"
        config.write_text(
            'cities = ["London,GB", "Paris,FR", "Berlin,DE"]\nrefresh = "1h"\n'
            f'[openweathermap]\nbase_url = "{self.owm}"\napi_key = "bench"\nrequests_per_minute = 6000\n'
            f'[air-quality]\nbase_url = "{self.owm}"\n'
            f'[socket]\npath = "{sock}"\n[gpsd]\nenabled = false\n[state]\ndirectory = "{self.tmp}/state"\n'
            f'[region]\n{debounce}[web]\nlisten = "127.0.0.1:0"\n')
        env = {k: v for k, v in os.environ.items() if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY")}
        checked = subprocess.run([str(self.bin / "weatherd"), "--check-config", "--config", str(config)],
                                 capture_output=True, text=True, env=env)
        if checked.returncode != 0:
            sys.exit("bench-map: the configuration was refused:\n" + checked.stdout + checked.stderr)
        effective = tomllib.loads(checked.stdout)
        self.debounce_text = effective["region"]["debounce"]
        self.debounce_ms = duration_ms(self.debounce_text)
        self.around = effective["region"]["around"]
        self.cache_ttl = effective["weather"]["cache_ttl"]
        self.log_path = self.tmp / "weatherd.log"
        self.log = open(self.log_path, "w")
        self.daemon = subprocess.Popen([str(self.bin / "weatherd"), "--config", str(config), "--log-level", "notice"],
                                       stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 15
        while True:
            found = re.search(r"map page at (http://\S+/)", self.log_path.read_text())
            if found and sock.exists():
                self.url = found.group(1)
                break
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                sys.exit("bench-map: weatherd did not start:\n" + self.log_path.read_text())
            time.sleep(0.02)
        self.start_watcher()
        options = webdriver.ChromeOptions()
        options.binary_location = self.args.chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--window-size={self.args.window[0]},{self.args.window[1]}", "--lang=en-GB",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         "--disable-default-apps", "--disable-sync", "--force-color-profile=srgb"):
            options.add_argument(argument)
        self.driver = webdriver.Chrome(service=Service(executable_path=self.args.chromedriver), options=options)
        self.driver.set_window_size(*self.args.window)
        self.driver.set_script_timeout(30)
        self.browser_version = self.driver.capabilities.get("browserVersion", "?")

    def start_watcher(self):
        """Timestamps each overlays notification as the daemon sends it, on its Unix socket."""
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(self.socket_path))
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"watch","params":{"replay":false,"topics":["overlays"]}}\n')
        reader = s.makefile("rb")
        reader.readline()  # the watch reply
        self.watcher = s

        def read():
            for line in reader:
                t = time.time()
                # Only the seq is wanted: no full parse before the timestamp is taken.
                found = re.search(rb'"seq":(\d+)', line)
                if found:
                    self.notified[int(found.group(1))] = t
        threading.Thread(target=read, daemon=True).start()

        # The same over a WebSocket of the web listener, as the page gets it but outside the browser.
        ws = websocket.create_connection(self.url.replace("http://", "ws://", 1) + "ws", timeout=10)
        ws.send('{"jsonrpc":"2.0","id":1,"method":"watch","params":{"replay":false,"topics":["overlays"]}}')
        ws.recv()  # the watch reply
        ws.settimeout(None)
        self.ws_watcher = ws

        def read_ws():
            try:
                while True:
                    message = ws.recv()
                    t = time.time()
                    found = re.search(r'"seq":(\d+)', message)
                    if found:
                        self.ws_notified[int(found.group(1))] = t
            except Exception:  # closed at the end
                pass
        threading.Thread(target=read_ws, daemon=True).start()

    def stop(self):
        if self.driver is not None:
            try:
                self.driver.quit()
            except Exception:
                pass
        for watcher in (self.watcher, self.ws_watcher):
            if watcher is not None:
                watcher.close()
        for process in (self.daemon, self.replay):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------ the run

    def run(self):
        d = self.driver
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        d.get(self.url)
        self.wait_for(lambda: d.execute_script(
            "return document.querySelector('[data-testid=\"connection\"]').dataset.connected === 'true' &&"
            " document.querySelectorAll('[data-testid=\"feature\"]').length >= 3 &&"
            " document.querySelector('[data-testid=\"map\"]').dataset.moving === 'false';"), "the page and its cities")
        time.sleep(0.5)  # the initial view settles; the page sent no region for it
        self.zoom = d.execute_script("return document.querySelector('[data-testid=\"map\"]').dataset.zoom;")
        offset_before, error_before = self.calibrate()
        dx, dy = self.args.drag
        square = [(dx, 0), (0, dy), (-dx, 0), (0, -dy)]
        # The warm-up lap: every position of the square once, each grid looked up upstream.
        for i, move in enumerate(square):
            self.warmup.append(self.drag_and_wait(move, f"warm-up {i + 1}"))
        self.requests_before = stats(self.owm)
        self.cpu_before = cpu_seconds(self.daemon.pid)
        for i in range(self.args.iterations):
            self.samples.append(self.drag_and_wait(square[i % len(square)], f"drag {i + 1}"))
            self.pings.append(d.execute_async_script(
                "window.__mapBench.ping().then(arguments[arguments.length - 1]);"))
            # The same after the page and the daemon sat idle for the debounce, as the overlays find them.
            self.idle_pings.append(d.execute_async_script(
                "window.__mapBench.pingAfter(arguments[0]).then(arguments[arguments.length - 1]);", self.debounce_ms))
        self.cpu_after = cpu_seconds(self.daemon.pid)
        self.requests_after = stats(self.owm)
        offset_after, error_after = self.calibrate()
        self.clock_offset = (offset_before + offset_after) / 2
        self.clock_error = max(error_before, error_after) + abs(offset_after - offset_before) / 2
        for x in self.samples:
            epoch = self.notified.get(x["seq"])
            x["notified"] = epoch * 1000 - self.clock_offset if epoch else None
            epoch = self.ws_notified.get(x["seq"])
            x["ws_notified"] = epoch * 1000 - self.clock_offset if epoch else None
        self.load.append(os.getloadavg())

    def drag_and_wait(self, move, what):
        d = self.driver
        seq = d.execute_script(
            "const m = window.__mapBench.messages.filter((r) => r.method === 'overlays');"
            " return m.length ? m[m.length - 1].seq : -1;")
        sends = d.execute_script("return window.__mapBench.sends.length;")
        dx, dy = move
        spot = d.execute_script(FREE_SPOT, dx, dy)
        if not spot:
            sys.exit(f"bench-map: {what}: no free spot on the map to press")
        x, y = spot
        # Pressed and moved to whole pixels of the viewport, in steps of the same sizes whichever the
        # direction (Leaflet's drag starts at the first move, which the map does not follow), so
        # opposite drags cancel out and a lap ends where it began: the same grids, cache hits.
        actions = ActionBuilder(d, mouse=PointerInput(interaction.POINTER_MOUSE, "mouse"), duration=16)
        pointer = actions.pointer_action
        pointer.move_to_location(x, y).pointer_down()
        steps = 8
        part = lambda v, i: (1 if v >= 0 else -1) * (abs(v) * i // steps)  # noqa: E731
        for i in range(1, steps + 1):
            pointer.move_to_location(x + part(dx, i), y + part(dy, i))
        pointer.pause(0.12)  # held still before the release: Leaflet adds no inertia, moveend comes on the release
        pointer.pointer_up()
        actions.perform()
        overlays = d.execute_async_script(WAIT_OVERLAYS, seq)
        probe = d.execute_script(
            "const p = window.__mapBench; return {sends: p.sends.slice(arguments[0]), releases: p.releases.slice(-4),"
            " messages: p.messages.slice(-12)};", sends)
        regions = [s for s in probe["sends"] if s["method"] == "region"]
        if len(regions) != 1:
            sys.exit(f"bench-map: {what}: the drag sent {len(regions)} region requests, not one")
        region = regions[0]
        if overlays["grid"] == 0 or not overlays["drawn"]:
            sys.exit(f"bench-map: {what}: the overlays after the drag had no grid or were not drawn: {overlays}")
        releases = [r for r in probe["releases"] if r["t"] <= region["t"]]
        release = releases[-1]["stamp"] if releases else region["t"]
        reply = next((m for m in probe["messages"] if m["method"] is None and m["id"] == region["id"]), None)
        self.wait_notified(overlays["seq"])
        return {
            "release": release, "sent": region["t"], "created": overlays["created"], "start": overlays["start"],
            "end": overlays["end"], "frame": overlays["frame"], "seq": overlays["seq"], "previous_seq": seq,
            "features": overlays["features"], "grid": overlays["grid"], "bytes": overlays["bytes"],
            "reply": reply["start"] - region["t"] if reply else None,
            "free": region["free"] - region["t"] if region.get("free") is not None else None,
            # What else the page received between its region request and the overlays (relative to the send).
            "between": [{"method": m["method"], "id": m["id"], "created": m["created"] - region["t"],
                         "start": m["start"] - region["t"], "end": m["end"] - region["t"],
                         "frame": m["frame"] - region["t"] if m.get("frame") is not None else None,
                         "frameDone": m["frameDone"] - region["t"] if m.get("frameDone") is not None else None}
                        for m in probe["messages"] if region["t"] < m["start"] and m["start"] < overlays["start"]],
                        "region": region["params"],
        }

    def wait_notified(self, seq):
        deadline = time.monotonic() + 2
        while seq not in self.notified and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.notified.get(seq)

    def calibrate(self):
        """The page's clock against the wall clock: (epoch ms - page ms, uncertainty in ms), from the
        tightest of 15 reads of performance.now() bracketed by two reads of the wall clock."""
        best = None
        for _ in range(15):
            before = time.time()
            page = self.driver.execute_script("return performance.now();")
            after = time.time()
            offset = (before + after) / 2 * 1000 - page
            half = (after - before) / 2 * 1000
            if best is None or half < best[1]:
                best = (offset, half)
        return best

    def wait_for(self, condition, what, timeout=30):
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                sys.exit(f"bench-map: timed out waiting for {what}\n" + self.log_path.read_text()[-2000:])
            time.sleep(0.05)

    # ------------------------------------------------------------ the report

    def report(self):
        s, D = self.samples, self.debounce_ms
        if not s:
            return
        rows = [
            ("release -> markers in DOM", [x["end"] - x["release"] - D for x in s]),
            ("release -> next frame", [x["frame"] - x["release"] - D for x in s]),
            ("region sent -> overlays in", [x["created"] - x["sent"] - D for x in s]),
            ("region sent -> markers in DOM", [x["end"] - x["sent"] - D for x in s]),
        ]
        floor = [
            ("version round trip", self.pings),
            (f"version round trip after {self.debounce_text} idle", self.idle_pings),
            ("region request round trip (page redrawing the move)", [x["reply"] for x in s if x["reply"] is not None]),
        ]
        # Where the time goes, in the order it goes.
        split = [("release -> region sent (Leaflet's moveend)", [x["sent"] - x["release"] for x in s]),
                 ("region sent -> page's main thread free (the move)", [x["free"] for x in s if x["free"] is not None])]
        timed = all(x["notified"] is not None for x in s)
        if timed:
            split.append(("region sent -> daemon notifies, beyond debounce", [x["notified"] - x["sent"] - D for x in s]))
            if all(x["ws_notified"] is not None for x in s):
                split.append(("daemon notifies -> a WebSocket client outside Chromium",
                              [x["ws_notified"] - x["notified"] for x in s]))
            split.append(("daemon notifies -> overlays in (page)", [x["created"] - x["notified"] for x in s]))
        # The `state` notification the daemon sends first (a search running) makes the page draw a
        # frame; the overlays that arrive meanwhile wait for it.
        firsts = []
        for x in s:
            m = next((m for m in x["between"] if m["method"] == "state" and m.get("frameDone") is not None), None)
            if m:
                firsts.append((x["created"] - x["sent"], m))
        if firsts:
            split.append(("page's frame for the state before it (start -> end)",
                          [m["frameDone"] - m["frame"] for _, m in firsts]))
        split.append(("overlays in -> markers in DOM (page)", [x["end"] - x["created"] for x in s]))
        requests = self.requests_after - self.requests_before
        cpu = (self.cpu_after - self.cpu_before) * 1000 / len(s)
        print()
        print(f"map event: drag -> overlays -> markers, {len(s)} drags around 4 map positions (zoom {self.zoom},"
              f" around {self.around}: grids of {s[0]['grid']} features, {s[0]['features']} in all,"
              f" {s[0]['bytes']} bytes), region.debounce {self.debounce_text} subtracted")
        print(f"  machine: {machine()}; load average {fmt_load(self.load[0])} before, {fmt_load(self.load[-1])} after")
        print(f"  Chromium {self.browser_version} headless; binaries in {self.bin}; upstream requests during the drags:"
              f" {requests} (cache_ttl {self.cache_ttl}; 0 = every grid from the cache); daemon CPU {cpu:.1f} ms per drag")
        print(f"  {'':<55} {'p50':>8} {'p90':>8} {'max':>8} {'min':>8}")
        for title, table in (("beyond the debounce", rows), ("floor (same page, same WebSocket)", floor), ("split", split)):
            print("  " + title)
            for name, values in table:
                print(line(name, values))
        if timed:
            print(f"  (daemon notifies: the overlays notification read on its Unix socket here; clocks matched to"
                  f" ±{self.clock_error:.1f} ms)")
        if firsts:
            waited = sum(1 for created, m in firsts if m["frame"] <= created <= m["frameDone"] + 1)
            print(f"  (overlays that reached the page while or just after it drew the state's frame: {waited} of {len(firsts)})")
        if self.args.json:
            Path(self.args.json).write_text(json.dumps({
                "debounce_ms": D, "samples": s, "pings": self.pings, "idle_pings": self.idle_pings,
                "warmup": self.warmup, "load": self.load, "upstream_requests": requests}, indent=1))


def line(name, values):
    if not values:
        return f"  {name:<55} {'-':>8}"
    v = sorted(values)
    return f"  {name:<55} " + " ".join(f"{x:>5.1f} ms" for x in (pct(v, 50), pct(v, 90), v[-1], v[0]))


def pct(sorted_values, p):
    """Nearest-rank percentile."""
    k = max(0, min(len(sorted_values) - 1, -(-p * len(sorted_values) // 100) - 1))
    return sorted_values[k]


def duration_ms(text):
    total = 0.0
    for number, unit in re.findall(r"([\d.]+)\s*(ms|us|µs|ns|s|m|h)", text):
        total += float(number) * {"h": 3600e3, "m": 60e3, "s": 1e3, "ms": 1, "us": 1e-3, "µs": 1e-3, "ns": 1e-6}[unit]
    return total


def stats(base):
    with urllib.request.urlopen(base + "/_stats", timeout=5) as r:
        return json.load(r)["requests"]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine():
    model = "?"
    try:
        for row in open("/proc/cpuinfo"):
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()}"


def fmt_load(load):
    return " ".join(f"{x:.2f}" for x in load)


if __name__ == "__main__":
    main()
