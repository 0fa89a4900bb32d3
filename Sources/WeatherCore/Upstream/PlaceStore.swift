#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the places found for names are kept across restarts (the daemon's is a file in
/// `state.directory`). Only names that were found are kept.
public protocol PlaceStore: Sendable {
    /// The entries kept; an unreadable store gives none (and is set aside by the implementation).
    func load() -> [PlaceCacheEntry]
    /// Keeps the places of one name, replacing those kept under it. Returns at once: the store
    /// writes later, off the caller's thread, and a burst of names is one write. Expired entries
    /// are not kept; of more than ``PlaceCacheEntry/maxKept``, those that expire first go.
    func keep(_ entry: PlaceCacheEntry)
}

/// The places of one normalized name, and until when they may be used.
public struct PlaceCacheEntry: Sendable, Equatable {
    /// The name as the cache knows it (``LookupKey/normalize(city:)``).
    public var name: String
    public var places: [Place]
    public var expires: Date

    public init(name: String, places: [Place], expires: Date) {
        self.name = name
        self.places = places
        self.expires = expires
    }

    /// The most names a store keeps: as many as the lookups cache.
    public static let maxKept = 4096

    /// What a store keeps of `entries` at `now`: those not expired, at most ``maxKept`` (those that
    /// expire last), by name.
    public static func kept(_ entries: some Sequence<PlaceCacheEntry>, now: Date) -> [PlaceCacheEntry] {
        var live = entries.filter { $0.expires > now }
        if live.count > maxKept {
            live.sort { $0.expires > $1.expires }
            live.removeLast(live.count - maxKept)
        }
        return live.sorted { $0.name < $1.name }
    }

    /// `{"version": 1, "names": [{"name", "expires", "places": [...]}]}`.
    public static func json(_ entries: [PlaceCacheEntry]) -> JSONValue {
        .object([
            "version": .integer(1),
            "names": .array(
                entries.map { entry in
                    .object([
                        "name": .string(entry.name),
                        "expires": .string(Timestamp.iso8601(entry.expires)),
                        "places": .array(entry.places.map(\.storedJSON)),
                    ])
                }),
        ])
    }

    /// The entries of a stored document; nil when it is not one.
    public static func entries(json: JSONValue) -> [PlaceCacheEntry]? {
        guard json["version"]?.intValue == 1, let names = json["names"]?.arrayValue else { return nil }
        var entries: [PlaceCacheEntry] = []
        for element in names {
            guard let name = element["name"]?.stringValue,
                let expires = element["expires"]?.stringValue.flatMap(Timestamp.parse),
                let list = element["places"]?.arrayValue
            else { return nil }
            let places = list.compactMap(Place.init(json:))
            guard places.count == list.count, !places.isEmpty else { return nil }
            entries.append(PlaceCacheEntry(name: name, places: places, expires: expires))
        }
        return entries
    }
}
