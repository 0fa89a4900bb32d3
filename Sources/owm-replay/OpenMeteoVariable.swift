/// What a value of Open-Meteo's forecast measures: its unit, how it converts and to how many
/// decimals it is written.
enum OpenMeteoQuantity: Sendable {
    /// °C or °F (`temperature_unit`).
    case temperature
    /// km/h, m/s, mph or kn (`wind_speed_unit`).
    case speed
    /// mm or inch of water (`precipitation_unit`).
    case precipitation
    /// cm or inch of snow (`precipitation_unit`).
    case snowfall
    /// %.
    case percent
    /// hPa.
    case pressure
    /// °, 0 to 360.
    case direction
    /// A WMO weather code.
    case weatherCode
    /// 0 or 1.
    case flag
}

/// A variable of `current=` and `hourly=` that the stand-in answers: the ones weatherd asks, and the
/// others of the recorded Berlin answer. Any other name is a 400, as Open-Meteo answers a name it
/// does not know.
enum OpenMeteoVariable: String, CaseIterable, Sendable {
    case temperature = "temperature_2m"
    case apparentTemperature = "apparent_temperature"
    case relativeHumidity = "relative_humidity_2m"
    case pressure = "pressure_msl"
    case windSpeed = "wind_speed_10m"
    case windDirection = "wind_direction_10m"
    case windGusts = "wind_gusts_10m"
    case cloudCover = "cloud_cover"
    case weatherCode = "weather_code"
    case isDay = "is_day"
    case precipitation
    case precipitationProbability = "precipitation_probability"
    case rain
    case showers
    case snowfall

    var quantity: OpenMeteoQuantity {
        switch self {
        case .temperature, .apparentTemperature: .temperature
        case .windSpeed, .windGusts: .speed
        case .precipitation, .rain, .showers: .precipitation
        case .snowfall: .snowfall
        case .relativeHumidity, .cloudCover, .precipitationProbability: .percent
        case .pressure: .pressure
        case .windDirection: .direction
        case .weatherCode: .weatherCode
        case .isDay: .flag
        }
    }
}

/// A variable of `daily=` that the stand-in answers, each an aggregate of the day's hourly values
/// (in the timezone asked).
enum OpenMeteoDailyVariable: String, CaseIterable, Sendable {
    /// The most severe weather code of the day (the highest).
    case weatherCode = "weather_code"
    case temperatureMax = "temperature_2m_max"
    case temperatureMin = "temperature_2m_min"
    case precipitationSum = "precipitation_sum"
    case precipitationProbabilityMax = "precipitation_probability_max"
    case windSpeedMax = "wind_speed_10m_max"

    var quantity: OpenMeteoQuantity {
        switch self {
        case .weatherCode: .weatherCode
        case .temperatureMax, .temperatureMin: .temperature
        case .precipitationSum: .precipitation
        case .precipitationProbabilityMax: .percent
        case .windSpeedMax: .speed
        }
    }

    /// The day's value from its hourly steps; nil when none has the hourly value it is made of.
    func aggregate(_ steps: [OpenMeteoStep]) -> Double? {
        func values(_ variable: OpenMeteoVariable) -> [Double] { steps.compactMap { $0.values[variable] } }
        switch self {
        case .weatherCode: return values(.weatherCode).max()
        case .temperatureMax: return values(.temperature).max()
        case .temperatureMin: return values(.temperature).min()
        case .precipitationSum:
            let amounts = values(.precipitation)
            return amounts.isEmpty ? nil : amounts.reduce(0, +)
        case .precipitationProbabilityMax: return values(.precipitationProbability).max()
        case .windSpeedMax: return values(.windSpeed).max()
        }
    }
}

/// The values at one time, in the stand-in's own units (°C, km/h, mm, cm of snow, hPa, %, °); a
/// variable without a value is absent (written `null`).
struct OpenMeteoStep: Sendable {
    /// Unix seconds.
    let time: Int
    var values: [OpenMeteoVariable: Double]
}
