import Foundation
import WeatherCore

/// Made-up weather for a point far from every recorded city, in exactly OpenWeatherMap's shape for
/// such points (`id: 0`, `name: ""`, no `sys.country`), or, for a point near a place the geocoder
/// knows without recorded weather, carrying that place's synthetic id, name and country. Everything
/// except the time fields (`dt`, the day/night icon letter, sunrise and sunset) is a pure function
/// of the point rounded to 0.01° (and the place), so the same point always gets the same weather.
enum SynthesizedWeather {
    private static let conditions: [OWMCondition] = [
        .clearSky, .fewClouds, .scatteredClouds, .brokenClouds, .overcastClouds, .lightRain, .lightDrizzle, .mist,
    ]

    /// The body for the point, recorded in metric units (convert it with `RecordedWeather.body(in:)`),
    /// named after `place` (which must have a `cityID`) if given.
    static func weather(latitude: Double, longitude: Double, place: GeoPlace? = nil, now: Date = Date()) -> RecordedWeather {
        var random = SplitMix64(seed: pointHash(latitude, longitude))
        let temp = 28 - 0.5 * abs(latitude) + random.double(-3, 3)
        var condition = conditions[Int(random.next() % UInt64(conditions.count))]
        if temp < 1, condition.wet { condition = .lightSnow }
        let clouds = condition.cloudCover(&random)
        let humidity = 45 + Int(random.next() % 50)
        let pressure = 1000 + Int(random.next() % 30)
        let wind = random.double(0.5, 12)
        let windDeg = Int(random.next() % 360)
        let spread = random.double(0.5, 3)

        let dt = Int(now.timeIntervalSince1970)
        let offset = Int((longitude / 15).rounded()) * 3600
        let solarNoon = (dt / 86400) * 86400 + 43200 - Int(longitude / 15 * 3600)
        let dayLength = Int((12 - 4 * sin(latitude * .pi / 180)) * 3600) / 2
        let solarSeconds = ((dt + Int(longitude / 15 * 3600)) % 86400 + 86400) % 86400
        let daytime = (6 * 3600..<18 * 3600).contains(solarSeconds)

        var body: JSONObject = [
            "coord": .object(["lon": .rounded(longitude, decimals: 4), "lat": .rounded(latitude, decimals: 4)]),
            "weather": .array([
                .object([
                    "id": .integer(Int64(condition.id)),
                    "main": .string(condition.main),
                    "description": .string(condition.description),
                    "icon": .string(condition.icon + (daytime ? "d" : "n")),
                ])
            ]),
            "base": .string("stations"),
            "main": .object([
                "temp": .rounded(temp),
                "feels_like": .rounded(temp - wind * 0.4),
                "temp_min": .rounded(temp - spread),
                "temp_max": .rounded(temp + spread),
                "pressure": .integer(Int64(pressure)),
                "humidity": .integer(Int64(humidity)),
                "sea_level": .integer(Int64(pressure)),
                "grnd_level": .integer(Int64(pressure - 2)),
            ]),
            "visibility": .integer(condition.id == 701 ? 4000 : 10000),
            "wind": .object([
                "speed": .rounded(wind),
                "deg": .integer(Int64(windDeg)),
                "gust": .rounded(wind * 1.6),
            ]),
            "clouds": .object(["all": .integer(Int64(clouds))]),
        ]
        if condition.main == "Rain" || condition.main == "Drizzle" {
            body["rain"] = .object(["1h": .rounded(random.double(0.1, 2.5))])
        }
        body["dt"] = .integer(Int64(dt))
        var sys = JSONObject()
        if let place { sys["country"] = .string(place.country) }
        sys["sunrise"] = .integer(Int64(solarNoon - dayLength))
        sys["sunset"] = .integer(Int64(solarNoon + dayLength))
        body["sys"] = .object(sys)
        body["timezone"] = .integer(Int64(offset))
        body["id"] = .integer(Int64(place?.cityID ?? 0))
        body["name"] = .string(place?.name ?? "")
        body["cod"] = .integer(200)
        return RecordedWeather(file: "(synthesized)", units: .metric, body: body)
    }

    /// A stable hash of the point rounded to 0.01°.
    private static func pointHash(_ latitude: Double, _ longitude: Double) -> UInt64 {
        stableHash("\(Int((latitude * 100).rounded())),\(Int((longitude * 100).rounded()))")
    }
}
