"""The map page's weather symbols, place suggestions and forecast chart, in headless Chromium against
the real weatherd and owm-replay.

owm-replay's geocoder knows seven Springfields; `Springfield` alone gets the five in the US, Illinois
first. Its synthesized forecasts have 3-hour steps from OpenWeatherMap and 1-hour steps from Open-Meteo.
"""

import json
import re
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_map_page import owm_id, wait_cities_settled


# Emoji and the symbol blocks the daemon's `symbol` glyphs come from (☀ ☾ ⛅ ☁ ⛈ ❄ 🌧 🌦 🌫 …).
EMOJI = re.compile("[\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")

# Counts the page's `places` requests and how many were out at once, installed before the page's script.
RECORD_PLACES_REQUESTS = """
  window.__places = { asked: [], out: 0, maxOut: 0 };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.__ids = new Set();
      this.addEventListener('message', (event) => {
        try {
          const message = JSON.parse(event.data);
          if (message && this.__ids.delete(message.id)) window.__places.out -= 1;
        } catch (err) { /* not ours to judge */ }
      });
    }
    send(data) {
      try {
        const message = JSON.parse(data);
        if (message && message.method === 'places') {
          this.__ids.add(message.id);
          const p = window.__places;
          p.asked.push(message.params.name);
          p.out += 1;
          p.maxOut = Math.max(p.maxOut, p.out);
        }
      } catch (err) { /* not ours to judge */ }
      return super.send(data);
    }
  };
"""

# Every option the list ever showed, in order (installed once the page is loaded).
RECORD_OPTIONS = """
  window.__shown = [];
  new MutationObserver((records) => {
    for (const r of records) for (const node of r.addedNodes) {
      if (node.nodeType === 1 && node.dataset.testid === 'place-suggestion') window.__shown.push(node.textContent);
    }
  }).observe(document.body, { childList: true, subtree: true });
"""


def open_recording(page):
    """Opens the page with RECORD_PLACES_REQUESTS in it."""
    return page.open(script=RECORD_PLACES_REQUESTS)


def places_asked(page):
    return page.driver.execute_script("return window.__places")


def pause_state(page):
    """The list's `data-pause`: none, running or ended (web/suggestions.js)."""
    return page.find("place-suggestions").get_attribute("data-pause")


def pauses_ended(page):
    return int(page.find("place-suggestions").get_attribute("data-pauses") or 0)


def suggestions(page):
    """[(text, lat, lon)] of the options listed, in order; [] while the list is hidden."""
    if not page.find("place-suggestions").is_displayed():
        return []
    return [tuple(r) for r in page.driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=\"place-suggestion\"]')]"
        ".map(e => [e.textContent, Number(e.dataset.lat), Number(e.dataset.lon)]);")]


def expected_places(daemon, name):
    def text(p):
        return ", ".join(part for part in (p["name"], p["state"], p["country"]) if part)
    return [(text(p), p["lat"], p["lon"]) for p in daemon.rpc("places", {"name": name, "limit": 5})["places"]]


def type_name(page, name):
    field = page.find("search-input")
    field.click()
    field.send_keys(name)
    return field


def geo_requests(owm, key):
    """How many geocoding requests of that key owm-replay has answered."""
    with urllib.request.urlopen(owm.url + "/_stats", timeout=5) as response:
        return json.load(response)["by_query"].get(key, 0)


def text_feature(daemon):
    features = [f for f in daemon.rpc("overlays")["features"] if f["properties"]["source"] == "text"]
    return features[0] if features else None


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


# ---------------------------------------------------------------- place suggestions

