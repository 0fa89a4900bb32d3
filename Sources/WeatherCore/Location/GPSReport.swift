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
