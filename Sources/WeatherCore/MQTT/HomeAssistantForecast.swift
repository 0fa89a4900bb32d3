#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A watched city's forecast for Home Assistant: the retained payload of `P/D/forecast/KEY`, the
/// JSON attributes (and state) of the city's forecast sensor. `forecast` is a list in Home
/// Assistant's forecast shape, ready for a template weather entity's `forecast_hourly_template`;
/// `condition` is the city's weather now, in Home Assistant's condition names.
public enum HomeAssistantForecast {
    /// The most steps a payload holds: two days of Open-Meteo's hours, all of OpenWeatherMap's five
    /// days of 3 hours, and the attributes stay below the 16 KiB Home Assistant's recorder keeps.
    public static let maxSteps = 48

    /// The payload: `feature` is the city's latest feature, `forecast` its latest forecast.
    public static func payload(feature: WeatherFeature, forecast: WeatherForecast) -> String {
        let observation = feature.observation
        let object: JSONObject = [
            "condition": .string(HomeAssistantCondition.of(condition: observation.condition, icon: observation.icon)),
            "temperature": .number(observation.temperature),
            "humidity": .number(observation.humidity),
            "wind_speed": .number(observation.windSpeed),
            "wind_bearing": .number(observation.windDeg),
            "units": .string(observation.units.rawValue),
            "provider": .string(forecast.place.provider),
            "forecast_step": .integer(Int64(forecast.step)),
            "forecast": .array(forecast.steps.prefix(maxSteps).map(step)),
        ]
        return JSONValue.object(object).serialized
    }

    /// One step in Home Assistant's shape: temperature and wind speed in the configured units,
    /// precipitation (rain and snow) in mm, its probability in percent.
    static func step(_ step: ForecastStep) -> JSONValue {
        let precipitation: Double? =
            switch (step.rain3h, step.snow3h) {
            case (let rain?, let snow?): ((rain + snow) * 1000).rounded() / 1000  // 0.1 + 0.2 is 0.3
            case (let rain, let snow): rain ?? snow
            }
        return .object([
            "datetime": .string(Timestamp.iso8601(step.at)),
            "condition": .string(HomeAssistantCondition.of(condition: step.condition, icon: step.icon)),
            "temperature": .number(step.temperature),
            "precipitation": .number(precipitation),
            "precipitation_probability": .number(step.pop.map { ($0 * 100).rounded() }),
            "wind_speed": .number(step.windSpeed),
            "wind_bearing": .number(step.windDeg),
            "humidity": .number(step.humidity),
        ])
    }
}
