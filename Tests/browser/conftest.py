"""Fixtures of the browser tests: owm-replay, the real weatherd with its web listener, headless Chromium.

The daemon and owm-replay are the debug binaries under .build/debug (WEATHERD_BIN_DIR overrides the
directory, WEATHERD_BIN the daemon alone). Chromium and chromedriver are Debian's, given by path, so
Selenium never looks for or downloads a browser or a driver.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")  # belt and braces: Selenium Manager must never download

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("WEATHERD_BIN_DIR", ROOT / ".build" / "debug"))
WEATHERD = Path(os.environ.get("WEATHERD_BIN", BIN_DIR / "weatherd"))
OWM_REPLAY = BIN_DIR / "owm-replay"
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

WAIT = 20  # seconds: the longest any condition is waited for

# A place whose name is markup: owm-replay answers it like any recorded city.
MARKUP_CITY = '<img src=x onerror="window.__xss=1">'
MARKUP_CITY_BODY = {
    "coord": {"lon": -30.0, "lat": 38.5},
    "weather": [{"id": 800, "main": "Clear", "description": "<b>clear</b> sky", "icon": "01d"}],
    "base": "stations",
    "main": {"temp": 19.5, "feels_like": 19.1, "temp_min": 18.0, "temp_max": 21.0,
             "pressure": 1021, "humidity": 70},
    "visibility": 10000,
    "wind": {"speed": 5.1, "deg": 40},
    "clouds": {"all": 0},
    "dt": 1763719200,
    "sys": {"country": "PT"},
    "timezone": 0,
    "id": 9990001,
    "name": MARKUP_CITY,
    "cod": 200,
}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout=WAIT, what="condition"):
    """Polls a condition of the outside world (not the page) until it holds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


# ---------------------------------------------------------------- owm-replay

class OWMReplay:
    def __init__(self, workdir):
        data = Path(workdir) / "owm"
        shutil.copytree(ROOT / "demo" / "owm", data)
        (data / "markup.metric.json").write_text(json.dumps(MARKUP_CITY_BODY))
        self.out = open(Path(workdir) / "owm-replay.out", "w+")
        self.err = open(Path(workdir) / "owm-replay.log", "w")
        self.process = subprocess.Popen(
            [str(OWM_REPLAY), "--port", "0", "--data", str(data)],
            stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)

        def listening():
            assert self.process.poll() is None, "owm-replay exited"
            text = Path(self.out.name).read_text()
            for line in text.splitlines():
                if "listening on " in line:
                    return line.split("listening on ", 1)[1].strip()
            return None
        self.url = wait_until(listening, what="owm-replay to listen")

    def _faults(self, method, query=""):
        request = urllib.request.Request(self.url + "/_faults" + query, method=method)
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    def set_fault(self, city, fault, **params):
        query = urllib.parse.urlencode({"city": city, "fault": fault, **params})
        return self._faults("POST", "?" + query)

    def clear_fault(self, city):
        return self._faults("DELETE", "?" + urllib.parse.urlencode({"city": city}))

    def clear_faults(self):
        return self._faults("DELETE")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def owm():
    for binary in (WEATHERD, OWM_REPLAY):
        assert binary.is_file(), f"{binary} not found: build first (swift build)"
    workdir = tempfile.mkdtemp(prefix="wd-owm-")
    replay = OWMReplay(workdir)
    yield replay
    replay.stop()
    shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------- weatherd

