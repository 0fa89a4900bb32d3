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
        let json: JSONValue
        switch try file.read(logger: logger) {
        case .absent:
            return CityChanges()
        case .setAside(let aside):
            logger.error("\(path) is not a city list; moved it to \(aside) and starting from the configured cities")
            return CityChanges()
        case .json(let read):
            json = read
        }
        guard let changes = CityChanges(json: json) else {
            // Keep the unreadable file for the operator and go on with the configured cities.
            let aside = file.setAside()
            logger.error("\(path) is not a city list; moved it to \(aside) and starting from the configured cities")
            return CityChanges()
        }
        return changes
    }

    public func save(_ changes: CityChanges) throws {
        try file.write(changes.json)
    }
}
