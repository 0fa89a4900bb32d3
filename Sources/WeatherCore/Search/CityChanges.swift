/// The changes made with `cities.add` and `cities.remove`, kept on top of the configured cities.
public struct CityChanges: Sendable, Equatable {
    /// Cities added beyond the configuration, in the order they were added.
    public var added: [String]
    /// Configured cities that were removed.
    public var removed: [String]

    public init(added: [String] = [], removed: [String] = []) {
        self.added = added
        self.removed = removed
    }

    /// Effective cities: the configured ones less the removed, then the added.
    public func apply(to configured: [String]) -> [String] {
        let removedKeys = Set(removed.map(LookupKey.normalize(city:)))
        var seen = Set<String>()
        return (configured.filter { !removedKeys.contains(LookupKey.normalize(city: $0)) } + added)
            .filter { seen.insert(LookupKey.normalize(city: $0)).inserted }
    }

    public var json: JSONValue {
        .object(["added": .array(added.map(JSONValue.string)), "removed": .array(removed.map(JSONValue.string))])
    }

    public init?(json: JSONValue) {
        guard let added = json["added"]?.arrayValue?.compactMap(\.stringValue),
            let removed = json["removed"]?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        self.init(added: added, removed: removed)
    }
}
