#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Open-Meteo's units and times, turned into what weatherd answers in.
///
/// An answer names the unit of each variable in its `current_units` / `hourly_units` (`"°C"`,
/// `"km/h"`, `"mm"`, `"cm"`, …). weatherd asks for the units it needs, but reads those names and
/// converts whatever came, so an answer in Open-Meteo's own defaults (°C, km/h) reads right too.
/// A unit name it does not know gives no value (nil) rather than a wrong one; a missing unit name
/// is taken to be the unit weatherd asks for.
enum OpenMeteoUnit {
    /// `temperature_unit` for `units`: Open-Meteo has no Kelvin, so `standard` asks Celsius.
    static func temperatureParameter(_ units: Units) -> String {
        units == .imperial ? "fahrenheit" : "celsius"
    }

    /// `wind_speed_unit` for `units`: m/s, or mph for `imperial`.
    static func windSpeedParameter(_ units: Units) -> String {
        units == .imperial ? "mph" : "ms"
    }

    /// A temperature in `unit` (°C or °F) in the temperature unit of `units`: K, °C or °F.
    static func temperature(_ value: Double?, unit: String?, to units: Units) -> Double? {
        guard let value, value.isFinite else { return nil }
        let celsius: Double
        switch unit?.trimmingWhitespace().lowercased() ?? (units == .imperial ? "°f" : "°c") {
        case "°c", "c", "celsius":
            if units == .metric { return value }
            celsius = value
        case "°f", "f", "fahrenheit":
            if units == .imperial { return value }
            celsius = (value - 32) * 5 / 9
        default:
            return nil
        }
        switch units {
        case .standard: return rounded(celsius + 273.15)
        case .metric: return rounded(celsius)
        case .imperial: return rounded(celsius * 9 / 5 + 32)
        }
    }

    /// A wind speed in `unit` (km/h, m/s, mph or kn) in the speed unit of `units`: m/s, or mph for
    /// `imperial`.
    static func windSpeed(_ value: Double?, unit: String?, to units: Units) -> Double? {
        guard let value, value.isFinite else { return nil }
        let wanted = units == .imperial ? 0.44704 : 1  // metres per second in one unit of the answer
        let given: Double
        switch unit?.trimmingWhitespace().lowercased() ?? (units == .imperial ? "mph" : "m/s") {
        case "m/s", "ms": given = 1
        case "km/h", "kmh": given = 1 / 3.6
        case "mph": given = 0.44704
        case "kn", "kt", "knots": given = 1852.0 / 3600
        default: return nil
        }
        return given == wanted ? value : rounded(value * given / wanted)
    }

    /// An amount of precipitation in `unit` (mm, cm or inch) in millimetres; `absent` is the unit
    /// when the answer names none. Snowfall comes in cm: 1 cm is 10 mm of snow depth.
    static func millimetres(_ value: Double?, unit: String?, absent: String = "mm") -> Double? {
        guard let value, value.isFinite else { return nil }
        switch (unit ?? absent).trimmingWhitespace().lowercased() {
        case "mm": return value
        case "cm": return rounded(value * 10)
        case "inch", "in", "\"": return rounded(value * 25.4)
        default: return nil
        }
    }

    /// The sum of two amounts, whichever is given (`rain` and `showers`), to 2 decimals (0.4 + 1.1 is
    /// 1.5, not 1.5000000000000002); nil when neither is.
    static func total(_ first: Double?, _ second: Double?) -> Double? {
        switch (first, second) {
        case (nil, nil): nil
        case (let one?, nil), (nil, let one?): one
        case (let one?, let other?): rounded(one + other)
        }
    }

    /// A percentage (`%`) as a fraction from 0 to 1.
    static func fraction(_ value: Double?, unit: String?) -> Double? {
        guard let value, value.isFinite, unit == nil || unit == "%" else { return nil }
        return value / 100
    }

    /// A converted value to 2 decimals, as OpenWeatherMap writes its values (`1.4722…` m/s is 1.47).
    private static func rounded(_ value: Double) -> Double {
        (value * 100).rounded() / 100
    }

    // MARK: Times

    /// A time of an answer: `timeformat=unixtime` seconds (always UTC), or `iso8601` text
    /// `YYYY-MM-DDTHH:MM` (or with `:SS`) in the answer's time zone, `utcOffset` seconds east of UTC
    /// (`utc_offset_seconds`; 0 with `timezone=GMT`). nil for anything else.
    static func time(_ value: JSONValue?, utcOffset: Int) -> Date? {
        guard let value else { return nil }
        if value.isNumber {
            guard let seconds = value.doubleValue, seconds.isFinite else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        guard let text = value.stringValue, let local = localSeconds(text) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(local - utcOffset))
    }

    /// Seconds since 1970-01-01T00:00 of a wall-clock time `YYYY-MM-DDTHH:MM[:SS]`, read as if it were
    /// UTC; nil when the text is not one.
    static func localSeconds(_ text: String) -> Int? {
        let halves = text.split(separator: "T", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring, digits: Int) -> Int? {
            guard part.count == digits, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard date.count == 3, time.count == 2 || time.count == 3,
            let year = number(date[0], digits: 4), let month = number(date[1], digits: 2),
            let day = number(date[2], digits: 2), let hour = number(time[0], digits: 2),
            let minute = number(time[1], digits: 2)
        else { return nil }
        let second = time.count == 3 ? number(time[2], digits: 2) : 0
        guard let second, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
