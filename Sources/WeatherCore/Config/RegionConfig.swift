/// The `[region]` table.
public struct RegionConfig: Sendable, Equatable {
    /// `debounce`: quiet time after the last region event before its search starts.
    public var debounce: Duration
    /// `around`: grid radius; 0 = the centre only, 1 = 3×3 points, 2 = 5×5 points.
    public var around: Int
    /// `concurrency`: lookups of one grid in flight at once.
    public var concurrency: Int

    /// The `[region]` table; every value not given has its default.
    public init(debounce: Duration = .milliseconds(250), around: Int = 1, concurrency: Int = 4) {
        self.debounce = debounce
        self.around = around
        self.concurrency = concurrency
    }
}
