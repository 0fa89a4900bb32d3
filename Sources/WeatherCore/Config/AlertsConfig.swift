#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `[alerts]` table: official weather warnings for the places on the map.
public struct AlertsConfig: Sendable, Equatable {
    /// The default `nws_url`.
    public static let defaultNWSURL = "https://api.weather.gov"

    /// `providers`: the alert providers asked, each for the places it covers.
    public var providers: [AlertProviderName]
    /// `nws_url`: the NWS API; alerts are asked at `{nwsURL}/alerts/active?point=LAT,LON`.
    public var nwsURL: String
    /// `contact`: goes into the User-Agent the NWS requires, `weatherd/VERSION (CONTACT)`; empty
    /// gives a warning at start.
    public var contact: String
    /// `refresh`: how often the alerts of each place on the map are asked again.
    public var refresh: Duration
    /// `requests_per_minute`: the alert providers' own request budget.
    public var requestsPerMinute: Int
    /// `timeout`: time limit of one HTTP request.
    public var timeout: Duration

    /// The `[alerts]` table; every value not given has its default.
    public init(
        providers: [AlertProviderName] = [.nws],
        nwsURL: String = AlertsConfig.defaultNWSURL,
        contact: String = "",
        refresh: Duration = .seconds(300),
        requestsPerMinute: Int = 60,
        timeout: Duration = .seconds(10)
    ) {
        self.providers = providers
        self.nwsURL = nwsURL
        self.contact = contact
        self.refresh = refresh
        self.requestsPerMinute = requestsPerMinute
        self.timeout = timeout
    }

    /// The User-Agent the NWS requires: `weatherd/VERSION (CONTACT)`, or `weatherd/VERSION` without
    /// a contact.
    public var userAgent: String {
        let product = "weatherd/\(WeatherdVersion.current)"
        let contact = contact.trimmingWhitespace()
        return contact.isEmpty ? product : "\(product) (\(contact))"
    }
}

/// An alert provider weatherd can ask, by the name `alerts.providers` gives it.
public enum AlertProviderName: String, Sendable, Hashable, CaseIterable {
    /// The US National Weather Service (`api.weather.gov`): points in the United States, no key.
    case nws
}
