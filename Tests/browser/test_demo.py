"""The page `make run` shows: scripts/run-demo.sh itself (owm-replay with the recorded answers moved to
now, gpsfake, weatherd), opened as a newcomer opens it. The page says the weather is sample data, the
popups' observations are current and their charts full, and its screenshot is the README's picture
(Tests/browser/artifacts/demo-map.png, copied to docs/map.png)."""

import json
import os
import re
import signal
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import BIN_DIR, ROOT, Page, free_port, wait_until


class Demo:
    """scripts/run-demo.sh in a session of its own, its run directory in a temporary one."""

    def __init__(self, workdir):
        self.web_port = free_port()
        self.log_path = Path(workdir) / "demo.log"
        self.log = open(self.log_path, "w")
        environment = dict(os.environ, WEATHERD_BIN_DIR=str(BIN_DIR), WEATHERD_DEMO_DIR=str(Path(workdir) / "run"),
                           WEATHERD_DEMO_GPSD_PORT=str(free_port()), WEATHERD_DEMO_WEB_PORT=str(self.web_port))
        environment.pop("OWM_API_KEY", None)
        self.process = subprocess.Popen(["bash", str(ROOT / "scripts" / "run-demo.sh")], cwd=ROOT, env=environment,
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.url = f"http://127.0.0.1:{self.web_port}/"
        # The daemon's own log line: the demo's banner names "map page at" too, before the daemon is up.
        wait_until(lambda: self.process.poll() is None and "weatherd: map page at http" in self.log_path.read_text(),
                   timeout=60, what="the demo to serve the map")

    def get(self, path):
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=5) as response:
            return json.load(response)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


@pytest.fixture
def demo():
    with tempfile.TemporaryDirectory(prefix="wd-demo-") as workdir:
        running = Demo(workdir)
        yield running
        running.stop()


@pytest.fixture
def demo_page(browser, demo):
    page = Page(browser, demo)
    yield page
    browser.get("about:blank")


def test_the_demo_page_says_sample_data_and_its_popups_are_current(demo_page, demo):
    page = demo_page.open()
    cities = ("Seoul", "London", "Enschede", "Norman")
    page.wait(lambda d: len(page.features()) == len(cities), "the four watched cities on the map")
    # Norman, OK is under the stand-in's (made-up) severe thunderstorm warning: its area, the legend, the NWS credited.
    page.wait(lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, '[data-testid="alert-area"]')
                         if e.get_attribute("data-severity") == "severe"], "the warning's area around Norman")
    assert page.find("alert-legend").is_displayed()
    credits = page.find("attribution")
    page.wait(lambda d: credits.find_element(By.CSS_SELECTOR, ".sample-credit").get_attribute("data-sample") == "true",
              "the sample data credit")
    assert "Sample data (offline demo), not real weather" in credits.text
    page.wait(lambda d: "Alerts by the US National Weather Service" in credits.text, "the NWS credit")
    # Both providers: OpenWeatherMap's stand-in fails for Enschede, so Open-Meteo answers it.
    page.wait(lambda d: "open-meteo" in credits.find_element(By.CSS_SELECTOR, ".weather-credits")
              .get_attribute("data-providers"), "the Open-Meteo credit")

    features = demo.get("overlays.geojson")["features"]
    london = next(f for f in features if f["properties"]["name"] == "London")
    page.driver.find_element(By.CSS_SELECTOR, f'[data-testid="feature"][data-feature-id="{london["id"]}"]').click()
    chart = page.wait(lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content [data-testid='forecast-chart']")
                                 if e.is_displayed()], "the forecast chart in London's popup")[0]
    # The chart holds the whole 48 hours (3-hour or hourly steps), not one old step.
    steps, step = int(chart.get_attribute("data-steps")), int(chart.get_attribute("data-step"))
    assert steps * step >= 45 * 3600, (steps, step)
    popup = page.driver.find_element(By.CSS_SELECTOR, ".leaflet-popup-content").text
    observed = re.search(r"Observed\s+(.+)", popup).group(1)
    assert "day" not in observed and ("minute" in observed or "second" in observed or "now" in observed), observed
    # The demo's air quality (owm-replay's /v1/air-quality): in the popup, its band in words, and CAMS credited.
    badge = page.driver.find_element(By.CSS_SELECTOR, ".leaflet-popup-content [data-testid='air-quality']")
    assert badge.get_attribute("data-aqi").isdigit() and badge.get_attribute("data-band") in badge.text
    assert "Copernicus Atmosphere Monitoring Service (CAMS)" in credits.text
    page.screenshot("demo-map.png")
