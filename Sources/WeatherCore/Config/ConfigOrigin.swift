/// Where the effective value of a key came from, as `weatherd --check-config` shows it beside the value.
public enum ConfigOrigin: Sendable, Equatable, CustomStringConvertible {
    /// Given nowhere: the key's default.
    case `default`
    /// Set in the configuration file at this path (as named in messages).
    case file(String)
    /// Taken from the deprecated key at this path of the file (``ConfigSchema/movedKeys``), the key
    /// itself not being set.
    case movedKey(String)
    /// Given outside the configuration file; the text says where, like `--socket` or `the environment
    /// variable OWM_API_KEY`.
    case elsewhere(String)

    /// `default`, `set in FILE`, `from openweathermap.units (deprecated)`, `from --socket`.
    public var description: String {
        switch self {
        case .default: return "default"
        case .file(let file): return "set in \(file)"
        case .movedKey(let path): return "from \(path) (deprecated)"
        case .elsewhere(let place): return "from \(place)"
        }
    }
}

/// The origin of each key's effective value, by key path; a key not named has its default.
public struct ConfigOrigins: Sendable, Equatable {
    private var byPath: [String: ConfigOrigin] = [:]

    /// Every key at its default.
    public init() {}

    /// Where the value of the key at `path` (like `"weather.units"`) came from.
    public subscript(path: String) -> ConfigOrigin {
        get { byPath[path] ?? .default }
        set { byPath[path] = newValue == .default ? nil : newValue }
    }
}
