import Synchronization

/// What a connection's event loop answers at once, in its own thread: a search whose answer is
/// cached, and the reads of the stream. No actor, no task: the stream's lock for one turn.
extension SearchEngine {
    /// Searches `city` as ``search(city:)`` does, when its answer is cached
    /// (``LookupService/cached(_:)``), wholly in the caller's thread: the search enters the stream
    /// and settles in one turn, with the same state and overlays changes, published after it in the
    /// same order. Nil, with nothing changed, when the answer is not cached: search it then.
    ///
    /// With `deliver` false, the changes are posted but not yet published: a caller that answers
    /// first publishes them after its answer with ``deliverChanges()`` (the stream has changed
    /// before the answer, so whoever reads it after the answer sees the search; only the
    /// watchers' copies follow it). Another turn meanwhile publishes them with its own, in order.
    public nonisolated func searchCached(city: String, deliver: Bool = true) -> WeatherFeature? {
        searchCached(.city(city), input: .text(city: city), deliver: deliver)
    }

    /// Searches `place` as ``search(place:)`` does, when its answer is cached; nil otherwise (see ``searchCached(city:deliver:)``).
    public nonisolated func searchCached(place: Place, deliver: Bool = true) -> WeatherFeature? {
        searchCached(.place(place), input: .text(city: place.label), deliver: deliver)
    }

    private nonisolated func searchCached(_ query: LookupQuery, input: SearchInput, deliver: Bool) -> WeatherFeature? {
        guard let observation = lookups.cached(query) else { return nil }
        let feature = WeatherFeature(observation: observation, source: .text, fix: nil)
        step(deliver: deliver) { core, now in
            let (ticket, began) = core.stream.begin(input, lookups: 1, at: now)
            let (_, settled) = core.stream.settle(ticket, features: [feature], focus: feature.coordinate, failure: nil, at: now)
            return ((), began + settled)
        }
        return feature
    }

    /// The state as ``freshState`` gives it (the budget, providers and services as they are now),
    /// read in the caller's thread; nil when a reporter of `state.services` cannot tell at once.
    public nonisolated var stateNow: DaemonState? {
        guard let services = services.statusesNow else { return nil }
        var now = core.withLock { $0.stream.state }
        (now.budget, now.providers, now.services) = (lookups.budgetNow, lookups.providerStatusesNow, services)
        return now
    }

    /// The overlays as they are now (``currentOverlays``), read in the caller's thread.
    public nonisolated var overlaysNow: Overlays { core.withLock { $0.stream.overlays } }

    /// The effective watched cities (``watchedCities``), read in the caller's thread.
    public nonisolated var citiesNow: [String] { core.withLock { $0.stream.cities } }
}
