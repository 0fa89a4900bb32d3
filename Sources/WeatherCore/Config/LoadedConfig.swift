/// A configuration as read from a file: the configuration and the warnings found reading it. ``ConfigLoader/parse(_:file:)`` and ``ConfigLoader/load(path:)`` make one.
public struct LoadedConfig: Sendable, Equatable {
    /// The configuration.
    public var config: DaemonConfig
    /// Problems that do not stop weatherd, like a deprecated key, in the order found; each is one
    /// line `FILE: key.path: message`. The daemon logs each as a warning at start and at each reload,
    /// and `weatherd --check-config` prints them on stderr.
    public var warnings: [ConfigProblem]

    /// A configuration with these warnings.
    public init(config: DaemonConfig = DaemonConfig(), warnings: [ConfigProblem] = []) {
        self.config = config
        self.warnings = warnings
    }
}
