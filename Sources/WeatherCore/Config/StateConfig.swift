/// The `[state]` table.
public struct StateConfig: Sendable, Equatable {
    /// `directory`: where the durable state (added and removed cities) is kept.
    public var directory: String

    /// The `[state]` table; every value not given has its default.
    public init(directory: String = "/var/lib/weatherd") {
        self.directory = directory
    }
}
