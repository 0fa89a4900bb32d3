"""The map page for people who use a keyboard or a screen reader: axe-core finds no violation in any of
the page's states, every control is reached by Tab and shows where the focus is, markers open and close
by keyboard, and state changes are announced through live regions, each once.

axe-core runs through axe-selenium-python, with the axe-core 4 that axe-core-python bundles (both pinned
in Tests/browser/requirements.txt): the axe-core 3.1 bundled with axe-selenium-python knows only the
combobox of WAI-ARIA 1.1 and misreads the search field's ARIA 1.2 one. Every rule runs; none is turned
off, and no finding is excused.
"""

import json
from pathlib import Path

import axe_core_python
import pytest
from axe_selenium_python import Axe
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import ARTIFACTS
from test_map_page import owm_id, search, wait_cities_settled


# ---------------------------------------------------------------- axe

AXE_CORE = str(Path(axe_core_python.__file__).with_name("axe.min.js"))


def assert_no_violations(page, state):
    """Runs axe-core on the page as it is; fails with its report (and leaves the full results in the
    artifacts) when it finds any violation."""
    axe = Axe(page.driver, script_url=AXE_CORE)
    axe.inject()
    results = axe.run()
    assert results["testEngine"]["version"].startswith("4."), results["testEngine"]
    violations = results["violations"]
    if violations:
        ARTIFACTS.mkdir(exist_ok=True)
        slug = "-".join("".join(c if c.isalnum() else " " for c in state).split())
        (ARTIFACTS / f"axe-{slug}.json").write_text(json.dumps(violations, indent=2))
    assert violations == [], f"axe-core, {state}: " + axe.report(violations)


def wait_popup_settled(page, name):
    """A popup of `name` is open, faded in, with its forecast, and the map has stopped moving."""
    return page.wait(lambda d: page.settled() and [
        e for e in d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content")
        if name in e.text and e.find_elements(By.CSS_SELECTOR, "[data-testid='forecast-chart']") and d.execute_script(
            "return getComputedStyle(arguments[0].closest('.leaflet-popup')).opacity", e) == "1"],
        f"the {name} popup with its forecast")[0]


def open_place_suggestions(page, text="Springfield"):
    """The state "suggestions open": text typed into the search field until the place suggestions
    (data-testid="place-suggestions") list at least one place."""
    field = page.find("search-input")
    field.clear()
    field.send_keys(text)
    return page.wait(lambda d: [e for e in page.find_all("place-suggestions") if e.is_displayed()]
                     and page.find_all("place-suggestion"), "the place suggestions")


def test_axe_finds_no_violation_with_the_watched_cities_drawn(page):
    page.open()
    wait_cities_settled(page)
    page.wait(lambda d: len(page.cities()) == 2, "the watched cities listed")
    assert_no_violations(page, "loaded")


def test_axe_finds_no_violation_with_a_search_result_and_its_popup_open(page):
    page.open()
    wait_cities_settled(page)
    search(page, "Paris")
    wait_popup_settled(page, "Paris")
    assert_no_violations(page, "popup open")


def test_axe_finds_no_violation_with_place_suggestions_open(page):
    page.open()
    wait_cities_settled(page)
    open_place_suggestions(page)
    assert page.find("search-input").get_attribute("aria-expanded") == "true"
    assert_no_violations(page, "suggestions open")


def test_axe_finds_no_violation_read_only(make_daemon, make_page):
    page = make_page(make_daemon(read_only=True)).open()
    wait_cities_settled(page)
    assert not page.find("search-input").is_displayed()
    assert_no_violations(page, "read-only")


REFUSED = r"WebSocket connection to .* failed"  # the page retrying while the daemon is stopped


@pytest.mark.console_errors(REFUSED)
def test_axe_finds_no_violation_disconnected(page):
    page.open()
    wait_cities_settled(page)
    page.daemon.stop()
    page.wait(lambda d: not page.connected() and "retrying" in page.find("connection").text, "the page to show it is offline")
    assert_no_violations(page, "disconnected")


# ---------------------------------------------------------------- the keyboard

# The element that has the focus: what it is, and whether it shows a focus ring (an outline of at
# least 2 px; a marker's goes around its pill, its focusable anchor being of zero size).
FOCUSED = """
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const ringOn = el.classList.contains('wx-anchor') ? el.querySelector('.wx-pill') : el;
  const style = getComputedStyle(ringOn);
  const box = ringOn.getBoundingClientRect();
  return {
    // its own hook, a marker's (on the pill's box inside it), or that of what it is part of
    testid: el.dataset.testid || (el.classList.contains('wx-anchor') && el.querySelector('[data-testid]') ||
                                  el.parentElement.closest('[data-testid]') || {dataset: {}}).dataset.testid || '',
    tag: el.tagName.toLowerCase(),
    classes: el.className && el.className.baseVal === undefined ? el.className : '',
    name: el.getAttribute('aria-label') || el.textContent.trim().slice(0, 60),
    inPopup: !!el.closest('.leaflet-popup'),
    ring: el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    visible: box.width > 0 && box.height > 0,
  };
"""


def focused(page):
    return page.driver.execute_script(FOCUSED)


def press(page, *keys):
    ActionChains(page.driver).send_keys(*keys).perform()


