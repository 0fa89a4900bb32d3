import Foundation
import Testing
import WeatherCore

@testable import weatherctl

@Suite("WallClock: times as weatherctl prints them, from the C library")
struct WallClockTests {
    @Test("a protocol timestamp read in UTC: weekday, day and month abbreviated in English, a 24-hour clock")
    func dayAndTime() {
        #expect(WallClock.dayAndTime("2018-12-01T00:00:00Z", in: .utc) == "Sat 01 Dec 00:00")
        #expect(WallClock.dayAndTime("2026-05-21T03:30:59Z", in: .utc) == "Thu 21 May 03:30")
        #expect(WallClock.dayAndTime("2024-02-29T23:05:00Z", in: .utc) == "Thu 29 Feb 23:05")
        #expect(WallClock.dayAndTime("1970-01-01T00:00:00Z", in: .utc) == "Thu 01 Jan 00:00")
    }

    @Test("the hour and minute alone, zero-padded")
    func hourAndMinute() {
        #expect(WallClock(Date(timeIntervalSince1970: 3_600 * 9 + 60 * 5 + 59.9), in: .utc)?.hourAndMinute == "09:05")
        #expect(WallClock(Date(timeIntervalSince1970: 3_600 * 23 + 60 * 59), in: .utc)?.hourAndMinute == "23:59")
    }

    @Test("a moment before 1970 keeps its minute (the seconds are rounded down, not toward zero)")
    func beforeTheEpoch() {
        #expect(WallClock(Date(timeIntervalSince1970: -0.5), in: .utc)?.dayAndTime == "Wed 31 Dec 23:59")
    }

    @Test("text that is not a timestamp as the protocol writes it is no time")
    func notATimestamp() {
        #expect(WallClock.dayAndTime("tomorrow", in: .utc) == nil)
        #expect(WallClock.dayAndTime("", in: .local) == nil)
    }

    @Test("trimmingSpaces drops tabs and spaces, Unicode's too, at either end, and keeps line breaks")
    func trimming() {
        #expect("  overlays ,".trimmingSpaces == "overlays ,")
        #expect("\t\u{00A0}state\u{2003}".trimmingSpaces == "state")
        #expect(" \n a \n ".trimmingSpaces == "\n a \n")
        #expect("   ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
    }
}

@Suite("Timestamp.parse: the protocol's form read digit by digit, as the format style reads it")
struct TimestampParseTests {
    static func formatStyle(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }

    @Test("a time every 3 days, 1 hour, 1 minute and 1 second from 1999 to 2101, and the edges of days, months and leap years")
    func sameAsTheFormatStyle() {
        var texts = [
            "2019-04-28T09:35:55Z", "2000-02-29T12:00:00Z", "2100-02-28T23:59:59Z", "1970-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z", "1600-03-01T00:00:00Z", "9999-12-31T23:59:59Z",
        ]
        var date = Date(timeIntervalSince1970: 915_148_800)  // 1999-01-01
        while date < Date(timeIntervalSince1970: 4_133_980_800) {  // 2101-01-01
            texts.append(Timestamp.iso8601(date))
            date = date.addingTimeInterval(3 * 86_400 + 3_661)
        }
        for text in texts {
            #expect(Timestamp.parse(text) == Self.formatStyle(text), "\(text)")
            #expect(Timestamp.parse(text) != nil, "\(text)")
        }
    }

    @Test("text the digit-by-digit reading turns away reads as the format style reads it")
    func othersLeftToTheFormatStyle() {
        for text in [
            "2019-02-29T00:00:00Z", "2019-13-01T00:00:00Z", "2019-04-31T00:00:00Z", "2019-04-28T24:00:00Z",
            "2019-04-28T09:35:60Z", "2019-04-28T09:35:55+02:00", "2019-04-28t09:35:55z", "2019-04-28T09:35:5Z", "1500-01-01T00:00:00Z",
            "", "tomorrow", "２019-04-28T09:35:55Z",
        ] {
            #expect(Timestamp.parse(text) == Self.formatStyle(text), "\(text)")
        }
    }
}

@Suite("Timestamp.iso8601: made from the C library, as the format style writes it")
struct TimestampFormatTests {
    @Test(
        "every 3 days, 1 hour, 1 minute, 1.0013 s from 1600 to 2200 and the edges of days, months, leap years and the epoch, to the second and the millisecond; distant dates and NaN too"
    )
    func sameAsTheFormatStyle() {
        var dates =
            [0, -0.0005, -1, 86_399.9999, 951_782_400, 4_107_542_399.999, 1_556_444_155.123, -11_676_096_000, 253_402_300_799]
            .map(Date.init(timeIntervalSince1970:)) + [
                .distantPast, .distantFuture, Date(timeIntervalSince1970: 1e20), Date(timeIntervalSince1970: -1e300),
                Date(timeIntervalSince1970: .nan),
            ]
        var date = Date(timeIntervalSince1970: -11_676_096_000)  // 1600-01-01
        while date < Date(timeIntervalSince1970: 7_258_118_400) {  // 2200-01-01
            dates.append(date)
            date = date.addingTimeInterval(3 * 86_400 + 3_661.0013)
        }
        for date in dates {
            #expect(Timestamp.iso8601(date) == date.formatted(Date.ISO8601FormatStyle()), "\(date.timeIntervalSince1970)")
            #expect(
                Timestamp.iso8601Milliseconds(date) == date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                "\(date.timeIntervalSince1970)")
        }
    }
}
