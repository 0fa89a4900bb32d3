/// The `[gpsd]` table. Its accuracy, `locate` and follow keys moved to `[location]`
/// (``LocationConfig``); the old keys are still read (``ConfigSchema/movedKeys``).
public struct GPSDConfig: Sendable, Equatable {
    /// `enabled`: whether locations come from gpsd at all.
    public var enabled: Bool
    /// `host`: where gpsd listens.
    public var host: String
    /// `port`: gpsd's TCP port.
    public var port: Int

    /// The `[gpsd]` table; every value not given has its default.
    public init(enabled: Bool = true, host: String = "127.0.0.1", port: Int = 2947) {
        self.enabled = enabled
        self.host = host
        self.port = port
    }
}
