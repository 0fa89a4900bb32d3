/// One input of the search stream (`state.input`).
public enum SearchInput: Sendable, Hashable {
    /// A `search` request for a city name.
    case text(city: String)
    /// A gpsd fix.
    case location(Coordinate)
    /// A map region event.
    case region(MapRegion)
    /// A round of watched-city lookups.
    case cities

    /// Whether this input competes for the overlays' interactive layer (all but city rounds).
    public var isInteractive: Bool { self != .cities }

    public var json: JSONValue {
        switch self {
        case .text(let city): .object(["kind": "text", "city": .string(city)])
        case .location(let c): .object(["kind": "location", "lat": .double(c.lat), "lon": .double(c.lon)])
        case .region(let region):
            .object(["kind": "region", "center": region.center.json, "span": region.span?.json ?? .null])
        case .cities: .object(["kind": "cities"])
        }
    }
}
