/// What the daemon knows of gpsd (`state.gps`).
public struct GPSStatus: Sendable, Hashable {
    public var enabled: Bool
    public var connected: Bool
    public var lastFix: GPSFix?

    public init(enabled: Bool, connected: Bool = false, lastFix: GPSFix? = nil) {
        self.enabled = enabled
        self.connected = connected
        self.lastFix = lastFix
    }

    public var json: JSONValue {
        .object(["enabled": .bool(enabled), "connected": .bool(connected), "last_fix": lastFix?.json ?? .null])
    }
}
