#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One official warning, watch or advisory in force at a place (`properties.alerts`, the `alerts`
/// method): CAP's fields as the provider gave them.
public struct Alert: Sendable, Hashable, JSONRepresentable {
    /// The provider's identifier of the alert (the overlay feature is `alert:<id>`).
    public var id: String
    public var event: String
    public var severity: AlertSeverity
    public var urgency: String?
    public var certainty: String?
    public var headline: String?
    public var description: String?
    public var instruction: String?
    public var onset: Date?
    /// When the event ends, as the provider says; nil when it does not.
    public var ends: Date?
    /// When the message expires (a later message may replace it).
    public var expires: Date?
    /// Who issued it (the NWS office's name).
    public var sender: String?
    /// The provider: `nws`.
    public var provider: String
    /// Its own area, when the provider gave one.
    public var area: AlertArea?
    /// The URLs of the zones it covers; their shapes are its area when it has none of its own.
    public var zones: [String]

    public init(
        id: String, event: String, severity: AlertSeverity, urgency: String? = nil, certainty: String? = nil,
        headline: String? = nil, description: String? = nil, instruction: String? = nil, onset: Date? = nil,
        ends: Date? = nil, expires: Date? = nil, sender: String? = nil, provider: String, area: AlertArea? = nil,
        zones: [String] = []
    ) {
        self.id = id
        self.event = event
        self.severity = severity
        self.urgency = urgency
        self.certainty = certainty
        self.headline = headline
        self.description = description
        self.instruction = instruction
        self.onset = onset
        self.ends = ends
        self.expires = expires
        self.sender = sender
        self.provider = provider
        self.area = area
        self.zones = zones
    }

    /// When it is dropped: at its `ends`, else at its `expires`; nil when it gave neither.
    public var until: Date? { ends ?? expires }

    /// Whether it is over at `now`.
    public func isOver(at now: Date) -> Bool {
        until.map { $0 <= now } ?? false
    }

    /// `{"id","event","severity","urgency","certainty","headline","description","instruction","onset",
    /// "ends","sender","provider"}`; `ends` is when it is dropped (its `ends`, else its `expires`).
    public var json: JSONValue {
        .object([
            "id": .string(id), "event": .string(event), "severity": .string(severity.rawValue),
            "urgency": .string(urgency), "certainty": .string(certainty), "headline": .string(headline),
            "description": .string(description), "instruction": .string(instruction),
            "onset": .string(onset.map(Timestamp.iso8601)), "ends": .string(until.map(Timestamp.iso8601)),
            "sender": .string(sender), "provider": .string(provider),
        ])
    }

    /// `alerts` most severe first; among equals the one that ends first, then by id (a stable order).
    public static func ordered(_ alerts: [Alert]) -> [Alert] {
        alerts.sorted { a, b in
            if a.severity != b.severity { return a.severity < b.severity }
            switch (a.until, b.until) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.id < b.id
            }
        }
    }

    /// A provider's identifier as the part of a feature id: its characters kept but for white space.
    public var featureID: String { "alert:" + id.filter { !$0.isWhitespace } }
}
