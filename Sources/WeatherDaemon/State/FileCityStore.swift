import Foundation
import Logging
import WeatherCore

/// Keeps the `cities.add`/`cities.remove` changes in `<state.directory>/cities.json`, written
/// atomically and durably (``StateFile``): a crash leaves either the old or the new list.
public struct FileCityStore: CityStore {
    public let directory: String
    private let logger: Logger
    private let file: StateFile

    public init(directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.logger = logger
        self.file = StateFile(directory: directory, name: "cities.json", now: now)
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

    public func save(_ changes: CityChanges) throws {
        try file.write(changes.json)
    }
}
