"""GET /metrics: the Prometheus exposition, read with prometheus_client's own parser, and values that
follow real events (a lookup answered from the cache counts as cache, a 429 as rate_limited)."""
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from conftest import wait_until

SERIES = [
    "weatherd_upstream_requests_total", "weatherd_upstream_request_duration_seconds", "weatherd_lookups_total",
    "weatherd_budget_used", "weatherd_clients", "weatherd_watchers", "weatherd_search_running",
    "weatherd_overlays_seq", "weatherd_gpsd_connected", "weatherd_gps_fixes_total",
    "weatherd_location_fixes_total",
]


def scrape(daemon):
    with urllib.request.urlopen(daemon.url + "metrics", timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    samples = {}
    families = {}
    for family in text_string_to_metric_families(text):
        families[family.name] = family
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return families, samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_exposition_parses_with_every_series(daemon):
    # The watched cities were looked up at start: there is an upstream request to histogram.
    daemon.rpc("search", {"city": "London"})
    families, samples = scrape(daemon)
    # prometheus_client names counter families without their _total suffix.
    names = set(families) | {name for name, _ in samples}
    for series in SERIES:
        assert series in names or series.removesuffix("_total") in names, f"{series} missing: {sorted(names)}"
    assert families["weatherd_upstream_request_duration_seconds"].type == "histogram"
    assert families["weatherd_budget_used"].type == "gauge"
    assert value(samples, "weatherd_clients", transport="web") == 0
    assert value(samples, "weatherd_gpsd_connected") == 0
    assert value(samples, "weatherd_overlays_seq") >= 1


def test_values_follow_events(daemon, owm):
    # The watched cities' first round goes upstream as the daemon starts: counted before, not between.
    def first_round_done():
        state = daemon.rpc("state")
        return state["phase"] != "loading" and not state["running"]
    wait_until(first_round_done, what="the watched cities' first round")
    _, before = scrape(daemon)
    daemon.rpc("search", {"city": "Paris"})   # upstream: its places, then its weather
    daemon.rpc("search", {"city": "Paris"})   # cache: both
    _, after = scrape(daemon)
    assert value(after, "weatherd_lookups_total", result="upstream") == value(before, "weatherd_lookups_total", result="upstream") + 2
    assert value(after, "weatherd_lookups_total", result="cache") == value(before, "weatherd_lookups_total", result="cache") + 2
    for endpoint in ("geocoding", "weather"):
        ok = dict(endpoint=endpoint, outcome="ok", provider="openweathermap")
        assert value(after, "weatherd_upstream_requests_total", **ok) == value(before, "weatherd_upstream_requests_total", **ok) + 1
    assert value(after, "weatherd_budget_used") == value(before, "weatherd_budget_used") + 2
    # A 429 counts as rate_limited (on Berlin's geocoding, or on its weather if its places are cached).
    owm.set_fault("Berlin", "429", retry_after=1)
    try:
        daemon.rpc("search", {"city": "Berlin"})
    except AssertionError as error:
        assert "-32003" in str(error)
    else:
        raise AssertionError("a 429 was answered with weather")
    _, limited = scrape(daemon)

    def total(samples, name, **labels):
        return sum(value(samples, name, endpoint=endpoint, provider="openweathermap", **labels)
                   for endpoint in ("geocoding", "weather"))

    assert total(limited, "weatherd_upstream_requests_total", outcome="rate_limited") == total(after, "weatherd_upstream_requests_total", outcome="rate_limited") + 1
    assert total(limited, "weatherd_upstream_request_duration_seconds_count") == total(before, "weatherd_upstream_request_duration_seconds_count") + 3


def test_clients_and_watchers_follow_connections(daemon):
    import json
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as watcher:
        watcher.connect(str(daemon.socket_path))
        watcher.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "watch", "params": {}}).encode() + b"\n")
        watcher.recv(65536)  # the reply (and maybe the replay)
        _, samples = scrape(daemon)
        assert value(samples, "weatherd_clients", transport="unix") == 1
        assert value(samples, "weatherd_watchers") == 1
