import WeatherCore

/// The units an Open-Meteo forecast request asks for (`temperature_unit`, `wind_speed_unit`,
/// `precipitation_unit`, `timeformat`), how values convert to them and how they are written.
struct OpenMeteoUnits: Sendable, Equatable {
    enum Temperature: String, Sendable { case celsius, fahrenheit }
    enum WindSpeed: String, Sendable { case kmh, ms, mph, kn }
    enum Precipitation: String, Sendable { case mm, inch }
    enum TimeFormat: String, Sendable { case iso8601, unixtime }

    var temperature = Temperature.celsius
    var windSpeed = WindSpeed.kmh
    var precipitation = Precipitation.mm
    var timeFormat = TimeFormat.iso8601

    /// The unit a quantity is written in, as `*_units` names it.
    func name(of quantity: OpenMeteoQuantity) -> String {
        switch quantity {
        case .temperature: temperature == .celsius ? "°C" : "°F"
        case .speed:
            switch windSpeed {
            case .kmh: "km/h"
            case .ms: "m/s"
            case .mph: "mph"
            case .kn: "kn"
            }
        case .precipitation: precipitation == .mm ? "mm" : "inch"
        case .snowfall: precipitation == .mm ? "cm" : "inch"
        case .percent: "%"
        case .pressure: "hPa"
        case .direction: "°"
        case .weatherCode: "wmo code"
        case .flag: ""
        }
    }

    /// `value`, in the stand-in's own unit of `quantity` (°C, km/h, mm, cm…), converted and rounded
    /// as Open-Meteo writes it: temperatures, speeds and pressures to 1 decimal, amounts in mm or
    /// cm to 2, in inches to 3, the rest whole; `null` for none.
    func json(_ value: Double?, _ quantity: OpenMeteoQuantity) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        switch quantity {
        case .temperature:
            return .rounded(temperature == .celsius ? value : value * 9 / 5 + 32, decimals: 1)
        case .speed:
            let converted =
                switch windSpeed {
                case .kmh: value
                case .ms: value / 3.6
                case .mph: value / 1.609344
                case .kn: value / 1.852
                }
            return .rounded(converted, decimals: 1)
        case .precipitation:
            return precipitation == .mm ? .rounded(value, decimals: 2) : .rounded(value / 25.4, decimals: 3)
        case .snowfall:
            return precipitation == .mm ? .rounded(value, decimals: 2) : .rounded(value / 2.54, decimals: 3)
        case .pressure:
            return .rounded(value, decimals: 1)
        case .percent, .direction, .weatherCode, .flag:
            return .integer(Int64(value.rounded()))
        }
    }

    /// A value of a recording, written in the unit `unit` names, in the stand-in's own unit of
    /// `quantity`; nil for a unit it does not know.
    static func canonical(_ value: Double, unit: String, _ quantity: OpenMeteoQuantity) -> Double? {
        switch (quantity, unit) {
        case (.temperature, "°C"), (.speed, "km/h"), (.precipitation, "mm"), (.snowfall, "cm"): value
        case (.temperature, "°F"): (value - 32) * 5 / 9
        case (.speed, "m/s"): value * 3.6
        case (.speed, "mph"): value * 1.609344
        case (.speed, "kn"): value * 1.852
        case (.precipitation, "inch"): value * 25.4
        case (.snowfall, "inch"): value * 2.54
        case (.percent, _), (.pressure, _), (.direction, _), (.weatherCode, _), (.flag, _): value
        default: nil
        }
    }
}
