import Foundation
import WeatherCore

/// The timezone of an Open-Meteo forecast answer (`timezone=`): its times are written in it, and
/// its days (`forecast_days`, `daily=`) begin at its midnight. As Open-Meteo does, one offset serves
/// the whole answer: the zone's offset at the answer's current time.
struct OpenMeteoZone: Sendable, Equatable {
    let identifier: String
    let abbreviation: String
    let offset: Int

    static let gmt = OpenMeteoZone(identifier: "GMT", abbreviation: "GMT", offset: 0)

    init(identifier: String, abbreviation: String, offset: Int) {
        self.identifier = identifier
        self.abbreviation = abbreviation
        self.offset = offset
    }

    /// The zone `name` (an IANA name such as `Europe/Berlin`, or `GMT`, `UTC`) at `time`; nil for
    /// a name it does not know.
    init?(named name: String, at time: Int) {
        if name == "GMT" {
            self = .gmt
            return
        }
        guard let zone = TimeZone(identifier: name) else { return nil }
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        self.init(
            identifier: zone.identifier, abbreviation: zone.abbreviation(for: date) ?? "",
            offset: zone.secondsFromGMT(for: date))
    }

    /// Unix seconds as `2021-11-24T23:00` in this zone (no zone suffix, as Open-Meteo writes them).
    func dateTime(_ time: Int) -> String {
        let parts = Self.parts(time + offset)
        return String(format: "%04d-%02d-%02dT%02d:%02d", parts.year, parts.month, parts.day, parts.hour, parts.minute)
    }

    /// The day that begins at `time` (a midnight in this zone) as `2021-11-24`.
    func date(_ time: Int) -> String {
        let parts = Self.parts(time + offset)
        return String(format: "%04d-%02d-%02d", parts.year, parts.month, parts.day)
    }

    /// The midnight (in this zone) of the day of `time`, as Unix seconds.
    func startOfDay(_ time: Int) -> Int {
        Int((Double(time + offset) / 86400).rounded(.down)) * 86400 - offset
    }

    /// The full hour of `time`, as Unix seconds.
    func startOfHour(_ time: Int) -> Int {
        Int((Double(time + offset) / 3600).rounded(.down)) * 3600 - offset
    }

    /// A time written as `2021-11-24T23:00` (seconds optional) in a zone `offset` seconds ahead of
    /// UTC, as Unix seconds; nil when it is not one.
    static func time(_ text: String, offset: Int) -> Int? {
        let digits = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0) }
        guard digits.count >= 5, digits.count <= 6, digits.allSatisfy({ $0 != nil }) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(digits[0]! - 1900)
        parts.tm_mon = Int32(digits[1]! - 1)
        parts.tm_mday = Int32(digits[2]!)
        parts.tm_hour = Int32(digits[3]!)
        parts.tm_min = Int32(digits[4]!)
        parts.tm_sec = Int32(digits.count == 6 ? digits[5]! : 0)
        return Int(timegm(&parts)) - offset
    }

    private static func parts(_ seconds: Int) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
    }
}
