#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `state.budget`: the upstream requests of the last minute against `requests_per_minute`, and the
/// end of a block after OpenWeatherMap answered 429.
public struct BudgetStatus: Sendable, Hashable, JSONRepresentable {
    public var requestsPerMinute: Int
    public var used: Int
    /// When the current 429 block ends; nil when no block holds.
    public var blockedUntil: Date?

    public init(requestsPerMinute: Int, used: Int = 0, blockedUntil: Date? = nil) {
        self.requestsPerMinute = requestsPerMinute
        self.used = used
        self.blockedUntil = blockedUntil
    }

    public var json: JSONValue {
        .object([
            "requests_per_minute": .integer(Int64(requestsPerMinute)), "used": .integer(Int64(used)),
            "blocked_until": .string(blockedUntil.map(Timestamp.iso8601)),
        ])
    }
}
