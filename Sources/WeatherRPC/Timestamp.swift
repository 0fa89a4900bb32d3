#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Timestamps as the protocol writes them: RFC 3339 in UTC with whole seconds.
public enum Timestamp {
    /// `2019-04-28T09:35:55Z`, as `Date.ISO8601FormatStyle()` writes it, made from the C library's
    /// `gmtime_r`: the format style's first use makes a Gregorian calendar, which looks up the
    /// current time zone through ICU and so loads ICU's data (half a megabyte, resident for good) in
    /// a daemon that otherwise never needs it.
    public static func iso8601(_ date: Date) -> String {
        utc(date, milliseconds: false)
    }

    /// `2019-04-28T09:35:55.123Z`, as `Date.ISO8601FormatStyle(includingFractionalSeconds: true)`
    /// writes it (the log lines' time), made the same way.
    public static func iso8601Milliseconds(_ date: Date) -> String {
        utc(date, milliseconds: true)
    }

    /// An RFC 3339 time from a client: with or without fractional seconds, in UTC (`Z`) or with an
    /// offset; nil for any other text.
    public static func parseRFC3339(_ text: String) -> Date? {
        parse(text) ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    /// A timestamp as ``iso8601(_:)`` writes it; nil for any other text.
    public static func parse(_ text: String) -> Date? {
        wholeSecondsUTC(text) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// `2019-04-28T09:35:55Z` (a valid time from 1600 on), read digit by digit; nil for any other text,
    /// which ``parse(_:)`` leaves to the format style. Making the first `ISO8601FormatStyle` looks up
    /// Foundation's time zone types by name, which scans every type a client like `weatherctl` links:
    /// a tenth of its start-up, for the air quality's `at` it does not print.
    private static func wholeSecondsUTC(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19),
            year >= 1600, (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else { return nil }
        // Days since 1970-01-01 in the Gregorian calendar, counted from March (days_from_civil).
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The date in UTC, to the second or the millisecond (truncated, as the format style does),
    /// broken down by the C library (`gmtime_r`, as `weatherctl`'s `WallClock` does).
    private static func utc(_ date: Date, milliseconds: Bool) -> String {
        // Whole seconds and the milliseconds truncated from what is left, from the reference date
        // as the format style counts them (so that their doubles round alike).
        let sinceReference = date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        // From 1600 to 9999 (the C library's calendar is Gregorian before 1582 too, the format
        // style's Julian): any other date, NaN included, as the format style writes it.
        guard (-12_654_403_200...252_423_993_599).contains(whole) else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: milliseconds))
        }
        var seconds = time_t(whole) + 978_307_200
        var fields = tm()
        _ = gmtime_r(&seconds, &fields)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let day = "\(padded(fields.tm_year + 1900, 4))-\(padded(fields.tm_mon + 1, 2))-\(padded(fields.tm_mday, 2))"
        let time = "\(padded(fields.tm_hour, 2)):\(padded(fields.tm_min, 2)):\(padded(fields.tm_sec, 2))"
        guard milliseconds else { return "\(day)T\(time)Z" }
        let fraction = min(Int32(((sinceReference - whole) * 1000).rounded(.down)), 999)
        return "\(day)T\(time).\(padded(fraction, 3))Z"
    }
}
