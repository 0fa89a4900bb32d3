/// The `[gpsd]` table.
public struct GPSDConfig: Sendable, Equatable {
    /// `enabled`: whether locations come from gpsd at all.
    public var enabled: Bool
    /// `host`: where gpsd listens.
    public var host: String
    /// `port`: gpsd's TCP port.
    public var port: Int
    /// `max_horizontal_error`: metres; fixes with a larger or unknown error are ignored.
    public var maxHorizontalError: Double
    /// `locate_timeout`: default time limit of `locate`.
    public var locateTimeout: Duration
    /// `follow`: every accepted fix that moved at least ``followDistance`` starts a search.
    public var follow: Bool
    /// `follow_distance`: metres, see ``follow``.
    public var followDistance: Double

    /// The `[gpsd]` table; every value not given has its default.
    public init(
        enabled: Bool = true,
        host: String = "127.0.0.1",
        port: Int = 2947,
        maxHorizontalError: Double = 100,
        locateTimeout: Duration = .seconds(30),
        follow: Bool = false,
        followDistance: Double = 1000
    ) {
        self.enabled = enabled
        self.host = host
        self.port = port
        self.maxHorizontalError = maxHorizontalError
        self.locateTimeout = locateTimeout
        self.follow = follow
        self.followDistance = followDistance
    }
}