class Daemon:
    def __init__(self, owm_url, cities=("London,GB", "Seoul,KR"), read_only=False, debounce="150ms",
                 tile_url="", tile_attribution="", max_clients=64, providers=("openweathermap",)):
        # A short directory: the socket path must stay under 108 bytes.
        self.dir = Path(tempfile.mkdtemp(prefix="wd-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.socket_path = self.dir / "weatherd.sock"
        self.config = self.dir / "weatherd.toml"
        city_list = ", ".join(json.dumps(c) for c in cities)
        self.config.write_text(f"""\
cities = [{city_list}]
refresh = "10m"

[weather]
providers = [{", ".join(json.dumps(p) for p in providers)}]

[openweathermap]
base_url = "{owm_url}"
api_key = "browser-test"
timeout = "5s"

[open-meteo]
base_url = "{owm_url}"
geocoding_url = "{owm_url}"
timeout = "5s"

[air-quality]
base_url = "{owm_url}"
timeout = "5s"

[alerts]
nws_url = "{owm_url}"
contact = "weatherd-browser-tests@example.invalid"

[socket]
path = "{self.socket_path}"

[gpsd]
enabled = false

[region]
debounce = "{debounce}"
around = 1

[state]
directory = "{self.dir / 'state'}"

[web]
listen = "127.0.0.1:{self.port}"
read_only = {"true" if read_only else "false"}
tile_url = {json.dumps(tile_url)}
tile_attribution = {json.dumps(tile_attribution)}
max_clients = {max_clients}
""")
        self.process = None
        self.log = None
        self.start()

    def start(self):
        assert self.process is None or self.process.poll() is not None
        self.log = open(self.dir / "weatherd.log", "a")
        self.process = subprocess.Popen(
            [str(WEATHERD), "--config", str(self.config), "--log-level", "debug"],
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        wait_until(self._healthy, what=f"weatherd to serve {self.url}healthz")

    def _healthy(self):
        if self.process.poll() is not None:
            raise AssertionError(
                f"weatherd exited with status {self.process.returncode}:\n{self.log_text()}")
        try:
            with urllib.request.urlopen(self.url + "healthz", timeout=1) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def log_text(self):
        try:
            return (self.dir / "weatherd.log").read_text()[-4000:]
        except OSError:
            return ""

    def rpc(self, method, params=None):
        """One JSON-RPC request over the Unix socket; the result, or AssertionError with the error."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(WAIT)
            s.connect(str(self.socket_path))
            s.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                  "params": params or {}}).encode() + b"\n")
            buffer = b""
            while b"\n" not in buffer:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buffer += chunk
        reply = json.loads(buffer.split(b"\n", 1)[0])
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply["result"]

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def make_daemon(owm):
    daemons = []

    def make(**options):
        daemon = Daemon(owm.url, **options)
        daemons.append(daemon)
        return daemon
    yield make
    for daemon in daemons:
        daemon.cleanup()
    owm.clear_faults()


@pytest.fixture
def daemon(make_daemon):
    return make_daemon()


# ---------------------------------------------------------------- the browser

@pytest.fixture(scope="session")
def browser_session():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,860", "--lang=en-GB", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-default-apps", "--disable-sync", "--force-color-profile=srgb"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


@pytest.fixture
def browser(browser_session):
    """The session's browser, its console emptied of what earlier tests logged."""
    browser_session.get_log("browser")
    return browser_session


class Geolocation:
    """The browser's position as a test sets it, through the DevTools protocol: whether a page of the
    daemon may have it (Browser.setPermission: headless Chromium grants it unless told otherwise), and
    where the device is (Emulation.setGeolocationOverride)."""

    def __init__(self, driver):
        self.driver = driver

    def _permit(self, daemon, setting):
        self.driver.execute_cdp_cmd("Browser.setPermission", {
            "permission": {"name": "geolocation"}, "setting": setting, "origin": daemon.url.rstrip("/")})

    def allow(self, daemon, lat, lon, accuracy):
        self._permit(daemon, "granted")
        self.driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                                    {"latitude": lat, "longitude": lon, "accuracy": accuracy})

    def deny(self, daemon):
        self._permit(daemon, "denied")

    def unavailable(self, daemon):
        """Allowed, but the device cannot tell where it is (an override without a position)."""
        self._permit(daemon, "granted")
        self.driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {})

    def reset(self):
        self.driver.execute_cdp_cmd("Emulation.clearGeolocationOverride", {})
        self.driver.execute_cdp_cmd("Browser.resetPermissions", {})


@pytest.fixture
def geolocation(browser):
    """The browser's position for one test; the browser's own again after it."""
    g = Geolocation(browser)
    yield g
    g.reset()


# ---------------------------------------------------------------- what every browser test checks at its end

class Console:
    """What the browser's console logged during one test (the driver hands each entry out once)."""

    def __init__(self):
        self.entries = []

    def take(self, driver):
        self.entries.extend(driver.get_log("browser"))

    def errors(self, allowed=()):
        return [e["message"] for e in self.entries if e["level"] == "SEVERE"
                and not any(re.search(pattern, e["message"]) for pattern in allowed)]


CONSOLE = Console()

# Whether the basemap is drawn where the map shows: with tiles, a loaded tile in view; with the bundled
# Natural Earth outlines (drawn on one canvas, see start in web/map-view.js), drawn pixels in the part
# of that canvas inside the map's box, read from a small copy of it. An empty string when it is drawn,
# else why not; null when the page shows no map.
BASEMAP_PROBLEM = """
  const map = document.querySelector('[data-testid="map"]');
  if (!map) return null;
  const box = map.getBoundingClientRect();
  const inView = (r) => r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom;
  if (map.classList.contains('tiles')) {
    const tiles = [...map.querySelectorAll('.leaflet-tile-pane img.leaflet-tile-loaded')];
    return tiles.some((t) => inView(t.getBoundingClientRect())) ? '' : 'no tile loaded in view';
  }
  if (!map.classList.contains('offline')) return 'no basemap started';
  const canvas = map.querySelector('.leaflet-overlay-pane canvas');
  if (!canvas || !canvas.width || !canvas.height) return 'no basemap canvas';
  const c = canvas.getBoundingClientRect();
  const left = Math.max(c.left, box.left), right = Math.min(c.right, box.right);
  const top = Math.max(c.top, box.top), bottom = Math.min(c.bottom, box.bottom);
  if (right - left < 1 || bottom - top < 1) return 'the basemap canvas is out of view';
  const sx = canvas.width / c.width, sy = canvas.height / c.height;
  const probe = document.createElement('canvas');
  probe.width = probe.height = 64;
  const context = probe.getContext('2d');
  context.drawImage(canvas, (left - c.left) * sx, (top - c.top) * sy, (right - left) * sx, (bottom - top) * sy,
                    0, 0, 64, 64);
  const pixels = context.getImageData(0, 0, 64, 64).data;
  let drawn = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) drawn++;
  return drawn >= 40 ? '' : 'the basemap is blank where the map shows (' + drawn + ' of 4096 probe pixels drawn)';
"""


def basemap_problem(driver, timeout=3):
    """Why the basemap is not drawn (waiting a moment for it: it loads after the page), or None."""
    problem = None

    def drawn(d):
        nonlocal problem
        problem = d.execute_script(BASEMAP_PROBLEM)
        return not problem
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1).until(drawn)
    except TimeoutException:
        return problem
    return None


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "console_errors(*patterns): console errors (regular expressions) this test expects, "
                   "such as a refused WebSocket while it stops the daemon; any other fails it")