def test_typing_a_name_lists_its_places(page):
    page.open()
    wait_cities_settled(page)
    field = type_name(page, "Springfield")
    listed = page.wait(lambda d: suggestions(page), "the places of Springfield")
    assert listed == expected_places(page.daemon, "Springfield")
    assert [t for t, _, _ in listed] == [
        "Springfield, Illinois, US", "Springfield, Missouri, US", "Springfield, Massachusetts, US",
        "Springfield, Ohio, US", "Springfield, Oregon, US"]
    # A WAI-ARIA combobox and its listbox.
    box = page.find("place-suggestions")
    assert field.get_attribute("role") == "combobox"
    assert field.get_attribute("aria-expanded") == "true"
    assert field.get_attribute("aria-controls") == box.get_attribute("id")
    assert box.get_attribute("role") == "listbox"
    assert {o.get_attribute("role") for o in page.find_all("place-suggestion")} == {"option"}
    # Listing is no search: the daemon's input is still the watched cities.
    assert page.daemon.rpc("state")["input"] == {"kind": "cities"}
    # Fewer than two characters: no list.
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("S")
    page.wait(lambda d: not page.find("place-suggestions").is_displayed(), "the list to close")
    assert field.get_attribute("aria-expanded") == "false"


def test_arrow_keys_and_enter_search_the_place(page):
    page.open()
    wait_cities_settled(page)
    field = type_name(page, "Springfield")
    page.wait(lambda d: len(suggestions(page)) == 5, "the places of Springfield")
    options = page.find_all("place-suggestion")
    # Down to Ohio, up to Massachusetts, up to Missouri.
    field.send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ARROW_UP)
    assert field.get_attribute("aria-activedescendant") == options[2].get_attribute("id")
    assert [o.get_attribute("aria-selected") for o in options] == ["false", "false", "true", "false", "false"]
    field.send_keys(Keys.ARROW_UP)
    assert field.get_attribute("aria-activedescendant") == options[1].get_attribute("id")
    field.send_keys(Keys.ENTER)
    # That place, as given: no geocoding of the name.
    page.wait(lambda d: page.daemon.rpc("state")["input"] == {"kind": "text", "city": "Springfield, Missouri, US"},
              "the search of Springfield, Missouri")
    assert not page.find("place-suggestions").is_displayed()
    assert field.get_attribute("aria-expanded") == "false"
    assert field.get_attribute("aria-activedescendant") is None
    assert field.get_attribute("value") == "Springfield, Missouri, US"
    page.wait(lambda d: text_feature(page.daemon), "the result")
    result = text_feature(page.daemon)
    assert result["properties"]["name"] == "Springfield" and result["properties"]["state"] == "Missouri"
    assert result["properties"]["alternatives"] == 0
    page.wait(lambda d: page.features().get(result["id"]) == "text", "its marker")


def test_a_click_picks_a_place(page):
    page.open()
    wait_cities_settled(page)
    type_name(page, "Springfield")
    page.wait(lambda d: len(suggestions(page)) == 5, "the places of Springfield")
    option = [o for o in page.find_all("place-suggestion") if o.text == "Springfield, Massachusetts, US"][0]
    lat, lon = float(option.get_attribute("data-lat")), float(option.get_attribute("data-lon"))
    option.click()
    page.wait(lambda d: page.daemon.rpc("state")["input"] == {"kind": "text", "city": "Springfield, Massachusetts, US"},
              "the search of Springfield, Massachusetts")
    assert not page.find("place-suggestions").is_displayed()
    page.wait(lambda d: text_feature(page.daemon), "the result")
    lon_found, lat_found = text_feature(page.daemon)["geometry"]["coordinates"]
    assert abs(lat_found - lat) < 0.05 and abs(lon_found - lon) < 0.05


def test_a_popups_title_tells_places_of_the_same_name_apart(page):
    page.open()
    wait_cities_settled(page)
    type_name(page, "Springfield")
    page.wait(lambda d: len(suggestions(page)) == 5, "the places of Springfield")
    [o for o in page.find_all("place-suggestion") if o.text == "Springfield, Missouri, US"][0].click()
    page.wait(lambda d: text_feature(page.daemon), "the result")
    result = text_feature(page.daemon)
    # The name, the state, the country: as weatherctl and the suggestions write them.
    title = page.wait(lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, ".leaflet-popup .popup-title") if e.is_displayed()],
                      "the result's popup")[0]
    assert title.text == "Springfield, Missouri, US"
    assert page.driver.find_element(By.CSS_SELECTOR, ".leaflet-popup-content-wrapper").accessible_name == "Springfield, Missouri, US"
    marker = page.driver.find_element(By.CSS_SELECTOR, f'.leaflet-marker-icon:has([data-feature-id="{result["id"]}"])')
    assert marker.accessible_name.startswith("Springfield, Missouri, US ")
    page.screenshot("popup-title.png")
    # A place without a state: its name and country.
    london = page.driver.find_element(By.CSS_SELECTOR, f'.leaflet-marker-icon:has([data-feature-id="{owm_id("London")}"])')
    assert london.accessible_name.startswith("London, GB ")


