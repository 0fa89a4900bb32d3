#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Timestamps as the protocol writes them: RFC 3339 in UTC with whole seconds.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())  // 2019-04-28T09:35:55Z
    }

    /// An RFC 3339 time from a client: with or without fractional seconds, in UTC (`Z`) or with an
    /// offset; nil for any other text.
    public static func parseRFC3339(_ text: String) -> Date? {
        parse(text) ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    /// A timestamp as ``iso8601(_:)`` writes it; nil for any other text.
    public static func parse(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }
}
