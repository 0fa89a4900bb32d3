/// One thing wrong with a configuration file.
///
/// Its ``description`` is the line printed on stderr:
/// - `FILE:LINE:COLUMN: message` for a TOML syntax error (``line`` and ``column`` set);
/// - `FILE: key.path: message` for an unknown key, a wrong type or an out-of-range value (``keyPath`` set);
/// - `FILE: message` for a problem that belongs to no key, such as a missing API key.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    /// The configuration file, as named in messages.
    public var file: String
    /// The line (from 1) of a syntax error.
    public var line: Int?
    /// The column (from 1) of a syntax error.
    public var column: Int?
    /// The dotted path of the key the problem is about, like `openweathermap.units` or `cities[1]`.
    public var keyPath: String?
    /// What is wrong: lower-case, short, what was expected and what was found.
    public var message: String

    /// A problem; give `line` and `column` for syntax errors, `keyPath` for problems with a key.
    public init(file: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// The problem as one line: `FILE:LINE:COLUMN: message`, `FILE: key.path: message` or `FILE: message`.
    public var description: String {
        if let line {
            if let column {
                return "\(file):\(line):\(column): \(message)"
            }
            return "\(file):\(line): \(message)"
        }
        if let keyPath {
            return "\(file): \(keyPath): \(message)"
        }
        return "\(file): \(message)"
    }
}
