/// An alert's severity as CAP (the Common Alerting Protocol) names it.
public enum AlertSeverity: String, Sendable, Hashable, CaseIterable, Comparable {
    case extreme = "Extreme"
    case severe = "Severe"
    case moderate = "Moderate"
    case minor = "Minor"
    case unknown = "Unknown"

    /// A provider's word for it; anything CAP does not name is `Unknown`.
    public init(cap text: String?) {
        self = text.flatMap { text in Self.allCases.first { $0.rawValue.lowercased() == text.lowercased() } } ?? .unknown
    }

    /// The label value of `weatherd_weather_alerts{severity}` and the page's `data-severity`.
    public var label: String { rawValue.lowercased() }

    /// Most severe first: `Extreme` < `Severe` < … < `Unknown` in this order.
    public static func < (lhs: AlertSeverity, rhs: AlertSeverity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }
}
