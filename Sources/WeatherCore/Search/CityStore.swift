/// Where city changes are kept across restarts. `save` returns only once the changes are durable;
/// it never blocks the caller's thread (the daemon's store writes on a thread pool).
public protocol CityStore: Sendable {
    func load() throws -> CityChanges
    func save(_ changes: CityChanges) async throws
}
