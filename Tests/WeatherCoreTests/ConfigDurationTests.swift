import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: duration text")
struct ConfigDurationTests {
    @Test(
        "durations parse from a number and a unit",
        arguments: [
            ("250ms", Duration.milliseconds(250)),
            ("10s", .seconds(10)),
            ("10m", .seconds(600)),
            ("1h", .seconds(3600)),
            ("1.5s", .milliseconds(1500)),
            ("0.25s", .milliseconds(250)),
            ("1.50m", .seconds(90)),
            ("0s", .zero),
            ("0.5ms", .microseconds(500)),
            ("007s", .seconds(7)),
        ])
    func parses(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test(
        "malformed durations do not parse",
        arguments: [
            "", "10", "s", "-1s", "+1s", "1 s", " 1s", "1s ", "1w", "1D", "d", "1.d", "-1d", "1S", "1.s", ".5s", "1..5s",
            "1e3s", "1.5.5s", "0.0000000001s", "99999999999999999999h", "999999999999d", "10sec", "1m30s", "1d12h",
        ])
    func rejects(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test(
        "durations format in the shortest exact form",
        arguments: [
            (Duration.seconds(600), "10m"),
            (.milliseconds(250), "250ms"),
            (.seconds(3600), "1h"),
            (.seconds(5400), "90m"),
            (.seconds(90), "90s"),
            (.milliseconds(1500), "1.5s"),
            (.milliseconds(100), "100ms"),
            (.seconds(10), "10s"),
            (.zero, "0s"),
            (.microseconds(500), "0.5ms"),
            (.nanoseconds(1), "0.000001ms"),
            (.milliseconds(1001), "1001ms"),
            (.milliseconds(1250), "1.25s"),
            (.seconds(61), "61s"),
            (.seconds(-5), "-5s"),
        ])
    func formats(duration: Duration, expected: String) {
        #expect(DurationText.format(duration) == expected)
    }

    /// A day in seconds.
    static let day: Int64 = 86_400

    /// Days: text, and the duration.
    static let days: [(String, Duration)] = [
        ("30d", .seconds(30 * day)), ("1d", .seconds(day)), ("2d", .seconds(2 * day)), ("365d", .seconds(365 * day)),
    ]

    @Test("days parse and format as \"d\"", arguments: days)
    func inDays(text: String, duration: Duration) {
        #expect(DurationText.parse(text) == duration)
        #expect(DurationText.format(duration) == text)
    }

    @Test("a day is 24 hours; a part of a day is written in a smaller unit when that is shorter")
    func partsOfDays() {
        #expect(DurationText.parse("1.5d") == .seconds(36 * 3600))
        #expect(DurationText.parse("0d") == .zero)
        #expect(DurationText.parse("24h") == DurationText.parse("1d"))
        #expect(DurationText.format(.seconds(36 * 3600)) == "36h")
        #expect(DurationText.format(.seconds(Self.day + 1)) == "86401s")
        #expect(DurationText.format(.seconds(Self.day / 2 * 5)) == "60h")
    }

    @Test(
        "formatted durations parse back to the same value",
        arguments: [
            Duration.nanoseconds(1), .microseconds(1234), .milliseconds(999), .seconds(59), .seconds(86_400 * 365),
            .seconds(7) + .milliseconds(3), .seconds(3601),
        ])
    func roundTrip(duration: Duration) {
        #expect(DurationText.parse(DurationText.format(duration)) == duration)
    }
}
