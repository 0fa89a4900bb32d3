import Logging
import WeatherRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one line per log event to stderr. Under systemd (`JOURNAL_STREAM` set) each line starts
/// with its sd-daemon priority (`<3>` … `<7>`) and carries neither timestamp nor name (journald adds
/// both: `weatherd[87]: …`); otherwise lines start with an RFC 3339 timestamp, the level and the name.
public struct DaemonLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let journald: Bool

    public init(label: String, level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        self.logLevel = level
        self.journald = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The sd-daemon priority of a level (syslog severities).
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    public func log(event: LogEvent) {
        Self.writeToStandardError(format(level: event.level, message: event.message, metadata: event.metadata))
    }

    /// Writes `text` to stderr with one `write(2)`, so lines of different threads do not interleave.
    public static func writeToStandardError(_ text: String) {
        text.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(STDERR_FILENO, buffer.baseAddress, buffer.count - 1)
        }
    }

    /// A fatal error before logging is set up (a configuration error at start), one or more lines:
    /// under journald each line at priority err (`<3>`), else as they are.
    public static func fatalLines(_ text: String, environment: [String: String]) -> String {
        plainLines(text, level: .error, environment: environment)
    }

    /// Text written to stderr without a logger (before logging is set up, or by `--check-config`), one
    /// or more lines: under journald each line at the priority of `level`, else as they are.
    public static func plainLines(_ text: String, level: Logger.Level, environment: [String: String]) -> String {
        let journald = environment["JOURNAL_STREAM"].map { !$0.isEmpty } ?? false
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        return lines.map { journald ? "<\(priority(level))>\($0)\n" : "\($0)\n" }.joined()
    }

    /// `text` on one line: each newline a space. With the standard library alone: the string
    /// processing library's `replacing` would make its 400 KB of code resident for the first line.
    static func oneLine(_ text: String) -> String {
        text.contains("\n" as Character) ? String(text.map { $0 == "\n" ? " " : $0 }) : text
    }

    func format(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?) -> String {
        var all = metadata
        if let extra { all.merge(extra) { $1 } }
        let fields = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = Self.oneLine("\(message)\(fields)")
        if journald {
            return "<\(Self.priority(level))>\(text)\n"
        }
        let time = Timestamp.iso8601Milliseconds(Date())
        return "\(time) \(level) \(label): \(text)\n"
    }
}
