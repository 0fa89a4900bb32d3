#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
