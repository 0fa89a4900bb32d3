import TOMLKit

/// One key of `weatherd.toml`: its path, what it holds (type and range), how it is written, and what a
/// reload does with a new value. ``ConfigSchema/keys`` lists them all; checking, rendering and the
/// reload decision all read that one list.
///
/// A key's default is the default of the ``DaemonConfig`` property it is read into.
public struct ConfigKey: Sendable {
    /// What a configuration reload (SIGHUP) does with a new value of a key.
    public enum Reload: Sendable, Equatable {
        /// Applied at once by the part of the daemon that uses it.
        case live
        /// Applied at once, and weather fetched before is wrong now (other units, language or
        /// provider): cached answers are dropped and the watched cities looked up again.
        case refetch
        /// Takes effect after a restart; a reload logs that.
        case restart
    }

    /// The dotted path, like `weather.units`; a top-level key has no dot.
    public let path: String
    /// What a reload does with a new value.
    public let reload: Reload
    /// For a deprecated key (``ConfigSchema/movedKeys``): the path of the key it moved to, whose
    /// property it is read into when that key is not given. nil for a key of ``ConfigSchema/keys``.
    public let movedTo: String?
    private let readValue: @Sendable (TOMLValueConvertible, String, inout DaemonConfig, ConfigValueType<String>.Report) -> Void
    private let writeValue: @Sendable (DaemonConfig) -> String?
    private let differsValue: @Sendable (DaemonConfig, DaemonConfig) -> Bool

    /// A key at `path` read into `field` of the configuration.
    init<Value>(
        _ path: String, _ field: WritableKeyPath<DaemonConfig, Value> & Sendable, _ type: ConfigValueType<Value>,
        reload: Reload
    ) {
        self.path = path
        self.reload = reload
        movedTo = nil
        readValue = { value, path, config, report in
            if let read = type.read(value, path, report) { config[keyPath: field] = read }
        }
        writeValue = { type.write($0[keyPath: field]) }
        differsValue = { $0[keyPath: field] != $1[keyPath: field] }
    }

    private init(moving key: ConfigKey, from path: String) {
        self.path = path
        reload = key.reload
        movedTo = key.path
        readValue = key.readValue
        writeValue = key.writeValue
        differsValue = key.differsValue
    }

    /// The deprecated key at `oldPath` that this key replaces: the same type, checks and property,
    /// with problems reported at `oldPath`.
    func moved(from oldPath: String) -> ConfigKey {
        ConfigKey(moving: self, from: oldPath)
    }

    /// The table the key is in ("" for the top level).
    public var table: String {
        guard let dot = path.firstIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }

    /// The key's name inside its table.
    public var name: String {
        guard let dot = path.firstIndex(of: ".") else { return path }
        return String(path[path.index(after: dot)...])
    }

    /// Reads `value` into `config`, reporting every problem; a value with a problem leaves `config` as it was.
    func read(_ value: TOMLValueConvertible, into config: inout DaemonConfig, report: ConfigValueType<String>.Report) {
        readValue(value, path, &config, report)
    }

    /// The key's value in `config` as TOML text, or nil when it is not set.
    public func written(_ config: DaemonConfig) -> String? { writeValue(config) }

    /// The key's value in `config` for a log line: as TOML text, but a plain string without its quotes.
    public func shown(_ config: DaemonConfig) -> String {
        guard let text = written(config) else { return "nothing" }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\""), !text.contains("\\" as Character) {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// Whether the key has different values in the two configurations.
    public func differs(_ old: DaemonConfig, _ new: DaemonConfig) -> Bool { differsValue(old, new) }
}
