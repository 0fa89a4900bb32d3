"""The map page's weather symbols, in headless Chromium against the real weatherd and owm-replay."""

import re

from selenium.webdriver.common.by import By

from test_map_page import owm_id, wait_cities_settled

# Emoji and the symbol blocks the daemon's `symbol` glyphs come from (☀ ☾ ⛅ ☁ ⛈ ❄ 🌧 🌦 🌫 …).
EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")


# ---------------------------------------------------------------- weather symbols

def test_weather_symbols_are_drawn_as_svg_not_emoji(page):
    page.open()
    wait_cities_settled(page)
    icons = {f["id"]: f["properties"]["icon"] for f in page.daemon.rpc("overlays")["features"]}
    for feature_id, icon in icons.items():
        marker = page.driver.find_element(By.CSS_SELECTOR, f'[data-testid="feature"][data-feature-id="{feature_id}"]')
        symbol = marker.find_element(By.CSS_SELECTOR, "svg.wx-sym")
        assert symbol.get_attribute("data-icon") == icon
        assert symbol.get_attribute("aria-hidden") == "true"
        assert symbol.find_elements(By.CSS_SELECTOR, "path, circle, line"), "an empty symbol"
    # The watched cities' list shows them too.
    page.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, '[data-testid="city"] svg.wx-sym')) == 2, "the list's symbols")
    # And the popup, with its forecast.
    page.driver.find_element(By.CSS_SELECTOR, f'[data-feature-id="{owm_id("London")}"]').click()
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content .popup-forecast svg.wx-sym"),
              "the forecast's symbols")
    assert page.driver.find_element(By.CSS_SELECTOR, ".popup-symbol").get_attribute("data-icon") == "04n"
    # No emoji anywhere: the page looks the same without an emoji font.
    text = page.driver.execute_script("return document.body.innerText + document.body.textContent")
    assert not EMOJI.findall(text), EMOJI.findall(text)
