import Foundation
import Testing

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
