import WeatherRPC

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

/// A moment as a clock on the wall reads it: in the local time zone (`TZ`, else /etc/localtime, as
/// every program on the machine reads it) or in UTC. From the C library (`localtime_r`), so
/// `weatherctl` needs neither Foundation's calendars nor its ICU to print a time.
struct WallClock: Sendable, Equatable {
    /// Where the clock is.
    enum Zone: Sendable {
        /// The machine's (or `TZ`'s) local time.
        case local
        case utc
    }

    /// 0 (Sunday) to 6.
    var weekday: Int
    /// 1 to 31.
    var day: Int
    /// 1 to 12.
    var month: Int
    var hour: Int
    var minute: Int

    /// `date` read in `zone`; nil for a date the C library cannot break down.
    init?(_ date: Date, in zone: Zone) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        let broken = zone == .utc ? gmtime_r(&seconds, &fields) : localtime_r(&seconds, &fields)
        guard broken != nil else { return nil }
        weekday = Int(fields.tm_wday)
        day = Int(fields.tm_mday)
        month = Int(fields.tm_mon) + 1
        hour = Int(fields.tm_hour)
        minute = Int(fields.tm_min)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// `09:05`.
    var hourAndMinute: String { "\(Self.twoDigits(hour)):\(Self.twoDigits(minute))" }

    /// `Sat 01 Dec 09:05`.
    var dayAndTime: String {
        "\(Self.weekdays[weekday]) \(Self.twoDigits(day)) \(Self.months[month - 1]) \(hourAndMinute)"
    }

    /// `text`, a timestamp as the protocol writes it, as ``dayAndTime`` in `zone`; nil when it is not one.
    static func dayAndTime(_ text: String, in zone: Zone) -> String? {
        Timestamp.parse(text).flatMap { WallClock($0, in: zone) }?.dayAndTime
    }
}
