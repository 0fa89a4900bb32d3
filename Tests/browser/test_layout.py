"""The map page on any screen: on a phone (390×844) the panel folds to a bar and the map keeps most
of the screen; on a large screen (1920×1080) nothing stretches; the search field's placeholder is
whole on every screen. Each leaves a screenshot in Tests/browser/artifacts (page-390x844.png,
page-1920x1080.png, placeholder-*.png; kept out of git)."""

import pytest
from selenium.webdriver.common.by import By

from test_map_page import search, wait_cities_settled
from test_accessibility import assert_no_violations, wait_popup_settled


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
