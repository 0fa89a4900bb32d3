/// What the location input tells the search stream's follow rule (``FollowPolicy``) with each
/// location event: follow mode's settings as they are now (a reload changes them), and what happened.
public struct FollowReport: Sendable, Equatable {
    /// What happened, for follow mode.
    public enum Event: Sendable, Equatable {
        /// A new fused location (a fix accepted, or another source's after the last one expired):
        /// searched when follow is on and it moved `distance` from the last searched point.
        case fused(LocationFix)
        /// A `locate` took this fix: it counts as searched.
        case located(Coordinate)
        /// The machine woke from suspend: the next fused location is searched even if it did not move.
        case resumed
    }

    /// `location.follow`.
    public var follow: Bool
    /// `location.follow_distance`, in metres.
    public var distance: Double
    /// nil: only the settings.
    public var event: Event?

    public init(follow: Bool, distance: Double, _ event: Event? = nil) {
        self.follow = follow
        self.distance = distance
        self.event = event
    }
}
