import Foundation

/// One entry of `state.services`: a data service beside the weather providers (the NWS's alerts,
/// air quality), whether it answers, and why not. Each service puts its own entry in the list
/// (``SearchEngine/updateService(_:)``).
public struct ServiceStatus: Sendable, Hashable, JSONRepresentable {
    /// Its name: `nws`, `air-quality`.
    public var name: String
    /// Whether requests go to it now: false while it is blocked (a 429, a spent budget) or failing.
    public var usable: Bool
    /// The end of a 429 block or of a spent budget; nil when none holds.
    public var blockedUntil: Date?
    /// Why it is not usable; nil while it is usable.
    public var error: String?

    public init(name: String, usable: Bool, blockedUntil: Date? = nil, error: String? = nil) {
        self.name = name
        self.usable = usable
        self.blockedUntil = blockedUntil
        self.error = error
    }

    /// `{"name","usable","blocked_until","error"}`.
    public var json: JSONValue {
        .object([
            "name": .string(name), "usable": .bool(usable), "blocked_until": .string(blockedUntil.map(Timestamp.iso8601)),
            "error": .string(error),
        ])
    }
}
