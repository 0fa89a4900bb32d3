import Foundation
import WeatherCore

/// A made-up 5 day / 3 hour forecast in OpenWeatherMap's shape (40 steps from the next 3-hour
/// boundary, UTC) for a place that has no recorded forecast: a recorded city or a point (whose
/// weather is itself recorded or synthesized). It starts from the place's current weather, now: the
/// values served as current hold at the present quarter hour, and from there a daily cycle, a slow
/// drift, spells of weather and noise take over (the noise, the drift and the spells fully after a
/// day), so the first step is the current weather a few hours on. Every step is a pure function of
/// the place (its city id, or the point to 0.01°), its weather, the present quarter hour and the
/// step's time.
enum SynthesizedForecast {
    static let steps = 40
    static let stepSeconds = 10800

    /// The forecast for the place of `weather`, in metric units (convert it with
    /// `RecordedForecast.body(in:)`).
    static func forecast(from weather: RecordedWeather, now: Date) -> RecordedForecast {
        let model = Model(weather: weather, now: now)
        let first = (Int(now.timeIntervalSince1970) / stepSeconds + 1) * stepSeconds
        var list: [JSONValue] = []
        for index in 0..<steps {
            let step = model.step(at: first + index * stepSeconds)
            var object: JSONObject = [
                "dt": .integer(Int64(step.time)),
                "main": .object([
                    "temp": .rounded(step.temperature),
                    "feels_like": .rounded(step.feelsLike),
                    "temp_min": .rounded(step.temperature - step.spread),
                    "temp_max": .rounded(step.temperature + step.spread),
                    "pressure": .integer(Int64(step.pressure.rounded())),
                    "sea_level": .integer(Int64(step.pressure.rounded())),
                    "grnd_level": .integer(Int64(step.pressure.rounded()) - 2),
                    "humidity": .integer(Int64(step.humidity.rounded())),
                    "temp_kf": .rounded(step.spread),
                ]),
                "weather": .array([
                    .object([
                        "id": .integer(Int64(step.condition.id)),
                        "main": .string(step.condition.main),
                        "description": .string(step.condition.description),
                        "icon": .string(step.condition.icon + (step.daytime ? "d" : "n")),
                    ])
                ]),
                "clouds": .object(["all": .integer(Int64(step.clouds))]),
                "wind": .object([
                    "speed": .rounded(step.wind), "deg": .integer(Int64(step.windDegrees)), "gust": .rounded(step.wind * 1.6),
                ]),
                "visibility": .integer(10000),
                "pop": .rounded(step.precipitationProbability),
            ]
            if step.condition.main == "Snow" {
                object["snow"] = .object(["3h": .rounded(step.precipitation)])
            } else if step.condition.wet {
                object["rain"] = .object(["3h": .rounded(step.precipitation)])
            }
            object["sys"] = .object(["pod": .string(step.daytime ? "d" : "n")])
            object["dt_txt"] = .string(dateText(step.time))
            list.append(.object(object))
        }

        let current = weather.body(in: .metric)
        var city: JSONObject = [
            "id": .integer(Int64(model.cityID)),
            "name": .string(current["name"]?.stringValue ?? ""),
            "coord": .object(["lat": .rounded(model.latitude, decimals: 4), "lon": .rounded(model.longitude, decimals: 4)]),
        ]
        if let country = weather.country { city["country"] = .string(country) }
        city["population"] = .integer(0)
        if let timezone = current["timezone"] { city["timezone"] = timezone }
        let body: JSONObject = [
            "cod": "200", "message": .integer(0), "cnt": .integer(Int64(steps)),
            "list": .array(list), "city": .object(city),
        ]
        return RecordedForecast(file: "(synthesized)", units: .metric, body: body)
    }

