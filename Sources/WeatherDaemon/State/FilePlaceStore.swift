import Logging
import NIOPosix
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the places found for names in `<state.directory>/places.json`, written atomically
/// (``StateFile``), so a restart asks no geocoder again for a name it already resolved. A file that
/// is not a place list is moved aside and the daemon starts without it.
///
/// A name kept is written later, on a thread pool (``StateFileWriter``): a burst of new names is one
/// write of the whole list, not one for each.
public final class FilePlaceStore: PlaceStore {
    private let logger: Logger
    private let file: StateFile
    private let entries: Locked<[String: PlaceCacheEntry]>
    private let writer: StateFileWriter
    private let now: @Sendable () -> Date

    /// - Parameter pool: where the writes run.
    public convenience init(
        directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, pool: NIOThreadPool = .singleton
    ) {
        self.init(directory: directory, logger: logger, now: now, pool: pool, sync: { fsync($0) })
    }

    /// With `sync` flushing each descriptor (tests count or slow the flushes).
    init(
        directory: String, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, pool: NIOThreadPool,
        sync: @escaping @Sendable (Int32) -> Int32
    ) {
        self.logger = logger
        self.now = now
        var file = StateFile(directory: directory, name: "places.json", now: now)
        file.sync = sync
        self.file = file
        let entries = Locked<[String: PlaceCacheEntry]>([:])
        self.entries = entries
        writer = StateFileWriter(file: file, pool: pool, logger: logger) {
            PlaceCacheEntry.json(PlaceCacheEntry.kept(entries.withLock { $0.values }, now: now()))
        }
    }

    public var path: String { file.path }

    public func load() -> [PlaceCacheEntry] {
        let loaded: [PlaceCacheEntry]
        do {
            switch try file.read(logger: logger, decode: PlaceCacheEntry.entries(json:)) {
            case .absent:
                loaded = []
            case .setAside(let aside):
                logger.warning("\(path) is not a place list; moved it to \(aside): names will be geocoded again")
                loaded = []
            case .value(let found):
                loaded = found
            }
        } catch {
            logger.warning("\(error); names will be geocoded again")
            loaded = []
        }
        entries.withLock { entries in
            for entry in loaded { entries[entry.name] = entry }
        }
        return loaded
    }

    public func keep(_ entry: PlaceCacheEntry) {
        entries.withLock { entries in
            entries[entry.name] = entry
            if entries.count > PlaceCacheEntry.maxKept * 2 {
                // Bounded between writes too: what a write would drop goes now.
                entries = Dictionary(uniqueKeysWithValues: PlaceCacheEntry.kept(entries.values, now: now()).map { ($0.name, $0) })
            }
        }
        writer.schedule()
    }

    /// Returns once what was kept so far is written (or its write failed: logged); at once when
    /// nothing was kept.
    public func flush() async {
        try? await writer.flush()
    }
}
