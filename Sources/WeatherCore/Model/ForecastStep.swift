#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step of a forecast: 3 hours from OpenWeatherMap, 1 hour from Open-Meteo. Values the
/// provider did not send are nil.
public struct ForecastStep: Sendable, Hashable, JSONRepresentable {
    /// The length of OpenWeatherMap's steps and of Open-Meteo's, in seconds.
    public static let threeHours = 10_800
    public static let oneHour = 3_600

    /// The start of the step (`dt`).
    public var at: Date
    public var temperature: Double?
    public var feelsLike: Double?
    public var tempMin: Double?
    public var tempMax: Double?
    public var humidity: Double?
    public var pressure: Double?
    public var windSpeed: Double?
    public var windDeg: Double?
    public var clouds: Double?
    /// Probability of precipitation, 0 to 1.
    public var pop: Double?
    /// Rain in the step (`rain_3h`, whatever the step's length), in mm.
    public var rain3h: Double?
    /// Snow in the step, in mm.
    public var snow3h: Double?
    public var condition: String?
    public var conditionDescription: String?
    public var icon: String?

    public init(
        at: Date, temperature: Double? = nil, feelsLike: Double? = nil, tempMin: Double? = nil, tempMax: Double? = nil,
        humidity: Double? = nil, pressure: Double? = nil, windSpeed: Double? = nil, windDeg: Double? = nil,
        clouds: Double? = nil, pop: Double? = nil, rain3h: Double? = nil, snow3h: Double? = nil,
        condition: String? = nil, conditionDescription: String? = nil, icon: String? = nil
    ) {
        self.at = at
        self.temperature = temperature
        self.feelsLike = feelsLike
        self.tempMin = tempMin
        self.tempMax = tempMax
        self.humidity = humidity
        self.pressure = pressure
        self.windSpeed = windSpeed
        self.windDeg = windDeg
        self.clouds = clouds
        self.pop = pop
        self.rain3h = rain3h
        self.snow3h = snow3h
        self.condition = condition
        self.conditionDescription = conditionDescription
        self.icon = icon
    }

    /// One entry of `properties.forecast`.
    public var json: JSONValue {
        .object([
            "at": .string(Timestamp.iso8601(at)),
            "temperature": .number(temperature), "feels_like": .number(feelsLike),
            "temp_min": .number(tempMin), "temp_max": .number(tempMax),
            "humidity": .number(humidity), "pressure": .number(pressure),
            "wind_speed": .number(windSpeed), "wind_deg": .number(windDeg), "clouds": .number(clouds),
            "pop": .number(pop), "rain_3h": .number(rain3h), "snow_3h": .number(snow3h),
            "condition": .string(condition), "description": .string(conditionDescription),
            "icon": .string(icon), "symbol": .string(icon.flatMap(WeatherSymbol.glyph(forIcon:))),
        ])
    }
}
