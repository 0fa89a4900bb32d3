"""The locate button: the daemon's fused location first; without one, the browser's position (the
DevTools protocol's geolocation override stands in for the device), reported with location.report as the
browser's and searched with locate and max_age; where the position came from is said in words
(data-testid="location-source"), and so is a denial or a report the daemon did not take. axe-core finds no
violation in each of these states."""

from selenium.webdriver.common.by import By

from test_accessibility import assert_no_violations, wait_popup_settled
from test_map_page import at, near, owm_id, wait_cities_settled
from test_metrics import scrape, value

HAMILTON = (-37.7848, 175.3149)  # owm-replay answers the recorded Hamilton, NZ (owm:2190324) here

# Installed before the page's script: what the page sends on its WebSocket, and how often it asks the
# browser for its position.
RECORD = """
  window.__sent = [];
  window.__asked = 0;
  const nativeSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    try { window.__sent.push(JSON.parse(data)); } catch (err) { /* not ours to judge */ }
    return nativeSend.call(this, data);
  };
  if (navigator.geolocation) {
    const ask = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
    navigator.geolocation.getCurrentPosition = (...args) => { window.__asked++; return ask(...args); };
  }
"""


def open_recorded(page):
    page.open(script=RECORD)
    wait_cities_settled(page)
    return page


def sent(page, method):
    """The params of each request of `method` the page sent."""
    return [m.get("params") for m in page.driver.execute_script("return window.__sent") if m.get("method") == method]


def asked(page):
    return page.driver.execute_script("return window.__asked")


def location_source(page):
    """The location-source line once it is shown: (its text, its data-source)."""
    line = page.wait(lambda d: (e := page.find("location-source")).is_displayed() and e.text and e,
                     "the location-source line")
    return line.text, line.get_attribute("data-source")


def notice(page, words):
    return page.wait(lambda d: [e for e in d.find_elements(By.ID, "notice")
                                if e.is_displayed() and words in e.text], f"the notice saying {words!r}")[0]


def client_fixes(daemon):
    """weatherd_location_fixes_total of the client kind (the page's reports): (accepted, refused)."""
    _, samples = scrape(daemon)
    return tuple(value(samples, "weatherd_location_fixes_total", source="client", accepted=a) for a in ("true", "false"))


def test_without_a_fix_the_browser_position_is_reported_searched_and_named(page, geolocation):
    geolocation.allow(page.daemon, *HAMILTON, accuracy=40)
    open_recorded(page)
    page.find("locate-button").click()
    text, source = location_source(page)
    assert "from your browser" in text and "±40 m" in text, text
    assert source == "browser"

    # Reported as the browser's, then located with max_age.
    [report] = sent(page, "location.report")
    assert report["source"] == "browser" and report["horizontal_error"] == 40, report
    assert near((report["lat"], report["lon"]), HAMILTON, 1e-6) and report["at"].endswith("Z"), report
    [locate] = sent(page, "locate")
    assert locate["max_age"] > 0, locate
    assert asked(page) == 1
    location = page.daemon.rpc("state")["location"]
    assert location["source"] == "browser" and location["horizontal_error"] == 40, location

    # The search landed there: Hamilton as the located feature, the map flown to it.
    page.wait(lambda d: page.features().get(owm_id("Hamilton")) == "location", "the Hamilton marker")
    page.wait(lambda d: page.settled() and at(page, HAMILTON), "the map at Hamilton")
    assert client_fixes(page.daemon) == (1, 0)
    assert not page.driver.find_element(By.ID, "notice").is_displayed()
    wait_popup_settled(page, "Hamilton")  # the result's popup, faded in
    assert_no_violations(page, "located by the browser")


def test_a_denied_position_is_said_in_words_and_nothing_is_reported(page, geolocation):
    geolocation.deny(page.daemon)
    open_recorded(page)
    page.find("locate-button").click()
    said = notice(page, "permission denied")
    assert "did not share your position" in said.text
    assert said.get_attribute("role") == "alert"
    page.wait(lambda d: page.find("locate-button").get_attribute("aria-busy") == "false", "the button to be free again")
    assert asked(page) == 1
    assert sent(page, "location.report") == [] and sent(page, "locate") == []
    assert page.daemon.rpc("state")["location"] is None
    assert client_fixes(page.daemon) == (0, 0)
    assert not page.find("location-source").is_displayed()
    assert_no_violations(page, "browser position denied")


def test_a_fix_of_the_daemon_is_used_without_asking_the_browser(page, geolocation):
    # The browser would refuse: a page that asked it would say so instead of locating.
    geolocation.deny(page.daemon)
    page.daemon.rpc("location.report", {"lat": HAMILTON[0], "lon": HAMILTON[1], "horizontal_error": 15})
    open_recorded(page)
    page.find("locate-button").click()
    text, source = location_source(page)
    assert text == "Position from a client, ±15 m" and source == "client", text
    page.wait(lambda d: page.features().get(owm_id("Hamilton")) == "location", "the Hamilton marker")
    assert asked(page) == 0
    assert sent(page, "location.report") == []
    [locate] = sent(page, "locate")
    assert locate["max_age"] > 0, locate
    assert client_fixes(page.daemon) == (1, 0)  # the test's own report, nothing from the page
    wait_popup_settled(page, "Hamilton")
    assert_no_violations(page, "located by the daemon")


def test_a_position_the_daemon_does_not_take_is_said_with_its_reason(page, geolocation):
    # Coarser than location.report_max_horizontal_error (5000 m).
    geolocation.allow(page.daemon, *HAMILTON, accuracy=25000)
    open_recorded(page)
    page.find("locate-button").click()
    said = notice(page, "not used")
    assert "±25 km is too coarse" in said.text, said.text
    page.wait(lambda d: page.find("locate-button").get_attribute("aria-busy") == "false", "the button to be free again")
    assert len(sent(page, "location.report")) == 1 and sent(page, "locate") == []
    assert page.daemon.rpc("state")["location"] is None
    assert client_fixes(page.daemon) == (0, 1)
    assert_no_violations(page, "browser position refused by the daemon")


def test_a_position_the_browser_cannot_tell_is_said_in_words(page, geolocation):
    geolocation.unavailable(page.daemon)
    open_recorded(page)
    page.find("locate-button").click()
    notice(page, "could not tell your position")
    page.wait(lambda d: page.find("locate-button").get_attribute("aria-busy") == "false", "the button to be free again")
    assert asked(page) == 1 and sent(page, "location.report") == [] and sent(page, "locate") == []
    assert page.daemon.rpc("state")["location"] is None
