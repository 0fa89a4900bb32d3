"""The map page on any screen: on a phone (390×844) the panel folds to a bar and the map keeps most
of the screen, and a popup opens where the map is seen, whatever opened it; on a large screen
(1920×1080) nothing stretches; the search field's placeholder is whole on every screen. Each leaves a
screenshot in Tests/browser/artifacts (page-390x844.png, page-1920x1080.png, popup-390x844-*.png,
placeholder-*.png; kept out of git)."""

import pytest
from selenium.webdriver.common.by import By

from test_map_page import close_popup, owm_id, search, wait_cities_settled
from test_accessibility import assert_no_violations, open_place_suggestions, wait_popup_settled


@pytest.fixture
def viewport(browser):
    """Sets the page's viewport to exactly width × height CSS pixels (the window's size would include
    the browser's own frame), for one test."""
    def set_viewport(width, height):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    yield set_viewport
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# How much of the viewport shows the map: the map's box less what the panel covers of it.
MAP_SHARE = """
  const view = window.innerWidth * window.innerHeight;
  const map = document.querySelector('[data-testid="map"]').getBoundingClientRect();
  const panel = document.querySelector('.panel').getBoundingClientRect();
  const w = Math.max(0, Math.min(map.right, panel.right) - Math.max(map.left, panel.left));
  const h = Math.max(0, Math.min(map.bottom, panel.bottom) - Math.max(map.top, panel.top));
  return (map.width * map.height - w * h) / view;
"""

# Whether a click at the centre of each marker reaches that marker (nothing over it), by feature id.
MARKERS_REACHABLE = """
  return [...document.querySelectorAll('[data-testid="feature"]')].map((m) => {
    const r = m.querySelector('.wx-pill').getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return [m.dataset.featureId, !!hit && m.contains(hit)];
  });
"""


def test_a_phone_folds_the_panel_to_a_bar_and_keeps_the_map(page, viewport):
    viewport(390, 844)
    page.open(size=(390, 844))
    wait_cities_settled(page)
    toggle = page.driver.find_element(By.ID, "panel-toggle")
    # Folded: the brand, the connection, the search and the status; the watched cities on demand.
    for testid in ("search-input", "locate-button", "connection", "phase"):
        assert page.find(testid).is_displayed(), f"{testid} not shown on a phone"
    assert toggle.is_displayed() and toggle.get_attribute("aria-expanded") == "false"
    assert toggle.accessible_name == "Show panel"
    assert not page.find("city-add-input").is_displayed()
    assert page.driver.execute_script(MAP_SHARE) >= 0.6
    assert any(reachable for _, reachable in page.driver.execute_script(MARKERS_REACHABLE)), \
        "no marker can be tapped beside the panel"
    page.screenshot("page-390x844.png")

    toggle.click()
    page.wait(lambda d: page.find("city-add-input").is_displayed(), "the panel to open")
    assert toggle.get_attribute("aria-expanded") == "true" and toggle.accessible_name == "Hide panel"
    assert set(page.cities()) == {"London,GB", "Seoul,KR"}
    panel = page.driver.find_element(By.CSS_SELECTOR, ".panel").rect
    assert panel["width"] <= 390 and panel["y"] + panel["height"] <= 844
    assert_no_violations(page, "phone, panel open")
    page.screenshot("page-390x844-open.png")
    toggle.click()
    page.wait(lambda d: not page.find("city-add-input").is_displayed(), "the panel to fold again")
    assert toggle.get_attribute("aria-expanded") == "false"


