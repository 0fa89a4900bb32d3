"""The NWS's alerts on the map page: an alert's area drawn as a polygon coloured by its severity, the
legend, the popup (headline, times, instruction) with the alert's words as text even when they are
markup, the NWS credited, and axe-core with no violation. owm-replay answers the NWS's API from its
recorded storm warning at Norman, OK (its /_nws control moves the alert's end into the future and
gives it a headline)."""

import json
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

from conftest import ARTIFACTS  # noqa: F401  (the artifacts of a failing test are left there)
from test_accessibility import assert_no_violations
from test_map_page import wait_cities_settled

NORMAN = {"name": "Norman", "state": "Oklahoma", "country": "US", "lat": 35.35, "lon": -97.48}
HEADLINE = '<img src=x onerror="window.__xss=3"><b>Storm</b> warning & more'


def nws(owm, method, **params):
    query = ("?" + urllib.parse.urlencode(params)) if params else ""
    request = urllib.request.Request(owm.url + "/_nws" + query, method=method)
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def test_an_alert_area_is_drawn_by_severity_with_legend_popup_and_credit(page, owm):
    nws(owm, "POST", ends_in=3600, headline=HEADLINE)
    try:
        page.open()
        wait_cities_settled(page)
        driver = page.driver
        page.daemon.rpc("search", {"place": NORMAN})

        area = page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="alert-area"]'), "the alert's area")[0]
        assert area.get_attribute("data-severity") == "severe"
        assert area.get_attribute("data-feature-id") == "alert:urn:oid:2.49.0.1.840.0.example-storm.001.1"
        assert area.tag_name == "path"
        # Coloured by its severity: the severe colour of web/widgets.css.
        assert driver.execute_script("return getComputedStyle(arguments[0]).stroke", area) == "rgb(198, 40, 40)"

        legend = page.find("alert-legend")
        page.wait(lambda d: legend.is_displayed(), "the legend")
        assert "Severe" in legend.text
        items = legend.find_elements(By.CSS_SELECTOR, "li")
        assert [i.get_attribute("data-severity") for i in items] == ["severe"]

        page.wait(lambda d: "Alerts by the US National Weather Service" in page.find("attribution").text,
                  "the NWS in the credits")

        # Once the map stands still (it flew to the search's result), a click on the area (not on the
        # place's marker in it) opens its popup.
        page.wait(lambda d: page.settled(), "the map to stand still")
        driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true,"
            " clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}))", area)
        # Open, faded in and laid out (its text is read as shown).
        popup = page.wait(lambda d: [
            e for e in d.find_elements(By.CSS_SELECTOR, '[data-testid="alert-popup"]')
            if "Severe Thunderstorm Warning" in e.text and d.execute_script(
                "return getComputedStyle(arguments[0].closest('.leaflet-popup')).opacity", e) == "1"],
            "the alert's popup")[0]
        assert HEADLINE in popup.text
        assert "For your protection move to an interior room" in popup.text
        assert "until" in popup.text.lower()
        assert popup.find_elements(By.TAG_NAME, "img") == [] and popup.find_elements(By.TAG_NAME, "b") == []
        assert driver.execute_script("return window.__xss === undefined")
        assert driver.find_elements(By.CSS_SELECTOR, "img[src='x']") == []
        page.screenshot("alert-popup.png")

        assert_no_violations(page, "an alert's popup open")
    finally:
        nws(owm, "DELETE")


def test_an_ended_alert_leaves_the_map_and_the_legend(page, owm):
    nws(owm, "POST", ends_in=8)
    try:
        page.open()
        wait_cities_settled(page)
        page.daemon.rpc("search", {"place": NORMAN})
        page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="alert-area"]'), "the alert's area")
        page.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, '[data-testid="alert-area"]'),
                  "the alert's area to go at its end")
        assert not page.find("alert-legend").is_displayed()
    finally:
        nws(owm, "DELETE")
