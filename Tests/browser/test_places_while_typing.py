"""Places listed while a name is typed, with both providers as `make run` has them: OpenWeatherMap's
geocoder (asked first) knows whole names only, so "Spring" is no place to it; Open-Meteo's, asked
next by `places`, matches a name's beginning from three letters on, and lists the Springfields. On a
desktop and on a phone (390×844); each leaves a screenshot in Tests/browser/artifacts
(places-while-typing-*.png)."""

import pytest

from test_layout import viewport  # noqa: F401 (a fixture)
from test_map_page import wait_cities_settled
from test_places_chart import expected_places, suggestions, type_name


BOTH = ("openweathermap", "open-meteo")


@pytest.mark.parametrize("size", [(1280, 860), (390, 844)], ids=["desktop", "phone"])
def test_the_beginning_of_a_name_lists_its_places(make_daemon, make_page, viewport, size):  # noqa: F811
    daemon = make_daemon(providers=BOTH)
    page = make_page(daemon)
    viewport(*size)
    page.open(size=size)
    wait_cities_settled(page)
    type_name(page, "Spring")
    listed = page.wait(lambda d: suggestions(page), "places listed for Spring")
    assert listed == expected_places(daemon, "Spring")
    texts = [text for text, _, _ in listed]
    assert len(texts) >= 2 and all(text.startswith("Springfield, ") for text in texts), texts
    assert len(set(texts)) == len(texts), f"a place listed twice: {texts}"
    # Every option can be seen and picked: inside the viewport.
    for option in page.find_all("place-suggestion"):
        rect = option.rect
        assert option.is_displayed() and rect["x"] >= 0 and rect["x"] + rect["width"] <= size[0] + 1, rect
    page.screenshot(f"places-while-typing-{size[0]}x{size[1]}.png")
    # Listing is no search: the daemon's input is still the watched cities.
    assert daemon.rpc("state")["input"] == {"kind": "cities"}


def test_two_letters_list_nothing_and_whole_names_stay_first(make_daemon, make_page):
    daemon = make_daemon(providers=BOTH)
    # As the page asks: no place begins "Sp" for either geocoder (two letters match whole names only).
    assert daemon.rpc("places", {"name": "Sp", "limit": 5})["places"] == []
    # A whole name OpenWeatherMap knows: its five places, no other geocoder's needed.
    london = daemon.rpc("places", {"name": "London", "limit": 5})["places"]
    assert len(london) == 5 and {p["provider"] for p in london} == {"openweathermap"}
    page = make_page(daemon).open()
    wait_cities_settled(page)
    type_name(page, "Springfield")
    listed = page.wait(lambda d: suggestions(page), "places listed for Springfield")
    assert [text for text, _, _ in listed][0] == "Springfield, Illinois, US"
