/// Where city changes are kept across restarts. `save` returns only once the changes are durable.
public protocol CityStore: Sendable {
    func load() throws -> CityChanges
    func save(_ changes: CityChanges) throws
}
