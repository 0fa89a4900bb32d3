import Synchronization

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
        return cachedAnswers.answer(observation, at: coordinate, place: place, alternatives: alternatives, airQuality: airQuality)
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

/// The answers ``LookupService/cached(_:)`` made last, one a cell: the same cached observation asked
/// the same way again gives the very same value, its fields' block shared, so whatever compares it
/// later (a reply's kept text, the overlays' membership) finds it equal at once, without comparing
/// its fields.
final class MadeAnswers: Sendable {
    /// An answer and what it was made from (a class: it is read where it is kept, not copied out).
    private final class Made: Sendable {
        let source: WeatherObservation
        let coordinate: Coordinate
        let place: Place?
        let alternatives: Int
        let airQuality: AirQuality?
        let answer: WeatherObservation

        init(
            source: WeatherObservation, coordinate: Coordinate, place: Place?, alternatives: Int, airQuality: AirQuality?,
            answer: WeatherObservation
        ) {
            (self.source, self.coordinate, self.place, self.alternatives) = (source, coordinate, place, alternatives)
            (self.airQuality, self.answer) = (airQuality, answer)
        }

        func answers(
            _ source: WeatherObservation, at coordinate: Coordinate, place: Place?, alternatives: Int, airQuality: AirQuality?
        ) -> Bool {
            self.source.isSame(as: source) && self.coordinate == coordinate && self.alternatives == alternatives
                && Self.same(self.place, place) && Self.same(self.airQuality, airQuality)
        }

        /// `a == b`, without copying either (as the `Optional` operator does).
        private static func same<T: Equatable>(_ a: T?, _ b: T?) -> Bool {
            switch a {
            case .none:
                if case .none = b { true } else { false }
            case .some(let a):
                switch b {
                case .none: false
                case .some(let b): a == b
                }
            }
        }
    }

    private let made = Mutex<[LookupKey: Made]>([:])

    /// ``LookupService/answer(_:at:place:alternatives:airQuality:)``, the one made last for the
    /// same parts when there is one.
    func answer(
        _ source: WeatherObservation, at coordinate: Coordinate, place: Place?, alternatives: Int, airQuality: AirQuality?
    ) -> WeatherObservation {
        let key = coordinate.lookupKey
        if let kept = made.withLock({ $0[key] }),
            kept.answers(source, at: coordinate, place: place, alternatives: alternatives, airQuality: airQuality)
        {
            return kept.answer
        }
        let answer = LookupService.answer(source, at: coordinate, place: place, alternatives: alternatives, airQuality: airQuality)
        let made = Made(
            source: source, coordinate: coordinate, place: place, alternatives: alternatives, airQuality: airQuality, answer: answer)
        self.made.withLock { kept in
            if kept.count >= LookupService.maxCacheEntries { kept.removeAll(keepingCapacity: true) }
            kept[key] = made
        }
        return answer
    }

    /// Forgets every answer made.
    func removeAll() {
        made.withLock { $0.removeAll() }
    }
}
