import Synchronization

/// The watched cities: the configured list with the stored changes on top. A change is stored
/// before it is reported, and changes are made one at a time, in the order asked: each is stored
/// (``CityStore/save(_:)``, which does not block the caller's thread) before the next is made.
public final class WatchedCities: Sendable {
    private struct State {
        var configured: [String]
        var changes: CityChanges
    }

    private let store: any CityStore
    private let state: Mutex<State>
    private let turns = Turns()

    /// Loads the stored changes; a store that cannot be read throws.
    public init(configured: [String], store: any CityStore) throws {
        self.store = store
        self.state = Mutex(State(configured: configured, changes: try store.load()))
    }

    /// The effective list as stored now.
    public var effective: [String] { state.withLock { $0.changes.apply(to: $0.configured) } }

    /// Whether `city` is watched (case- and space-insensitively).
    public func contains(_ city: String) -> Bool {
        Self.contains(city, in: effective)
    }

    private static func contains(_ city: String, in list: [String]) -> Bool {
        let key = LookupKey.normalize(city: city)
        return list.contains { LookupKey.normalize(city: $0) == key }
    }

    /// Adds `city`; adding a watched city changes nothing. Returns the effective list once stored.
    public func add(_ city: String) async throws -> [String] {
        try await change { configured, changes in
            guard !Self.contains(city, in: changes.apply(to: configured)) else { return nil }
            var next = changes
            let key = LookupKey.normalize(city: city)
            if let index = next.removed.firstIndex(where: { LookupKey.normalize(city: $0) == key }) {
                next.removed.remove(at: index)
                if !Self.contains(city, in: next.apply(to: configured)) { next.added.append(city) }
            } else {
                next.added.append(city)
            }
            return next
        }
    }

    /// Removes `city`. Returns the effective list once stored.
    /// - Throws: `WeatherError.invalidParams` when the city is not watched.
    public func remove(_ city: String) async throws -> [String] {
        try await change { configured, changes in
            guard Self.contains(city, in: changes.apply(to: configured)) else {
                throw WeatherError.invalidParams("not a watched city: \(city)")
            }
            let key = LookupKey.normalize(city: city)
            var next = changes
            next.added.removeAll { LookupKey.normalize(city: $0) == key }
            if configured.contains(where: { LookupKey.normalize(city: $0) == key }) { next.removed.append(city) }
            return next
        }
    }

    /// A new configuration (reload): the stored changes stay on top of it.
    public func reconfigure(_ cities: [String]) -> [String] {
        state.withLock { state in
            state.configured = cities
            return state.changes.apply(to: cities)
        }
    }

    /// Makes one change in its turn: `next` says what the changes become (nil: nothing changes); they
    /// are stored, then kept. Returns the effective list then.
    private func change(
        _ next: @Sendable ([String], CityChanges) throws -> CityChanges?
    ) async throws -> [String] {
        guard await turns.take() else { throw CancellationError() }
        defer { turns.give() }
        let (configured, changes) = state.withLock { ($0.configured, $0.changes) }
        guard let next = try next(configured, changes) else { return effective }
        do {
            try await store.save(next)
        } catch {
            throw WeatherError(.internalError, "could not store the city list: \(error)")
        }
        return state.withLock { state in
            state.changes = next
            return next.apply(to: state.configured)
        }
    }
}
