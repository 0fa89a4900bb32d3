#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Timestamps as the protocol writes them: RFC 3339 in UTC with whole seconds.
public enum Timestamp {
    /// `2019-04-28T09:35:55Z`, as `Date.ISO8601FormatStyle()` writes it, made digit by digit: the
    /// format style's first use makes a Gregorian calendar, which looks up the current time zone
    /// through ICU and so loads ICU's data (half a megabyte, resident for good) in a daemon that
    /// otherwise never needs it.
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

    /// The date in UTC, to the second or the millisecond (truncated, as the format style does).
    private static func utc(_ date: Date, milliseconds: Bool) -> String {
        // Whole seconds and the milliseconds truncated from what is left, from the reference date
        // as the format style counts them (so that their doubles round alike).
        let sinceReference = date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        let seconds = Int64(whole) + 978_307_200
        let fraction = min(Int64(((sinceReference - whole) * 1000).rounded(.down)), 999)
        let (days, secondOfDay) = (seconds.floorDivided(by: 86_400), seconds.floorModulo(86_400))
        // The Gregorian date of a day count from 1970-01-01, counted from March (civil_from_days).
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        var text: [UInt8] = []
        text.reserveCapacity(24)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            if rest >= divisor * 10 {  // a year past 9999: all its digits
                text += Array(String(rest).utf8)
                return
            }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        text.append(UInt8(ascii: "-"))
        digits(month, 2)
        text.append(UInt8(ascii: "-"))
        digits(day, 2)
        text.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        text.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        text.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if milliseconds {
            text.append(UInt8(ascii: "."))
            digits(fraction, 3)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
