/// The `[location]` table: the fused location, one accuracy rule for every source.
public struct LocationConfig: Sendable, Equatable {
    /// `max_horizontal_error`: metres; a gpsd or OwnTracks fix with a larger or unknown error is ignored.
    public var maxHorizontalError: Double
    /// `report_max_horizontal_error`: the same for `location.report` (browsers on Wi-Fi or IP are coarser).
    public var reportMaxHorizontalError: Double
    /// `max_age`: a fix older than this (by its own timestamp) is ignored.
    public var maxAge: Duration
    /// `hold`: a newer fix of another source does not replace a more accurate one younger than this.
    public var hold: Duration
    /// `locate_timeout`: default time limit of `locate`.
    public var locateTimeout: Duration
    /// `follow`: every fused fix that moved at least ``followDistance`` starts a search.
    public var follow: Bool
    /// `follow_distance`: metres, see ``follow``.
    public var followDistance: Double

    /// The `[location]` table; every value not given has its default.
    public init(
        maxHorizontalError: Double = 100,
        reportMaxHorizontalError: Double = 5000,
        maxAge: Duration = .seconds(120),
        hold: Duration = .seconds(30),
        locateTimeout: Duration = .seconds(30),
        follow: Bool = false,
        followDistance: Double = 1000
    ) {
        self.maxHorizontalError = maxHorizontalError
        self.reportMaxHorizontalError = reportMaxHorizontalError
        self.maxAge = maxAge
        self.hold = hold
        self.locateTimeout = locateTimeout
        self.follow = follow
        self.followDistance = followDistance
    }
}
