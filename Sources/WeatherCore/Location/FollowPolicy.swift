/// Follow mode: with `location.follow` on, the first fused location, then each one at least
/// `distance` metres from the last searched point, starts a search. A plain value, owned by the
/// search stream (``SearchStream``), which feeds it the location input's reports.
public struct FollowPolicy: Sendable, Hashable {
    /// `location.follow`: off, no fused location starts a search (nor moves the last searched point).
    public var enabled: Bool
    public var distance: Double
    public private(set) var lastSearched: Coordinate?

    public init(distance: Double, enabled: Bool = true) {
        self.distance = distance
        self.enabled = enabled
    }

    /// A report of the location input: its settings first, then its event. Returns the fused
    /// location to search, if its event is one that should be.
    public mutating func take(_ report: FollowReport) -> LocationFix? {
        enabled = report.follow
        distance = report.distance
        switch report.event {
        case .fused(let fix)?:
            return enabled && shouldSearch(fix) ? fix : nil
        case .located(let point)?:
            searched(point)
        case .resumed?:
            forget()
        case nil:
            break
        }
        return nil
    }

    /// Whether `fix` should start a search; if so it becomes the last searched point.
    public mutating func shouldSearch(_ fix: LocationFix) -> Bool {
        if let lastSearched, fix.coordinate.distance(to: lastSearched) < distance { return false }
        lastSearched = fix.coordinate
        return true
    }

    /// After a resume: the next fix is searched even if it did not move.
    public mutating func forget() {
        lastSearched = nil
    }

    /// A point was searched some other way (`locate`, a location search).
    public mutating func searched(_ coordinate: Coordinate) {
        lastSearched = coordinate
    }
}
