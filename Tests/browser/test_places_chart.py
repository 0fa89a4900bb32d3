"""The map page's weather symbols and forecast chart, in headless Chromium against the real weatherd
and owm-replay, whose synthesized forecasts have 3-hour steps from OpenWeatherMap and 1-hour steps
from Open-Meteo.
"""

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


# ---------------------------------------------------------------- the forecast chart

def open_chart(page, feature_id):
    page.driver.find_element(By.CSS_SELECTOR, f'[data-testid="feature"][data-feature-id="{feature_id}"]').click()
    return page.wait(lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content [data-testid='forecast-chart']")
                                if e.is_displayed()], "the forecast chart in the popup")[0]


def check_chart(page, chart, feature_id, step, rows):
    lon, lat = [f for f in page.daemon.rpc("overlays")["features"] if f["id"] == feature_id][0]["geometry"]["coordinates"]
    # The daemon's own answer to the page's question (cached: the same steps).
    forecast = page.daemon.rpc("forecast", {"lat": lat, "lon": lon, "hours": 48})["properties"]
    steps = forecast["forecast"]
    assert forecast["forecast_step"] == step and len(steps) == rows
    assert chart.get_attribute("data-step") == str(step)
    assert chart.get_attribute("data-steps") == str(rows)

    svg = chart.find_element(By.CSS_SELECTOR, "svg.fc-svg")
    assert svg.get_attribute("role") == "img"
    assert svg.get_attribute("aria-label").startswith("Forecast for the next 48 hours: temperature from ")
    line = chart.find_element(By.CSS_SELECTOR, "path.fc-temp-line").get_attribute("d")
    assert line.startswith("M") and line.count("L") == rows - 1, line
    assert len(chart.find_elements(By.CSS_SELECTOR, "rect.fc-pop-bar")) == len([s for s in steps if (s["pop"] or 0) > 0])
    wet = [s for s in steps if (s["rain_3h"] or 0) + (s["snow_3h"] or 0) > 0]
    assert len(chart.find_elements(By.CSS_SELECTOR, "rect.fc-amount-bar")) == len(wet)
    assert chart.find_element(By.CSS_SELECTOR, "rect.fc-pop-bar, rect.fc-amount-bar"), "no bars"

    # The numbers, for screen readers: a table with one row per step.
    table = chart.find_element(By.TAG_NAME, "table")
    box = table.find_element(By.XPATH, "..")
    assert box.size["width"] <= 1 and box.size["height"] <= 1, "the table is for screen readers only"
    caption = table.find_element(By.TAG_NAME, "caption").get_attribute("textContent")
    assert caption.startswith("Forecast for the next 48 hours")
    body_rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(body_rows) == rows
    first = [c.get_attribute("textContent") for c in body_rows[0].find_elements(By.CSS_SELECTOR, "th, td")]
    assert first[2].endswith(" °C") and abs(float(first[2][:-3]) - steps[0]["temperature"]) <= 0.051, first
    assert first[3].endswith(" %") and abs(float(first[3][:-2]) - steps[0]["pop"] * 100) <= 0.51, first


def test_the_popup_forecast_is_a_chart_of_48_hours_in_3_hour_steps(page):
    page.open()
    wait_cities_settled(page)
    london = owm_id("London")
    chart = open_chart(page, london)
    check_chart(page, chart, london, 10800, 16)
    page.screenshot("forecast-chart.png")


def test_an_hourly_forecast_is_a_chart_of_48_steps(make_daemon, make_page):
    page = make_page(make_daemon(providers=("open-meteo",))).open()
    wait_cities_settled(page)
    feature_id = [f["id"] for f in page.daemon.rpc("overlays")["features"] if f["properties"]["name"] == "London"][0]
    chart = open_chart(page, feature_id)
    check_chart(page, chart, feature_id, 3600, 48)
