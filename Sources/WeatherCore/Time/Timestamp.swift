import Foundation

/// Timestamps as the protocol writes them: RFC 3339 in UTC with whole seconds.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())  // 2019-04-28T09:35:55Z
    }

    /// A timestamp as ``iso8601(_:)`` writes it; nil for any other text.
    public static func parse(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }
}
