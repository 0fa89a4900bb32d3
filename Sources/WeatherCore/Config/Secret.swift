/// A secret string (the OpenWeatherMap API key) that never prints itself.
///
/// `description`, `debugDescription` and string interpolation all give `<redacted>`; only
/// `revealed` gives the value, for the one place that must send it.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    private let value: String

    public init(_ value: String) {
        self.value = value
    }

    /// The secret itself. Use only to put it on the wire.
    public var revealed: String { value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
