/// A configuration as read from a file: the configuration, the warnings found reading it, and where
/// each value came from. ``ConfigLoader/parse(_:file:)`` and ``ConfigLoader/load(path:)`` make one.
public struct LoadedConfig: Sendable, Equatable {
    /// The configuration.
    public var config: DaemonConfig
    /// Problems that do not stop weatherd, like a deprecated key, in the order found; each is one
    /// line `FILE: key.path: message`. The daemon logs each as a warning at start and at each reload,
    /// and `weatherd --check-config` prints them on stderr.
    public var warnings: [ConfigProblem]
    /// Where each value came from.
    public var origins: ConfigOrigins

    /// A configuration with no warning; every value not given an origin has its default.
    public init(config: DaemonConfig = DaemonConfig(), warnings: [ConfigProblem] = [], origins: ConfigOrigins = ConfigOrigins()) {
        self.config = config
        self.warnings = warnings
        self.origins = origins
    }
}
