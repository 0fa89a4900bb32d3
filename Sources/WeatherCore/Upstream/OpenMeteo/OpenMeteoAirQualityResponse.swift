#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the answers of Open-Meteo's air quality API (`/v1/air-quality`): the forecast API's shape
/// (``OpenMeteoForecastResponse/decode(_:)``: one object per point, an array for several), whose
/// `current` block holds the indexes and pollutants asked for.
public enum OpenMeteoAirQualityResponse {
    /// The variables of `current` a feature's `air_quality` is made of.
    public static let currentVariables = ["european_aqi", "us_aqi", "pm2_5", "pm10", "ozone", "nitrogen_dioxide"]

    /// The air quality in one point's answer (its `current` block); nil when it has none. `at` is
    /// `current.time` (Unix seconds, or a local time with the answer's `utc_offset_seconds`).
    public static func airQuality(_ point: JSONObject) -> AirQuality? {
        guard let current = point["current"]?.objectValue else { return nil }
        func value(_ name: String) -> Double? { current[name]?.doubleValue.flatMap { $0.isFinite ? $0 : nil } }
        return AirQuality(
            europeanAQI: value("european_aqi"), usAQI: value("us_aqi"), pm25: value("pm2_5"), pm10: value("pm10"),
            ozone: value("ozone"), nitrogenDioxide: value("nitrogen_dioxide"),
            at: OpenMeteoUnit.time(current["time"], utcOffset: point["utc_offset_seconds"]?.intValue ?? 0),
            provider: WeatherProviderName.openMeteo.rawValue)
    }
}
