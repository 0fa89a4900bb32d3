import Foundation

/// One position report from gpsd (a TPV message), as the reader saw it. Unknown values are nil.
public struct GPSReport: Sendable, Hashable {
    /// gpsd's fix mode: 0 not seen, 1 no fix, 2 2D, 3 3D.
    public var mode: Int
    /// Nil when the report carried no position (a TPV can carry a mode without one).
    public var coordinate: Coordinate?
    /// gpsd's `eph` in metres; nil when unknown.
    public var horizontalError: Double?

    public init(mode: Int, coordinate: Coordinate?, horizontalError: Double?) {
        self.mode = mode
        self.coordinate = coordinate
        self.horizontalError = horizontalError
    }
}

/// Which reports are good enough to search with (`gpsd.max_horizontal_error`).
public struct FixFilter: Sendable, Hashable {
    public var maxHorizontalError: Double

    public init(maxHorizontalError: Double) {
        self.maxHorizontalError = maxHorizontalError
    }

    /// The fix when `report` has mode 2D or 3D, a position, and a known horizontal error no larger
    /// than the maximum; else nil. The decision rests on `mode`, never on gpsd's `status`.
    public func accept(_ report: GPSReport, at time: Date) -> GPSFix? {
        guard report.mode == 2 || report.mode == 3,
              let coordinate = report.coordinate, coordinate.isValid,
              let error = report.horizontalError, error.isFinite, error >= 0, error <= maxHorizontalError
        else { return nil }
        return GPSFix(coordinate: coordinate, horizontalError: error, mode: report.mode, at: time)
    }
}

/// Follow mode: the first accepted fix, then each one at least `distance` metres from the last
/// searched one, starts a search.
public struct FollowPolicy: Sendable, Hashable {
    public var distance: Double
    public private(set) var lastSearched: Coordinate?

    public init(distance: Double) {
        self.distance = distance
    }

    /// Whether `fix` should start a search; if so it becomes the last searched point.
    public mutating func shouldSearch(_ fix: GPSFix) -> Bool {
        if let lastSearched, fix.coordinate.distance(to: lastSearched) < distance { return false }
        lastSearched = fix.coordinate
        return true
    }

    /// A fix was searched some other way (`locate`).
    public mutating func searched(_ coordinate: Coordinate) {
        lastSearched = coordinate
    }
}

extension FixSummary {
    public init(_ fix: GPSFix) {
        self.init(coordinate: fix.coordinate, horizontalError: fix.horizontalError, mode: fix.mode)
    }
}
