#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One entry of `state.services`: a service that adds data to the features besides the weather
/// (`air-quality`, and any other that reports itself through ``ServiceStatusReporting``), and
/// whether it is asked now. Its failure never fails a search: it shows here.
public struct ServiceStatus: Sendable, Hashable, JSONRepresentable {
    /// `air-quality`, `nws`, …
    public var name: String
    /// Whether it is asked now: false while disabled, blocked (a 429, a spent budget) or failing.
    public var usable: Bool
    /// The end of a 429 block or of a spent budget; nil when none holds.
    public var blockedUntil: Date?
    /// Why it is not usable; nil while it is.
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

/// A part of the daemon with entries in `state.services`. The engine reads every reporter it was
/// given (``SearchEngine/init(cities:gps:lookups:publisher:budget:providers:services:wallClock:clock:logger:)``)
/// whenever it takes in the budget (``SearchEngine/refreshBudget()``), in the order given: a new
/// service adds itself by conforming, being passed there, and calling `refreshBudget` when its
/// status changes. ``LookupService`` reports `air-quality`, ``AlertService`` `nws`.
public protocol ServiceStatusReporting: Sendable {
    /// Its entries now.
    var serviceStatuses: [ServiceStatus] { get async }
    /// Its entries now, read in the caller's thread without waiting; nil when it cannot tell so
    /// (then `state` is answered through ``serviceStatuses``).
    var serviceStatusesNow: [ServiceStatus]? { get }
}

extension ServiceStatusReporting {
    public var serviceStatusesNow: [ServiceStatus]? { nil }
}

extension Array where Element == any ServiceStatusReporting {
    /// `state.services` now, read in the caller's thread; nil when a reporter cannot tell so.
    public var statusesNow: [ServiceStatus]? {
        var statuses: [ServiceStatus] = []
        for reporter in self {
            guard let entries = reporter.serviceStatusesNow else { return nil }
            statuses += entries
        }
        return statuses
    }

    /// `state.services` now: every reporter's entries, in order.
    public var statuses: [ServiceStatus] {
        get async {
            var statuses: [ServiceStatus] = []
            for reporter in self { statuses += await reporter.serviceStatuses }
            return statuses
        }
    }
}
