import Logging
import NIOPosix
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the `cities.add`/`cities.remove` changes in `<state.directory>/cities.json`, written
/// atomically and durably (``StateFile``): a crash leaves either the old or the new list. Writes run
/// on a thread pool (``StateFileWriter``); `save` returns once its changes are on disk.
public final class FileCityStore: CityStore {
    public let directory: String
    private let logger: Logger
    private let file: StateFile
    private let latest: Locked<CityChanges>
    private let writer: StateFileWriter

    /// - Parameter pool: where the writes run.
    public convenience init(
        directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, pool: NIOThreadPool = .singleton
    ) {
        self.init(directory: directory, logger: logger, now: now, pool: pool, sync: { fsync($0) })
    }

    /// With `sync` flushing each descriptor (tests make it slow).
    init(
        directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, pool: NIOThreadPool,
        sync: @escaping @Sendable (Int32) -> Int32
    ) {
        self.directory = directory
        self.logger = logger
        var file = StateFile(directory: directory, name: "cities.json", now: now)
        file.sync = sync
        self.file = file
        let latest = Locked(CityChanges())
        self.latest = latest
        writer = StateFileWriter(file: file, pool: pool, logger: logger) { latest.withLock { $0 }.json }
    }

    public var path: String { file.path }
    /// Where a save writes before it renames over `path`.
    var temporaryPath: String { file.temporaryPath }

    public func load() throws -> CityChanges {
        switch try file.read(logger: logger, decode: CityChanges.init(json:)) {
        case .absent:
            return CityChanges()
        case .setAside(let aside):
            // Kept for the operator; the daemon goes on with the configured cities.
            logger.error("\(path) is not a city list; moved it to \(aside) and starting from the configured cities")
            return CityChanges()
        case .value(let changes):
            return changes
        }
    }

    public func save(_ changes: CityChanges) async throws {
        latest.withLock { $0 = changes }
        try await writer.write()
    }
}