def tab_through(page, stops=40):
    """Presses Tab from the top of the page until the focus leaves it (for the browser's own controls),
    at most `stops` times; what had the focus after each press."""
    page.driver.execute_script("document.activeElement && document.activeElement.blur();")
    seen = []
    for _ in range(stops):
        press(page, Keys.TAB)
        now = focused(page)
        if now is None:
            break
        seen.append(now)
    return seen


def test_tab_reaches_every_control_with_a_visible_focus(page):
    page.open()
    wait_cities_settled(page)
    page.wait(lambda d: len(page.find_all("city-remove")) == 2, "the watched cities listed")
    stops = tab_through(page)
    for stop in stops:
        assert stop["ring"] and stop["visible"], f"no visible focus ring on {stop}"
    testids = [s["testid"] for s in stops]
    # The panel first (the search before all), then the map: its markers, zoom buttons and credits.
    assert testids[0] == "search-input" and testids[1] == "locate-button", testids
    for testid in ("city-remove", "city-add-input", "feature", "attribution"):
        assert testid in testids, f"Tab does not reach {testid}: {stops}"
    assert any("leaflet-control-zoom-in" in s["classes"] for s in stops), stops
    assert testids.index("city-add-input") < testids.index("feature")


def test_a_marker_opens_with_enter_and_escape_gives_the_focus_back(page):
    page.open()
    wait_cities_settled(page)
    london = next(f for f in page.daemon.rpc("overlays")["features"] if f["id"] == owm_id("London"))["properties"]
    stops = tab_through(page)
    at = next(i for i, s in enumerate(stops) if s["testid"] == "feature" and s["name"].startswith("London"))
    # Its name says what the marker shows, as text.
    assert stops[at]["name"] == f"London, GB {london['temperature']:.1f} °C {london['description']}"
    tab_through(page, stops=at + 1)
    marker = page.driver.switch_to.active_element
    press(page, Keys.ENTER)
    wait_popup_settled(page, "London")
    assert focused(page)["inPopup"], "the focus did not move into the popup"
    # Tab goes on through the popup (a scrollable row of the forecast, say) to its close button, a
    # named button, with a ring all along.
    for _ in range(5):
        press(page, Keys.TAB)
        stop = focused(page)
        assert stop["inPopup"] and stop["ring"], stop
        if stop["name"] == "Close":
            break
    else:
        raise AssertionError("Tab did not reach the popup's close button")
    press(page, Keys.ESCAPE)
    page.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, ".leaflet-popup"), "the popup to close")
    assert page.driver.switch_to.active_element == marker, "the focus did not go back to the marker"
    assert focused(page)["ring"]


# ---------------------------------------------------------------- live regions

# Counts the changes of each live region's own text, from the moment it is installed.
OBSERVE_LIVE_REGIONS = """
  window.__said = {connection: [], phase: []};
  const watch = (name, node) => new MutationObserver(() => window.__said[name].push(node.textContent))
    .observe(node, {childList: true, characterData: true, subtree: true});
  watch('connection', document.querySelector('[data-testid="connection"] .connection-text'));
  watch('phase', document.querySelector('[data-testid="phase"]'));
"""


def live(page, selector):
    """The politeness of the live region that holds the element (its own or an ancestor's)."""
    return page.driver.execute_script("""
      const node = document.querySelector(arguments[0]).closest('[aria-live], [role="status"], [role="alert"]');
      if (!node) return null;
      return node.getAttribute('aria-live') || {status: 'polite', alert: 'assertive'}[node.getAttribute('role')];
    """, selector)


@pytest.mark.console_errors(REFUSED)
def test_phase_errors_and_connection_are_announced_once_each(page, owm, geolocation):
    page.open()
    wait_cities_settled(page)
    assert live(page, '[data-testid="phase"]') == "polite"
    assert live(page, '[data-testid="connection"] .connection-text') == "polite"
    assert live(page, "#notice") == "assertive"
    assert live(page, "#announcer") == "polite"
    # The budget line follows every request count: not a live region (its block is announced).
    assert live(page, '[data-testid="budget"]') is None
    page.driver.execute_script(OBSERVE_LIVE_REGIONS)

    # A state notification that changes nothing the phase says is not said again.
    search(page, "London")
    page.wait(lambda d: page.features().get(owm_id("London")) == "text" and not page.running()
              and page.attr("phase", "data-phase") == "populated", "London found")
    said = page.driver.execute_script("return window.__said.phase")
    assert said and all(a != b for a, b in zip(said, said[1:])), f"the phase said the same twice: {said}"

    # A request's error: the notice, an alert (the browser refuses its position; the daemon has none).
    geolocation.deny(page.daemon)
    page.find("locate-button").click()
    page.wait(lambda d: "permission denied" in d.find_element(By.ID, "notice").text, "the locate error")

    # The connection lost: said once, while what is beside it (hidden from screen readers) goes from
    # the countdown to the retry and back.
    page.daemon.stop()
    shown = []
    page.wait(lambda d: shown.append(page.find("connection").text) or
              len({text for text in shown if text.startswith("Offline")}) >= 2, "the page to retry")
    said = page.driver.execute_script("return window.__said.connection")
    assert said == ["Offline"], said
    assert page.driver.execute_script(
        "return document.querySelector('[data-testid=\"connection\"] .connection-retry').getAttribute('aria-hidden')") == "true"