def test_a_large_screen_keeps_the_panel_and_popups_their_size(page, viewport):
    viewport(1920, 1080)
    page.open(size=(1920, 1080))
    wait_cities_settled(page)
    assert not page.driver.find_element(By.ID, "panel-toggle").is_displayed()
    assert page.find("city-add-input").is_displayed()
    panel = page.driver.find_element(By.CSS_SELECTOR, ".panel").rect
    assert panel["width"] <= 400 and panel["height"] <= 1080 * 0.6, panel
    map_box = page.find("map").rect
    assert (map_box["width"], map_box["height"]) == (1920, 1080)
    search(page, "Paris")
    wait_popup_settled(page, "Paris")
    popup = page.driver.find_element(By.CSS_SELECTOR, ".leaflet-popup-content-wrapper").rect
    assert 220 <= popup["width"] <= 360 and popup["height"] <= 600, popup
    page.screenshot("page-1920x1080.png")


# Where the open popup is, beside the map and the panel; and what a tap on its × reaches.
POPUP_PLACE = """
  const rect = (node) => { const r = node.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const popup = document.querySelector('.leaflet-popup');
  const close = popup.querySelector('.leaflet-popup-close-button').getBoundingClientRect();
  const hit = document.elementFromPoint(close.left + close.width / 2, close.top + close.height / 2);
  return {
    popup: rect(popup.querySelector('.leaflet-popup-content-wrapper')),
    panel: rect(document.querySelector('.panel')),
    map: rect(document.querySelector('[data-testid="map"]')),
    closeReached: !!hit && !!hit.closest('.leaflet-popup-close-button'),
  };
"""


def assert_popup_in_view(page, how):
    place = page.driver.execute_script(POPUP_PLACE)
    popup, panel, box = place["popup"], place["panel"], place["map"]
    assert popup["top"] >= panel["bottom"], f"{how}: the popup's top {popup['top']} is under the panel (to {panel['bottom']})"
    assert popup["bottom"] <= box["bottom"] and popup["left"] >= box["left"] and popup["right"] <= box["right"], \
        f"{how}: the popup {popup} is not inside the map {box}"
    assert place["closeReached"], f"{how}: a tap on the popup's × does not reach it"


def test_on_a_phone_a_popup_opens_below_the_panel_whatever_opened_it(page, viewport):
    viewport(390, 844)
    page.open(size=(390, 844))
    wait_cities_settled(page)
    # A tap on a marker.
    page.driver.find_element(By.CSS_SELECTOR, f'[data-testid="feature"][data-feature-id="{owm_id("London")}"]').click()
    wait_popup_settled(page, "London")
    assert_popup_in_view(page, "a tap on London's marker")
    page.screenshot("popup-390x844-marker.png")
    close_popup(page)
    # A search, whose result the map flies to.
    search(page, "Paris")
    wait_popup_settled(page, "Paris")
    assert_popup_in_view(page, "a search of Paris")
    page.screenshot("popup-390x844-search.png")
    close_popup(page)
    # A place picked from the suggestions.
    open_place_suggestions(page, "Springfield")
    option = page.wait(lambda d: [o for o in page.find_all("place-suggestion") if o.text == "Springfield, Missouri, US"],
                       "Springfield, Missouri among the places")[0]
    option.click()
    wait_popup_settled(page, "Springfield")
    assert_popup_in_view(page, "a suggestion picked")
    page.screenshot("popup-390x844-suggestion.png")


# How wide the search field's placeholder is, and the room the field has for text.
PLACEHOLDER_FIT = """
  const input = document.querySelector('[data-testid="search-input"]');
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [input.placeholder, context.measureText(input.placeholder).width, room];
"""


@pytest.mark.parametrize("width,height", [(1280, 860), (1920, 1080), (390, 844), (320, 640)])
def test_the_search_fields_placeholder_is_whole(page, viewport, width, height):
    viewport(width, height)
    page.open(size=(width, height))
    placeholder, text, room = page.driver.execute_script(PLACEHOLDER_FIT)
    assert "e.g." in placeholder, placeholder
    assert text <= room, f"at {width}×{height} the placeholder {placeholder!r} needs {text:.0f} px, the field has {room:.0f}"
    page.screenshot(f"placeholder-{width}x{height}.png")
