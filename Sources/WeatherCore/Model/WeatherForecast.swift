#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The forecast for one place: the place and its steps, oldest first. OpenWeatherMap's steps are 3
/// hours long (its 5 day / 3 hour forecast), Open-Meteo's one hour.
public struct WeatherForecast: Sendable, Hashable {
    /// The place: id, name, country, coordinate, units and `fetchedAt`; no current weather (the
    /// forecast response carries none), so every weather value of it is nil.
    public var place: WeatherObservation
    /// The steps, oldest first.
    public var steps: [ForecastStep]
    /// The length of a step in seconds (`properties.forecast_step`).
    public var step: Int

    public init(place: WeatherObservation, steps: [ForecastStep], step: Int = ForecastStep.threeHours) {
        self.place = place
        self.steps = steps.sorted { $0.at < $1.at }
        self.step = step
    }

    /// The hours a `forecast` request may ask for, and the default.
    public static let hoursRange = RPCParamLimits.forecastHours
    public static let defaultHours = 24

    /// The steps that begin within `hours` of the first step (the one the provider puts first, the
    /// step in progress or the next): `hours / 3` steps of 3 hours, rounded up, or `hours` of 1.
    public func steps(covering hours: Int) -> [ForecastStep] {
        guard let first = steps.first else { return [] }
        let end = first.at.addingTimeInterval(TimeInterval(hours) * 3600)
        return steps.filter { $0.at < end }
    }

    /// The result of the `forecast` method: the place's Feature (source `text`; its current-weather
    /// values null) with `properties.forecast`, the steps covering `hours`.
    public func feature(hours: Int) -> JSONValue {
        guard case .object(var feature) = WeatherFeature(observation: place, source: .text).json,
            case .object(var properties)? = feature["properties"]
        else { preconditionFailure("a Feature is an object with properties") }
        properties["forecast"] = .array(steps(covering: hours).map(\.json))
        properties["forecast_step"] = .integer(Int64(step))
        feature["properties"] = .object(properties)
        return .object(feature)
    }
}