    /// The made-up weather of one place at any time from the present quarter hour (its anchor), when
    /// it is the place's current weather: a pure function of the place, that weather, the anchor and
    /// the time.
    /// The 3-hour forecast asks it every 3 hours; Open-Meteo's hourly forecast every hour (its steps
    /// at 00, 03, 06… UTC are the 3-hour forecast's steps).
    struct Model: Sendable {
        /// From clear to wet: a spell picks its place in this list.
        private static let conditions: [OWMCondition] = [
            .clearSky, .fewClouds, .scatteredClouds, .brokenClouds, .overcastClouds, .lightDrizzle, .lightRain, .moderateRain,
        ]

        let latitude: Double
        let longitude: Double
        /// The city id of the place, 0 for a nameless point.
        let cityID: Int
        /// `id:<city id>`, or `pt:<lat×100>,<lon×100>` for a nameless point: what the noise is seeded by.
        private let place: String
        private let baseTemp: Double
        private let baseHumidity: Double
        private let basePressure: Double
        private let baseWind: Double
        private let baseDeg: Double
        private let phase: Double
        /// The present quarter hour (Unix seconds), when the model's weather is `weather`'s.
        private let anchor: Int
        /// Where the spells stand at the anchor: the middle of the current condition's place in
        /// ``conditions``.
        private let currentSpell: Double
        /// The waves at the anchor, which every step's waves are counted from.
        private let anchorWaves: Waves

        /// How long until the noise, the drift and the spells have taken over from the current
        /// weather (they grow from nothing at the anchor).
        static let takeover = 86_400.0

        /// The model of the place of `weather`, whose values are the place's current ones at `now`.
        init(weather: RecordedWeather, now: Date) {
            let current = weather.body(in: .metric)
            latitude = weather.latitude ?? 0
            longitude = weather.longitude ?? 0
            cityID = current["id"]?.intValue ?? 0
            place =
                cityID != 0
                ? "id:\(cityID)" : "pt:\(Int((latitude * 100).rounded())),\(Int((longitude * 100).rounded()))"
            baseTemp = current["main"]?["temp"]?.doubleValue ?? (28 - 0.5 * abs(latitude))
            baseHumidity = current["main"]?["humidity"]?.doubleValue ?? 70
            basePressure = current["main"]?["pressure"]?.doubleValue ?? 1013
            baseWind = current["wind"]?["speed"]?.doubleValue ?? 3
            baseDeg = current["wind"]?["deg"]?.doubleValue ?? 200
            var placeRandom = SplitMix64(seed: stableHash(place))
            phase = placeRandom.double(0, 2 * .pi)
            anchor = Int(now.timeIntervalSince1970) / 900 * 900
            let condition = Self.conditionIndex(current["weather"]?.arrayValue?.first?["id"]?.intValue)
            currentSpell = (Double(condition) + 0.5) / Double(Self.conditions.count)
            anchorWaves = Waves(time: anchor, longitude: longitude, phase: phase)
        }

        /// The place in ``conditions`` of an OpenWeatherMap condition id: its own, or the nearest in
        /// cloud and wetness (mist and fog as overcast; heavy rain, snow and thunderstorms as the
        /// wettest). Unknown: a few clouds.
        static func conditionIndex(_ id: Int?) -> Int {
            guard let id else { return 1 }
            if let index = conditions.firstIndex(where: { $0.id == id }) { return index }
            switch id {
            case 200..<300, 500..<700: return conditions.count - 1
            case 300..<400: return 5
            case 700..<800: return 4
            default: return 1
            }
        }

        /// The smooth parts of the weather at a time: the daily cycle and the slow waves.
        struct Waves {
            /// The daily cycle of temperature (°C): coldest at 3 h, warmest at 15 h solar time.
            let daily: Double
            let drift: Double
            let wind: Double
            let windDegrees: Double
            let pressure: Double
            let spell: Double