def test_escape_closes_the_list_and_enter_searches_the_text(page):
    page.open()
    wait_cities_settled(page)
    field = type_name(page, "Springfield")
    page.wait(lambda d: len(suggestions(page)) == 5, "the places of Springfield")
    field.send_keys(Keys.ARROW_DOWN, Keys.ESCAPE)
    page.wait(lambda d: not page.find("place-suggestions").is_displayed(), "the list to close")
    assert field.get_attribute("value") == "Springfield", "the first Escape only closes the list"
    assert field.get_attribute("aria-expanded") == "false"
    # Enter on the text alone searches the name: the daemon takes its first place, the list's first.
    field.send_keys(Keys.ENTER)
    page.wait(lambda d: page.daemon.rpc("state")["input"] == {"kind": "text", "city": "Springfield"},
              "the search of the text")
    page.wait(lambda d: text_feature(page.daemon), "the result")
    result = text_feature(page.daemon)["properties"]
    assert (result["name"], result["state"], result["alternatives"]) == ("Springfield", "Illinois", 4)
    assert not page.find("place-suggestions").is_displayed()
    # With the list closed, Escape clears the field (a search field's own way).
    field.send_keys(Keys.ESCAPE)
    page.wait(lambda d: field.get_attribute("value") == "", "the field to clear")


def test_a_slow_answer_never_replaces_a_newer_one_and_one_request_is_out_at_a_time(make_daemon, make_page, owm):
    # No watched London: the daemon asks the stand-in nothing of London but the page's request.
    page = open_recording(make_page(make_daemon(cities=("Seoul,KR",))))
    wait_cities_settled(page)
    page.driver.execute_script(RECORD_OPTIONS)
    london, springfield = geo_requests(owm, "geo:q=london"), geo_requests(owm, "geo:q=springfield")
    owm.set_fault("London", "hang")
    field = type_name(page, "London")
    page.wait(lambda d: owm._faults("GET")["hanging"] == 1, "the page's places request for London to hang")
    # Springfield typed while London's answer is out: no second request until it comes.
    pauses = pauses_ended(page)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("Springfield")
    page.wait(lambda d: pauses_ended(page) > pauses and pause_state(page) == "ended", "the pause after Springfield to end")
    asked = places_asked(page)
    assert asked["asked"][-1] == "London" and asked["out"] == 1, asked
    assert geo_requests(owm, "geo:q=springfield") == springfield
    # London's answer comes now, for a text the field no longer has: dropped; then Springfield is asked.
    owm.clear_fault("London")
    listed = page.wait(lambda d: len(suggestions(page)) == 5 and suggestions(page), "the places of Springfield")
    assert listed[0][0] == "Springfield, Illinois, US"
    asked = places_asked(page)
    assert asked["asked"][-2:] == ["London", "Springfield"] and asked["maxOut"] == 1, asked
    shown = page.driver.execute_script("return window.__shown")
    assert shown and not [s for s in shown if "London" in s], shown
    assert geo_requests(owm, "geo:q=london") == london + 1
    assert geo_requests(owm, "geo:q=springfield") == springfield + 1


def test_a_read_only_page_lists_no_places(make_daemon, make_page):
    page = open_recording(make_page(make_daemon(read_only=True)))
    wait_cities_settled(page)
    # The field is hidden; text put in it by a script asks nothing either.
    page.driver.execute_script("""
        const field = document.querySelector('[data-testid="search-input"]');
        field.focus();
        field.value = 'Springfield';
        field.dispatchEvent(new Event('input', { bubbles: true }));""")
    # The input was handled at once (dispatchEvent is synchronous): no pause runs, so nothing will be asked.
    assert pause_state(page) != "running"
    assert places_asked(page)["asked"] == []
    assert not page.find("place-suggestions").is_displayed()


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
