/// Follow mode: the first fused fix, then each one at least `distance` metres from the last
/// searched one, starts a search.
public struct FollowPolicy: Sendable, Hashable {
    public var distance: Double
    public private(set) var lastSearched: Coordinate?

    public init(distance: Double) {
        self.distance = distance
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

    /// A fix was searched some other way (`locate`).
    public mutating func searched(_ coordinate: Coordinate) {
        lastSearched = coordinate
    }
}