            init(time: Int, longitude: Double, phase: Double) {
                let x = Double(time) / Double(stepSeconds)
                let solarSeconds = ((time + Int(longitude / 15 * 3600)) % 86400 + 86400) % 86400
                let solarHour = Double(solarSeconds) / 3600
                daily = -3.5 * cos((solarHour - 3) / 24 * 2 * .pi)
                drift = 2.5 * sin(x / 13 + phase)
                wind = 1.5 * sin(x / 7 + phase)
                windDegrees = 40 * sin(x / 11 + phase)
                pressure = 4 * sin(x / 17 + phase)
                spell = (sin(x / 5 + 2 * phase) + 1) / 2
            }
        }

        /// The weather at `time` (Unix seconds), metric.
        func step(at time: Int) -> Step {
            // The waves run in 3-hour slots; the noise of a time off the 3-hour grid has a seed of
            // its own (`…@slot+hours`), so the steps on the grid stay what they always were.
            let slot = Int((Double(time) / Double(stepSeconds)).rounded(.down))
            let offGrid = time - slot * stepSeconds
            var random = SplitMix64(seed: stableHash(offGrid == 0 ? "\(place)@\(slot)" : "\(place)@\(slot)+\(offGrid)"))
            let solarSeconds = ((time + Int(longitude / 15 * 3600)) % 86400 + 86400) % 86400
            let daytime = (6 * 3600..<18 * 3600).contains(solarSeconds)
            // Each value is the current one plus how far the waves moved since the anchor; the daily
            // cycle counts at once, the rest grows in over `takeover`.
            let waves = Waves(time: time, longitude: longitude, phase: phase)
            let from = anchorWaves
            let grown = min(1, abs(Double(time - anchor)) / Self.takeover)
            let daily = waves.daily - from.daily
            let temp = baseTemp + daily + grown * (waves.drift - from.drift + random.double(-0.8, 0.8))
            let wind = max(0.2, baseWind + grown * (waves.wind - from.wind + random.double(-0.7, 0.7)))
            let windDeg = (Int(baseDeg + grown * (waves.windDegrees - from.windDegrees + random.double(-15, 15))) % 360 + 360) % 360
            let humidity = min(100, max(20, baseHumidity - daily * 3 + grown * random.double(-6, 6)))
            let pressure = basePressure + grown * (waves.pressure - from.pressure + random.double(-1, 1))
            // Conditions come and go in spells: a slow wave through clear, cloudy and wet, with noise,
            // from the current condition.
            let spell = currentSpell + grown * (waves.spell - from.spell + random.double(-0.2, 0.2))
            var condition = Self.conditions[min(Self.conditions.count - 1, max(0, Int(spell * Double(Self.conditions.count))))]
            if temp < 1, condition.wet { condition = .lightSnow }
            let clouds = condition.cloudCover(&random)
            let pop = condition.wet ? random.double(0.35, 1) : condition.id >= 803 ? random.double(0, 0.3) : 0
            let spread = random.double(0, 0.6)
            let precipitation = condition.main == "Snow" ? random.double(0.1, 2) : condition.wet ? random.double(0.1, 3.5) : 0
            return Step(
                time: time, temperature: temp, feelsLike: temp - wind * 0.4, spread: spread, humidity: humidity,
                pressure: pressure, wind: wind, windDegrees: windDeg, clouds: clouds, condition: condition,
                precipitationProbability: pop, precipitation: precipitation, daytime: daytime)
        }
    }

    /// One step of a `Model`, metric: °C, hPa, m/s, mm (over 3 hours), a probability in 0...1.
    struct Step: Sendable {
        let time: Int
        let temperature: Double
        let feelsLike: Double
        /// Half the spread of `temp_min`...`temp_max` (and `temp_kf`).
        let spread: Double
        let humidity: Double
        let pressure: Double
        let wind: Double
        let windDegrees: Int
        let clouds: Int
        let condition: OWMCondition
        let precipitationProbability: Double
        /// Rain or snow (water) in the 3 hours up to `time`; 0 for a dry condition.
        let precipitation: Double
        /// 6 to 18 h solar time.
        let daytime: Bool
    }

    /// `2018-12-01 00:00:00` (UTC), as `dt_txt`.
    static func dateText(_ dt: Int) -> String {
        var time = time_t(dt)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
