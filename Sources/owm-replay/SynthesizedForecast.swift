import Foundation
import WeatherCore

/// A made-up 5 day / 3 hour forecast in OpenWeatherMap's shape (40 steps from the next 3-hour
/// boundary, UTC) for a place that has no recorded forecast: a recorded city or a point (whose
/// weather is itself recorded or synthesized). It starts from the place's current weather and adds
/// a daily cycle, a slow drift and noise. Every step is a pure function of the place (its city id, or
/// the point to 0.01°), its weather and the step's time: the same slot always gets the same forecast.
enum SynthesizedForecast {
    /// From clear to wet: a spell picks its place in this list.
    private static let conditions: [OWMCondition] = [
        .clearSky, .fewClouds, .scatteredClouds, .brokenClouds, .overcastClouds, .lightDrizzle, .lightRain, .moderateRain,
    ]

    static let steps = 40
    static let stepSeconds = 10800

    /// The forecast for the place of `weather`, in metric units (convert it with
    /// `RecordedForecast.body(in:)`).
    static func forecast(from weather: RecordedWeather, now: Date = Date()) -> RecordedForecast {
        let current = weather.body(in: .metric)
        let latitude = weather.latitude ?? 0
        let longitude = weather.longitude ?? 0
        let cityID = current["id"]?.intValue ?? 0
        let place = cityID != 0
            ? "id:\(cityID)" : "pt:\(Int((latitude * 100).rounded())),\(Int((longitude * 100).rounded()))"
        let baseTemp = current["main"]?["temp"]?.doubleValue ?? (28 - 0.5 * abs(latitude))
        let baseHumidity = current["main"]?["humidity"]?.doubleValue ?? 70
        let basePressure = current["main"]?["pressure"]?.doubleValue ?? 1013
        let baseWind = current["wind"]?["speed"]?.doubleValue ?? 3
        let baseDeg = current["wind"]?["deg"]?.doubleValue ?? 200
        var placeRandom = SplitMix64(seed: stableHash(place))
        let phase = placeRandom.double(0, 2 * .pi)

        let first = (Int(now.timeIntervalSince1970) / stepSeconds + 1) * stepSeconds
        var list: [JSONValue] = []
        for index in 0..<steps {
            let dt = first + index * stepSeconds
            let slot = dt / stepSeconds
            var random = SplitMix64(seed: stableHash("\(place)@\(slot)"))
            let solarSeconds = ((dt + Int(longitude / 15 * 3600)) % 86400 + 86400) % 86400
            let solarHour = Double(solarSeconds) / 3600
            let daytime = (6 * 3600..<18 * 3600).contains(solarSeconds)
            let daily = -3.5 * cos((solarHour - 3) / 24 * 2 * .pi)  // coldest at 3 h, warmest at 15 h solar
            let drift = 2.5 * sin(Double(slot) / 13 + phase)
            let temp = baseTemp + daily + drift + random.double(-0.8, 0.8)
            let wind = max(0.2, baseWind + 1.5 * sin(Double(slot) / 7 + phase) + random.double(-0.7, 0.7))
            let windDeg = (Int(baseDeg + 40 * sin(Double(slot) / 11 + phase) + random.double(-15, 15)) % 360 + 360) % 360
            let humidity = min(100, max(20, baseHumidity - daily * 3 + random.double(-6, 6)))
            let pressure = basePressure + 4 * sin(Double(slot) / 17 + phase) + random.double(-1, 1)
            // Conditions come and go in spells: a slow wave through clear, cloudy and wet, with noise.
            let spell = (sin(Double(slot) / 5 + 2 * phase) + 1) / 2 + random.double(-0.2, 0.2)
            var condition = conditions[min(conditions.count - 1, max(0, Int(spell * Double(conditions.count))))]
            if temp < 1, condition.wet { condition = .lightSnow }
            let clouds = condition.cloudCover(&random)
            let pop = condition.wet ? random.double(0.35, 1) : condition.id >= 803 ? random.double(0, 0.3) : 0
            let spread = random.double(0, 0.6)

            var step: JSONObject = [
                "dt": .integer(Int64(dt)),
                "main": .object([
                    "temp": .rounded(temp),
                    "feels_like": .rounded(temp - wind * 0.4),
                    "temp_min": .rounded(temp - spread),
                    "temp_max": .rounded(temp + spread),
                    "pressure": .integer(Int64(pressure.rounded())),
                    "sea_level": .integer(Int64(pressure.rounded())),
                    "grnd_level": .integer(Int64(pressure.rounded()) - 2),
                    "humidity": .integer(Int64(humidity.rounded())),
                    "temp_kf": .rounded(spread),
                ]),
                "weather": .array([.object([
                    "id": .integer(Int64(condition.id)),
                    "main": .string(condition.main),
                    "description": .string(condition.description),
                    "icon": .string(condition.icon + (daytime ? "d" : "n")),
                ])]),
                "clouds": .object(["all": .integer(Int64(clouds))]),
                "wind": .object(["speed": .rounded(wind), "deg": .integer(Int64(windDeg)), "gust": .rounded(wind * 1.6)]),
                "visibility": .integer(10000),
                "pop": .rounded(pop),
            ]
            if condition.main == "Snow" {
                step["snow"] = .object(["3h": .rounded(random.double(0.1, 2))])
            } else if condition.wet {
                step["rain"] = .object(["3h": .rounded(random.double(0.1, 3.5))])
            }
            step["sys"] = .object(["pod": .string(daytime ? "d" : "n")])
            step["dt_txt"] = .string(dateText(dt))
            list.append(.object(step))
        }

        var city: JSONObject = [
            "id": .integer(Int64(cityID)),
            "name": .string(current["name"]?.stringValue ?? ""),
            "coord": .object(["lat": .rounded(latitude, decimals: 4), "lon": .rounded(longitude, decimals: 4)]),
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

    /// `2018-12-01 00:00:00` (UTC), as `dt_txt`.
    private static func dateText(_ dt: Int) -> String {
        var time = time_t(dt)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

}
