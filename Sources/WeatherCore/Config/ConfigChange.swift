/// A configuration read again at a reload (SIGHUP), beside the one it replaces.
public struct ConfigChange: Sendable {
    /// The configuration in force until now.
    public let old: DaemonConfig
    /// The configuration from now on.
    public let new: DaemonConfig
    /// The providers' keys found with the new configuration.
    public let keys: ProviderKeys
    /// The keys whose values differ, in the order of ``ConfigSchema/keys``.
    public let changedKeys: [ConfigKey]

    public init(old: DaemonConfig, new: DaemonConfig, keys: ProviderKeys) {
        self.old = old
        self.new = new
        self.keys = keys
        self.changedKeys = ConfigSchema.keys.filter { $0.differs(old, new) }
    }

    /// Whether the key at `path` (like `"gpsd.port"`) changed.
    public func changed(_ path: String) -> Bool {
        changedKeys.contains { $0.path == path }
    }

    /// Whether any key of `table` changed.
    public func changed(table: String) -> Bool {
        changedKeys.contains { $0.table == table }
    }

    /// Changed keys that take effect only after a restart.
    public var needingRestart: [ConfigKey] {
        changedKeys.filter { $0.reload == .restart }
    }

    /// Whether weather fetched under the old configuration is wrong now (other units, language or
    /// provider): cached answers must go and the watched cities be looked up again.
    public var invalidatesWeather: Bool {
        changedKeys.contains { $0.reload == .refetch }
    }

    /// What changed, for the log: the tables, and the top-level keys, each once, in order.
    public var summary: [String] {
        var names: [String] = []
        for key in changedKeys {
            let name = key.table.isEmpty ? key.name : key.table
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}
