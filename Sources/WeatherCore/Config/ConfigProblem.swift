/// One thing wrong with a configuration file.
///
/// Its ``description`` is the line printed on stderr (an editor can jump to `FILE:LINE:COLUMN`):
/// - `FILE:LINE:COLUMN: message` for a TOML syntax error (``line`` and ``column`` set);
/// - `FILE:LINE:COLUMN: key.path: message` for an unknown key, a wrong type or an out-of-range value
///   (``keyPath`` set, and the key's position in the file); `FILE: key.path: message` for a problem
///   with a key whose position is not known (one that comes from elsewhere than the file);
/// - `FILE: message` for a problem that belongs to no key, such as a missing API key.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    /// The configuration file, as named in messages.
    public var file: String
    /// The line (from 1) of a syntax error, or of the key the problem is about.
    public var line: Int?
    /// The column (from 1) of a syntax error, or of the key the problem is about.
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

    /// The problem as one line: `FILE:LINE:COLUMN: message`, `FILE:LINE:COLUMN: key.path: message`,
    /// `FILE: key.path: message` or `FILE: message`.
    public var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        if let keyPath {
            return "\(location): \(keyPath): \(message)"
        }
        return "\(location): \(message)"
    }

    /// The problem at the position of its key in the file, where `positions` know it.
    func placed(by positions: TOMLKeyPositions) -> ConfigProblem {
        guard line == nil, let keyPath, let position = positions.position(of: keyPath) else { return self }
        var placed = self
        placed.line = position.line
        placed.column = position.column
        return placed
    }
}
