import WeatherCore

/// owm-replay's Open-Meteo counters: the `open_meteo` member of `/_stats` (see docs/owm-replay.md).
/// `requests`, `by_query` and the helpers of `ReplayStats` count OpenWeatherMap's requests only.
extension ReplayStats {
    private var openMeteo: JSONValue? { json["open_meteo"] }

    /// Open-Meteo requests of any kind (forecasts and searches).
    var openMeteoRequests: Int { openMeteo?["requests"]?.intValue ?? -1 }
    /// `/v1/forecast` requests (one for a list of points).
    var openMeteoForecastRequests: Int { openMeteo?["forecast_requests"]?.intValue ?? -1 }
    /// The points the forecast requests asked, in total.
    var openMeteoForecastPoints: Int { openMeteo?["forecast_points"]?.intValue ?? -1 }
    /// `/v1/search` requests.
    var openMeteoSearchRequests: Int { openMeteo?["search_requests"]?.intValue ?? -1 }

    /// Open-Meteo requests under one key: a point, `lat=52.52&lon=13.41` (at most 4 decimals), or a
    /// search, `search:name=london` (`&countryCode=gb` with a country code).
    func openMeteoRequests(for query: String) -> Int { openMeteo?["by_query"]?[query]?.intValue ?? 0 }
    /// Forecast requests that asked for the point (alone or in a list).
    func openMeteoPointRequests(lat: String, lon: String) -> Int { openMeteoRequests(for: "lat=\(lat)&lon=\(lon)") }
    /// Searches for one normalized name, e.g. `springfield` or `london&countryCode=gb`.
    func openMeteoSearchRequests(for name: String) -> Int { openMeteoRequests(for: "search:name=" + name) }
}

extension ReplayStats {
    /// `/v1/air-quality` requests (one for a list of points), and the points they asked in total.
    var airQualityRequests: Int { json["open_meteo"]?["air_quality_requests"]?.intValue ?? -1 }
    var airQualityPoints: Int { json["open_meteo"]?["air_quality_points"]?.intValue ?? -1 }
}
