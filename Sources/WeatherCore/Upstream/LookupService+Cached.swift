extension LookupService {
    /// The answer ``lookup(_:)`` would give for `query` now, when every part of it is cached: the
    /// places of a name, the weather at the point's cell and, with air quality on, the air quality
    /// there. Read in the caller's thread, without the actor (a connection's event loop answers a
    /// cached search at once with it); counted as ``lookup(_:)`` counts cached answers. Nil when a
    /// part is not cached (or the name is unknown): ask ``lookup(_:)``, which asks upstream.
    public nonisolated func cached(_ query: LookupQuery) -> WeatherObservation? {
        let now = clock.now
        let (coordinate, place, alternatives): (Coordinate, Place?, Int)
        switch query {
        case .coordinate(let point): (coordinate, place, alternatives) = (point, nil, 0)
        case .place(let given): (coordinate, place, alternatives) = (given.coordinate, given, 0)
        case .city(let name):
            guard let found = placesCache.answer(for: .city(LookupKey.normalize(city: name)), now: now), let first = found.first
            else { return nil }
            (coordinate, place, alternatives) = (first.coordinate, first, found.count - 1)
        }
        guard let observation = weatherCache.answer(for: coordinate.lookupKey, now: now) else { return nil }
        let limits = currentLimits
        var airQuality: AirQuality?
        if limits.airQuality, airQualityUpstream != nil {
            guard let found = airQualityCache.answer(for: coordinate.lookupKey, now: now) else { return nil }
            airQuality = found.shown(on: limits.airQualityScale)
        }
        if case .city = query { UpstreamMetrics.lookup(.cache) }  // the places of the name
        UpstreamMetrics.lookup(.cache)
        return Self.answer(observation, at: coordinate, place: place, alternatives: alternatives, airQuality: airQuality)
    }

    /// A lookup's answer from its parts: `observation` of the cell, at `coordinate`, named after
    /// `place` (one of `alternatives` + 1 of its name), with its air quality.
    static func answer(
        _ observation: WeatherObservation, at coordinate: Coordinate, place: Place?, alternatives: Int, airQuality: AirQuality?
    ) -> WeatherObservation {
        var here = observation.at(coordinate)  // the cache's block copied once; the rest changed in place
        here.airQuality = airQuality
        if let place { here.name(after: place, alternatives: alternatives) }
        return here
    }
}

extension AirQuality {
    /// This air quality as `scale` shows it.
    func shown(on scale: AirQualityScale) -> AirQuality {
        var shown = self
        shown.scale = scale
        return shown
    }
}