@pytest.fixture(autouse=True)
def _console():
    CONSOLE.entries = []
    yield CONSOLE


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Every browser test fails on an error in the console (an uncaught exception, a failed load…)
    and when its page is left without a basemap: the map must never be left blank by a script error."""
    result = yield
    driver = item.funcargs.get("browser")
    if driver is not None:
        CONSOLE.take(driver)
        allowed = [p for mark in item.iter_markers("console_errors") for p in mark.args]
        errors = CONSOLE.errors(allowed)
        assert errors == [], "errors in the browser's console:\n" + "\n".join(errors)
        problem = basemap_problem(driver)
        assert problem is None, f"the map has lost its basemap: {problem}"
    return result


class Page:
    """The map page in the browser, through its data-testid hooks."""

    def __init__(self, driver, daemon):
        self.driver = driver
        self.daemon = daemon

    def open(self, size=(1280, 860), script=None):
        """Opens the page and waits for it to connect; `script` (JavaScript) runs in it before the
        page's own, in this load only."""
        self.driver.set_window_size(*size)
        CONSOLE.take(self.driver)  # the test's pages so far, kept for the check at its end
        added = script and self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": script})
        try:
            self.driver.get(self.daemon.url)
        finally:
            if added:
                self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
        self.wait(lambda d: self.connected(), "the page to connect")
        return self

    def wait(self, condition, what="condition", timeout=WAIT):
        # The page builds lists again when they change: an element found a moment ago may be gone.
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: condition(d), message=f"waiting for {what}")

    def find(self, testid):
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def find_all(self, testid):
        return self.driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def attr(self, testid, name):
        return self.find(testid).get_attribute(name)

    def connected(self):
        return self.attr("connection", "data-connected") == "true"

    def features(self):
        """{feature id: source} of the markers on the page, read in one go."""
        pairs = self.driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=\"feature\"]')]"
            ".map(e => [e.dataset.featureId, e.dataset.source]);")
        assert len(pairs) == len({p[0] for p in pairs}), f"a feature drawn twice: {pairs}"
        return dict(pairs)

    def cities(self):
        """The data-city of each listed watched city, in order, read in one go."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('[data-testid=\"city\"]')].map(e => e.dataset.city);")

    def center(self):
        lat, lon = self.attr("map", "data-center").split(",")
        return float(lat), float(lon)

    def map_data(self, name):
        return self.find("map").get_attribute(f"data-{name}")

    def settled(self):
        """No move of the map under way."""
        return self.map_data("moving") == "false"

    def running(self):
        return self.attr("activity", "data-running") == "true"

    def screenshot(self, name):
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        self.driver.save_screenshot(str(path))
        return path


@pytest.fixture
def page(browser, daemon):
    p = Page(browser, daemon)
    yield p
    # Leave nothing running in the browser for the next test (a reconnecting page, say).
    browser.get("about:blank")


@pytest.fixture
def make_page(browser):
    def make(daemon):
        return Page(browser, daemon)
    yield make
    browser.get("about:blank")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test leaves a screenshot and the daemon's log tail in the artifacts."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    driver = item.funcargs.get("browser")
    if driver is not None:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            driver.save_screenshot(str(ARTIFACTS / f"failed-{item.name}.png"))
            CONSOLE.take(driver)
            (ARTIFACTS / f"failed-{item.name}.console.txt").write_text(
                "\n".join(f"{e['level']} {e['message']}" for e in CONSOLE.entries))
        except Exception:  # the browser may be what failed
            pass
    for name in ("daemon",):
        daemon = item.funcargs.get(name)
        if daemon is not None:
            report.sections.append(("weatherd log (tail)", daemon.log_text()))


def pytest_sessionfinish(session, exitstatus):
    """In CI a skipped browser test is a failure: these tests must run there, not be passed over."""
    if os.environ.get("CI") and exitstatus == 0:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and reporter.stats.get("skipped"):
            session.exitstatus = 1
