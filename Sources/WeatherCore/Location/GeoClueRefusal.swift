/// Why weatherd could not use GeoClue, and the one log line that tells the operator what to do.
public struct GeoClueRefusal: Sendable, Equatable, Error {
    /// What stood in the way.
    public enum Reason: Sendable, Equatable {
        /// The system D-Bus could not be reached.
        case noBus
        /// GeoClue is not on the system bus and cannot be started there (not installed).
        case absent
        /// GeoClue does not take weatherd as an agent: its desktop id is not in `[agent] whitelist=`.
        case agentNotAllowed
        /// GeoClue refused to start weatherd's client: its section of geoclue.conf does not allow it.
        case appNotAllowed
        /// Anything else the bus or GeoClue answered.
        case failed
    }

    /// A step of the conversation with GeoClue, for classifying what went wrong in it.
    public enum Step: Sendable, Equatable {
        case connect
        case addAgent
        case getClient
        case configure
        case start
    }

    public var reason: Reason
    /// What the bus or GeoClue said (a D-Bus error's message, or the system error).
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// What a failed step means: `errorName` is the D-Bus error's name (nil for an error of the
    /// connection itself), `message` its message.
    public static func classify(step: Step, errorName: String?, message: String) -> GeoClueRefusal {
        if step == .connect { return GeoClueRefusal(.noBus, message) }
        switch errorName {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return GeoClueRefusal(.absent, message)
        case let name? where name.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            return GeoClueRefusal(.absent, message)
        case "org.freedesktop.DBus.Error.AccessDenied" where step == .addAgent:
            return GeoClueRefusal(.agentNotAllowed, message)
        case "org.freedesktop.DBus.Error.AccessDenied" where step == .start:
            return GeoClueRefusal(.appNotAllowed, message)
        case nil:
            return GeoClueRefusal(.noBus, message)
        default:
            return GeoClueRefusal(.failed, message)
        }
    }

    /// The lines of `/etc/geoclue/geoclue.conf` that let `desktopID` be its own agent and use GeoClue.
    public static func configurationLines(desktopID: String) -> String {
        "[agent] whitelist=…;\(desktopID) (its existing entries, then \(desktopID)) and a section [\(desktopID)] with "
            + "allowed=true, system=true, users= (empty: every user)"
    }

    /// The one line logged when GeoClue cannot be used for this reason.
    public func logLine(desktopID: String) -> String {
        let fix = "add to /etc/geoclue/geoclue.conf \(Self.configurationLines(desktopID: desktopID)), then restart geoclue"
        return switch reason {
        case .noBus:
            "GeoClue: cannot reach the system D-Bus (\(detail)); no GeoClue locations until it answers"
        case .absent:
            "GeoClue: org.freedesktop.GeoClue2 is not on the system D-Bus (\(detail)); install GeoClue (Debian: geoclue-2.0) "
                + "or set geoclue.enabled = false; no GeoClue locations until it is there"
        case .agentNotAllowed:
            "GeoClue does not accept weatherd as its agent (\(detail)): \(fix)"
        case .appNotAllowed:
            "GeoClue refuses to locate weatherd (\(detail)): \(fix)"
        case .failed:
            "GeoClue failed (\(detail)); no GeoClue locations until it answers"
        }
    }
}
