import Foundation
import WeatherCore

/// The weather of one point as the Open-Meteo stand-in answers it: a recording's (a point within
/// `OpenMeteoRecording.reach` of it), else made up from what the OpenWeatherMap side answers for the
/// point (a recorded city's weather within 25 km, else synthesized weather, as `/data/2.5/weather`
/// gives it) and the synthesized forecast model of that place. Either way every variable has a value
/// where one can be had: what a recording lacks is made from what it has (`complete`).
struct OpenMeteoPoint: Sendable {
    enum Source: Sendable {
        /// A recording, and with `--shift-times` the forecast model of its place for the hours it
        /// has no step of.
        case recorded(OpenMeteoRecording, fill: SynthesizedForecast.Model?)
        /// The point's current weather (metric, OpenWeatherMap's shape) and its forecast model.
        case synthesized(weather: JSONObject, model: SynthesizedForecast.Model)
    }

    let source: Source
    /// The point as answered: a recording's, else the point asked moved to the nearest node of a
    /// 0.025° grid, as Open-Meteo answers the grid cell's point rather than the one asked.
    let latitude: Double
    let longitude: Double
    let elevation: Double
    let generationTime: Double
    /// The answer's present: a recording's current time, else now (Unix seconds).
    let now: Int

    static let grid = 0.025

    init(recording: OpenMeteoRecording, fill: SynthesizedForecast.Model? = nil) {
        source = .recorded(recording, fill: fill)
        placeTimezone = nil
        latitude = recording.latitude
        longitude = recording.longitude
        elevation = recording.elevation ?? Self.elevation(recording.latitude, recording.longitude)
        generationTime = recording.generationTime ?? Self.madeUpGenerationTime("\(recording.latitude),\(recording.longitude)")
        now = recording.current?.time ?? recording.hourly.first?.time ?? 0
    }

    /// A point made up from `weather` (what the OpenWeatherMap side answers for it) near `place` (the
    /// nearest place Open-Meteo's geocoder knows within 25 km, if any: the point has the place's
    /// elevation when within 10 km of it, and its timezone for `timezone=auto`).
    init(latitude: Double, longitude: Double, weather: RecordedWeather, place: OpenMeteoPlace?, now: Date) {
        source = .synthesized(weather: weather.body(in: .metric), model: SynthesizedForecast.Model(weather: weather, now: now))
        self.latitude = ((latitude / Self.grid).rounded() * Self.grid * 1e6).rounded() / 1e6
        self.longitude = ((longitude / Self.grid).rounded() * Self.grid * 1e6).rounded() / 1e6
        let near = place.map { distanceKilometres(latitude, longitude, $0.latitude, $0.longitude) <= 10 } ?? false
        elevation = (near ? place?.elevation : nil) ?? Self.elevation(latitude, longitude)
        placeTimezone = place?.timezone
        generationTime = Self.madeUpGenerationTime("\(latitude),\(longitude)")
        self.now = Int(now.timeIntervalSince1970)
    }

    /// The timezone of the nearest known place within 25 km, for a made-up point.
    let placeTimezone: String?

    /// Its timezone for `timezone=auto`: the zone it was recorded in, else the timezone of the
    /// nearest known place within 25 km (at the point's present), else GMT.
    var autoZone: OpenMeteoZone {
        if case .recorded(let recording, _) = source { return recording.zone }
        return placeTimezone.flatMap { OpenMeteoZone(named: $0, at: now) } ?? .gmt
    }

    /// The current weather: a recording's `current` block (what it lacks taken from its hourly step
    /// of that time), else the point's weather as OpenWeatherMap's side answers it, at the present
    /// quarter hour.
    var current: OpenMeteoStep {
        switch source {
        case .recorded(let recording, _):
            var step = recording.current ?? OpenMeteoStep(time: now, values: [:])
            let nearest = recording.hourly.min { abs($0.time - step.time) < abs($1.time - step.time) }
            if let nearest, abs(nearest.time - step.time) < 3600 {
                step.values.merge(nearest.values) { recorded, _ in recorded }
            }
            return complete(step)
        case .synthesized(let weather, _):
            var values: [OpenMeteoVariable: Double] = [:]
            values[.temperature] = weather["main"]?["temp"]?.doubleValue
            values[.apparentTemperature] = weather["main"]?["feels_like"]?.doubleValue
            values[.relativeHumidity] = weather["main"]?["humidity"]?.doubleValue
            values[.pressure] = (weather["main"]?["sea_level"] ?? weather["main"]?["pressure"])?.doubleValue
            values[.windSpeed] = weather["wind"]?["speed"]?.doubleValue.map { $0 * 3.6 }
            values[.windDirection] = weather["wind"]?["deg"]?.doubleValue
            values[.windGusts] = weather["wind"]?["gust"]?.doubleValue.map { $0 * 3.6 }
            values[.cloudCover] = weather["clouds"]?["all"]?.doubleValue
            values[.weatherCode] = weather["weather"]?.arrayValue?.first?["id"]?.intValue.map { Double(OWMCondition.wmoCode($0)) }
            let rain = weather["rain"]?["1h"]?.doubleValue ?? 0
            let snow = weather["snow"]?["1h"]?.doubleValue ?? 0
            values[.precipitation] = rain + snow
            return complete(OpenMeteoStep(time: now / 900 * 900, values: values))
        }
    }

