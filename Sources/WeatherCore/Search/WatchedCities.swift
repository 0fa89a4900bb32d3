/// The watched cities: the configured list with the stored changes on top. A change is stored
/// before it is reported. The search engine owns one, so changes are made one at a time.
public struct WatchedCities: Sendable {
    private let store: any CityStore
    private var configured: [String]
    private var changes: CityChanges

    /// Loads the stored changes; a store that cannot be read throws.
    public init(configured: [String], store: any CityStore) throws {
        self.store = store
        self.configured = configured
        self.changes = try store.load()
    }

    public var effective: [String] { changes.apply(to: configured) }

    /// Whether `city` is watched (case- and space-insensitively).
    public func contains(_ city: String) -> Bool {
        effective.contains { LookupKey.normalize(city: $0) == LookupKey.normalize(city: city) }
    }

    /// Adds `city`; adding a watched city changes nothing. Returns the effective list once stored.
    public mutating func add(_ city: String) throws -> [String] {
        guard !contains(city) else { return effective }
        var next = changes
        let key = LookupKey.normalize(city: city)
        if let index = next.removed.firstIndex(where: { LookupKey.normalize(city: $0) == key }) {
            next.removed.remove(at: index)
            if !next.apply(to: configured).contains(where: { LookupKey.normalize(city: $0) == key }) {
                next.added.append(city)
            }
        } else {
            next.added.append(city)
        }
        try commit(next)
        return effective
    }

    /// Removes `city`. Returns the effective list once stored.
    /// - Throws: `WeatherError.invalidParams` when the city is not watched.
    public mutating func remove(_ city: String) throws -> [String] {
        let key = LookupKey.normalize(city: city)
        guard contains(city) else { throw WeatherError.invalidParams("not a watched city: \(city)") }
        var next = changes
        next.added.removeAll { LookupKey.normalize(city: $0) == key }
        if configured.contains(where: { LookupKey.normalize(city: $0) == key }) {
            next.removed.append(city)
        }
        try commit(next)
        return effective
    }

    /// A new configuration (reload): the stored changes stay on top of it.
    public mutating func reconfigure(_ cities: [String]) -> [String] {
        configured = cities
        return effective
    }

    private mutating func commit(_ next: CityChanges) throws {
        do {
            try store.save(next)
        } catch {
            throw WeatherError(.internalError, "could not store the city list: \(error)")
        }
        changes = next
    }
}
