import Foundation
import Logging
import WeatherCore

/// Keeps the places found for names in `<state.directory>/places.json`, written atomically
/// (``StateFile``), so a restart asks no geocoder again for a name it already resolved. A file that
/// is not a place list is moved aside and the daemon starts without it.
public struct FilePlaceStore: PlaceStore {
    private let logger: Logger
    private let file: StateFile

    public init(directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) {
        self.logger = logger
        self.file = StateFile(directory: directory, name: "places.json", now: now)
    }

    public var path: String { file.path }

    public func load() -> [PlaceCacheEntry] {
        do {
            switch try file.read(logger: logger, decode: PlaceCacheEntry.entries(json:)) {
            case .absent:
                return []
            case .setAside(let aside):
                logger.warning("\(path) is not a place list; moved it to \(aside): names will be geocoded again")
                return []
            case .value(let entries):
                return entries
            }
        } catch {
            logger.warning("\(error); names will be geocoded again")
            return []
        }
    }

    public func save(_ entries: [PlaceCacheEntry]) throws {
        try file.write(PlaceCacheEntry.json(entries))
    }
}