    /// The hourly steps at `times`: a recording's steps among them (none for a time it has no step
    /// of, unless it has a model to fill them from), else the forecast model's at each.
    func hours(_ times: [Int]) -> [OpenMeteoStep] {
        switch source {
        case .recorded(let recording, nil):
            let wanted = Set(times)
            return recording.hourly.filter { wanted.contains($0.time) }.map(complete)
        case .recorded(let recording, let model?):
            let recorded = Dictionary(recording.hourly.map { ($0.time, $0) }) { first, _ in first }
            return times.map { recorded[$0].map(complete) ?? Self.modelled(model, at: $0, complete: complete) }
        case .synthesized(_, let model):
            return times.map { Self.modelled(model, at: $0, complete: complete) }
        }
    }

    /// The forecast model's step at `time`, in Open-Meteo's variables.
    private static func modelled(
        _ model: SynthesizedForecast.Model, at time: Int, complete: (OpenMeteoStep) -> OpenMeteoStep
    ) -> OpenMeteoStep {
        let step = model.step(at: time)
        let precipitation = step.precipitation / 3  // the model's amounts are for 3 hours
        return complete(
            OpenMeteoStep(
                time: time,
                values: [
                    .temperature: step.temperature,
                    .apparentTemperature: step.feelsLike,
                    .relativeHumidity: step.humidity.rounded(),
                    .pressure: step.pressure,
                    .windSpeed: step.wind * 3.6,
                    .windDirection: Double(step.windDegrees),
                    .windGusts: step.wind * 1.6 * 3.6,
                    .cloudCover: Double(step.clouds),
                    .weatherCode: Double(OWMCondition.wmoCode(step.condition.id)),
                    .precipitation: precipitation,
                    .precipitationProbability: (step.precipitationProbability * 100).rounded(),
                ]))
    }

    /// `step` with what it lacks made from what it has, consistently: `is_day` from the sun;
    /// `rain`, `showers` and `snowfall` by splitting `precipitation` by the weather code (snow codes,
    /// or no wet code below 0 °C: snowfall, 0.7 cm per mm; shower and thunderstorm codes: showers;
    /// else rain); `precipitation_probability` from the code and the amount; `apparent_temperature`
    /// from temperature and wind.
    func complete(_ step: OpenMeteoStep) -> OpenMeteoStep {
        var values = step.values
        if values[.isDay] == nil {
            values[.isDay] = Sun.isUp(latitude: latitude, longitude: longitude, at: step.time) ? 1 : 0
        }
        let code = values[.weatherCode].map { Int($0) }
        if let amount = values[.precipitation], values[.rain] == nil || values[.showers] == nil || values[.snowfall] == nil {
            let snowCodes: Set<Int> = [71, 73, 75, 77, 85, 86]
            let showerCodes: Set<Int> = [80, 81, 82, 95, 96, 99]
            let liquidCodes = Set(51...67)
            let snowing =
                code.map { snowCodes.contains($0) } ?? false
                || ((values[.temperature] ?? 1) < 0 && !(code.map { liquidCodes.contains($0) || showerCodes.contains($0) } ?? false))
            let showering = !snowing && (code.map { showerCodes.contains($0) } ?? false)
            values[.snowfall] = values[.snowfall] ?? (snowing ? amount * 0.7 : 0)
            values[.showers] = values[.showers] ?? (showering ? amount : 0)
            values[.rain] = values[.rain] ?? (snowing || showering ? 0 : amount)
        }
        if values[.precipitationProbability] == nil {
            var random = SplitMix64(
                seed: stableHash("pop:\(Int((latitude * 100).rounded())),\(Int((longitude * 100).rounded()))@\(step.time)"))
            let wet = (values[.precipitation] ?? 0) > 0 || (code ?? 0) >= 51
            let cloudy = (code ?? 0) == 3 || (values[.cloudCover] ?? 0) >= 85
            values[.precipitationProbability] = (wet ? random.double(40, 100) : cloudy ? random.double(5, 35) : random.double(0, 10))
                .rounded()
        }
        if values[.apparentTemperature] == nil, let temperature = values[.temperature], let wind = values[.windSpeed] {
            values[.apparentTemperature] = temperature - wind / 3.6 * 0.4
        }
        return OpenMeteoStep(time: step.time, values: values)
    }

    /// A made-up elevation of the point, in metres: the same for every point of a 0.1° cell.
    static func elevation(_ latitude: Double, _ longitude: Double) -> Double {
        Double(5 + stableHash("elevation:\(Int((latitude * 10).rounded())),\(Int((longitude * 10).rounded()))") % 600)
    }

    /// A made-up `generationtime_ms` (0.02 to 0.5): the same for the same `key` (a point, a name),
    /// so an answer is the same each time it is asked.
    static func madeUpGenerationTime(_ key: String) -> Double {
        Double(2_000 + stableHash("generation:" + key) % 48_000) / 100_000
    }
}
