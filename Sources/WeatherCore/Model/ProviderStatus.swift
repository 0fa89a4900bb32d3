#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One entry of `state.providers`: a weather provider's budget and health.
public struct ProviderStatus: Sendable, Hashable, JSONRepresentable {
    public var name: WeatherProviderName
    /// Whether lookups go to it now: false without its key, while blocked (a 429, a spent budget) or
    /// while it fails.
    public var usable: Bool
    /// Requests (one per point) of the last minute and of the last 24 hours.
    public var usedMinute: Int
    public var usedDay: Int
    /// The end of a 429 block or of a spent budget; nil when none holds.
    public var blockedUntil: Date?
    /// Why it is not usable (its last failure, or the missing key); nil while it is usable.
    public var error: String?
    /// Its latest answer was marked as sample data by a stand-in (the offline demo's owm-replay), not
    /// real weather. In the JSON only when true.
    public var sampleData = false

    public init(
        name: WeatherProviderName, usable: Bool, usedMinute: Int = 0, usedDay: Int = 0, blockedUntil: Date? = nil,
        error: String? = nil
    ) {
        self.name = name
        self.usable = usable
        self.usedMinute = usedMinute
        self.usedDay = usedDay
        self.blockedUntil = blockedUntil
        self.error = error
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "name": .string(name.rawValue), "usable": .bool(usable),
            "used_minute": .integer(Int64(usedMinute)), "used_day": .integer(Int64(usedDay)),
            "blocked_until": .string(blockedUntil.map(Timestamp.iso8601)), "error": .string(error),
        ]
        if sampleData { object["sample_data"] = .bool(true) }
        return .object(object)
    }

    /// This status without its request counts, which change with every request and are no news alone.
    var withoutCounts: ProviderStatus {
        var status = self
        status.usedMinute = 0
        status.usedDay = 0
        return status
    }
}
