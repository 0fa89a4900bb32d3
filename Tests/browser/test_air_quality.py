"""Air quality on the map page: a popup shows the place's index of air-quality.scale with its band in
words and in the band's colour (data-testid="air-quality"), the credits name CAMS, and axe-core finds
no violation (the band's text keeps its contrast on every colour)."""

from selenium.webdriver.common.by import By

from test_accessibility import assert_no_violations, wait_popup_settled
from test_map_page import search, wait_cities_settled

# The European Environment Agency's bands (WeatherCore's AirQualityBand, web/air-quality.js): the upper
# bound of each (a band includes it), its name, its colour.
EUROPEAN = [(20, "good", (0x50, 0xF0, 0xE6)), (40, "fair", (0x50, 0xCC, 0xAA)), (60, "moderate", (0xF0, 0xE6, 0x41)),
            (80, "poor", (0xFF, 0x50, 0x50)), (100, "very poor", (0x96, 0x00, 0x32)),
            (float("inf"), "extremely poor", (0x7D, 0x21, 0x81))]


def expected_band(index):
    return next((name, colour) for bound, name, colour in EUROPEAN if index <= bound)


def test_a_popup_shows_the_air_quality_in_words_and_colour_and_the_credits_name_cams(page):
    page.open()
    wait_cities_settled(page)
    search(page, "Paris")
    popup = wait_popup_settled(page, "Paris")
    badge = popup.find_element(By.CSS_SELECTOR, '[data-testid="air-quality"]')
    index = int(badge.get_attribute("data-aqi"))
    name, colour = expected_band(index)
    assert badge.get_attribute("data-scale") == "european"
    assert badge.get_attribute("data-band") == name
    assert badge.text == f"{index} · {name}"
    background = badge.value_of_css_property("background-color")  # rgb(…) or rgba(…, 1)
    assert tuple(int(part) for part in background[background.index("(") + 1:-1].split(",")[:3]) == colour, background
    label = badge.find_element(By.XPATH, "../preceding-sibling::dt[1]").text
    assert label == "Air quality (European AQI)"
    credits = page.find("attribution").text
    assert "Air quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com" in credits
    assert_no_violations(page, "popup with air quality")

