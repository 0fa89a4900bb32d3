import Logging

/// The watched cities: their list and their rounds, as inputs of the stream.
extension SearchEngine {
    /// Adds a watched city: looked up first (unknown: not_found; no provider answering: added anyway,
    /// looked up next round), stored durably, then shown. Returns the effective list.
    public nonisolated func addCity(_ city: String) async throws -> [String] {
        guard !watched.contains(city) else { return stream.cities }
        let run = step { $0.stream.openLookup(at: $1) }
        let result = await lookUp(.city(city))
        turn { $0.stream.closeLookup(run, at: $1) }
        var feature: WeatherFeature?
        switch result {
        case .success(let observation)?:
            feature = WeatherFeature(observation: observation, source: .city)
        case .failure(let error)? where error.code != .notFound:
            logger.warning("adding \(city) without weather for now: \(error.message)")
        case .failure(let error)?:
            throw error
        case nil:
            throw CancellationError()
        }
        let list = try await watched.add(city)
        // Another change may have been stored meanwhile: the overlays show the list as stored now.
        let lookedUp = feature.map { (city: city, feature: $0) }
        turn { [watched] in $0.stream.citiesChanged(watched.effective, lookedUp: lookedUp, at: $1) }
        return list
    }

    /// Removes a watched city, stored durably before it returns the effective list.
    /// - Throws: invalid_params when the city is not watched.
    public nonisolated func removeCity(_ city: String) async throws -> [String] {
        let list = try await watched.remove(city)
        turn { [watched] in $0.stream.citiesChanged(watched.effective, at: $1) }
        return list
    }

    /// New configured cities (reload); the stored changes stay on top of them.
    public nonisolated func reconfigure(cities configured: [String]) async {
        turn { [watched] in $0.stream.citiesChanged(watched.reconfigure(configured), at: $1) }
    }

    /// One round of lookups of every watched city; the overlays change once it has settled.
    public nonisolated func refreshCities() async {
        let (round, run) = step { core, now in
            let (round, run, effects) = core.stream.roundBegan(at: now)
            return ((round, run), effects)
        }
        let results = await InputLookups.run(
            round.map { .city($0) }, concurrency: Self.cityRoundConcurrency, with: lookups, wanted: true,
            settled: settled(run, supersededBy: nil))
        for (city, result) in zip(round, results) {
            if case .failure(let error)? = result { logger.warning("watched city \(city): \(error.message)") }
        }
        // Shutting down mid-round: the round is abandoned.
        if Task.isCancelled { return turn { $0.stream.roundAbandoned(run, at: $1) } }
        turn { $0.stream.roundSettled(zip(round, results).map { ($0, $1) }, run: run, at: $1) }
    }
}
