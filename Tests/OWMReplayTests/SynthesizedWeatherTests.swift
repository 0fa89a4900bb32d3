import Foundation
import Testing

@testable import WeatherCore
@testable import owm_replay

@Suite("SynthesizedWeather")
struct SynthesizedWeatherTests {
    /// 2025-11-21 00:00:00 UTC, a midnight.
    static let midnight = Date(timeIntervalSince1970: 1_763_683_200)
    static let noon = midnight.addingTimeInterval(12 * 3600)

    /// The body without the fields that depend on the time.
    static func timeless(_ weather: RecordedWeather) -> JSONObject {
        var body = weather.body
        body["dt"] = nil
        body["sys"] = nil
        if var first = body["weather"]?.arrayValue?.first?.objectValue {
            first["icon"] = .string(String(first["icon"]?.stringValue?.dropLast() ?? ""))
            body["weather"] = .array([.object(first)])
        }
        return body
    }

    @Test("the same point at the same time gets the same body")
    func deterministic() {
        let first = SynthesizedWeather.weather(latitude: -12.3456, longitude: 77.7, now: Self.noon)
        let second = SynthesizedWeather.weather(latitude: -12.3456, longitude: 77.7, now: Self.noon)
        #expect(first.body == second.body)
        #expect(first.body.keys == second.body.keys)
    }

    @Test("the same point at another time gets the same weather, only the time fields differ")
    func sameWeatherLater() {
        let now = SynthesizedWeather.weather(latitude: 30.5, longitude: -40.25, now: Self.midnight)
        let later = SynthesizedWeather.weather(latitude: 30.5, longitude: -40.25, now: Self.noon.addingTimeInterval(86400 * 3))
        #expect(Self.timeless(now) == Self.timeless(later))
        #expect(now.body["dt"] != later.body["dt"])
    }

    @Test("points that round to the same 0.01° get the same conditions, wind, clouds, pressure and humidity")
    func roundedPoint() {
        // Not the temperatures: they also depend on the unrounded latitude.
        let a = SynthesizedWeather.weather(latitude: 10.004, longitude: 20.004, now: Self.noon).body
        let b = SynthesizedWeather.weather(latitude: 9.996, longitude: 19.996, now: Self.noon).body
        #expect(a["weather"] == b["weather"])
        #expect(a["wind"] == b["wind"])
        #expect(a["clouds"] == b["clouds"])
        #expect(a["main"]?["pressure"] == b["main"]?["pressure"])
        #expect(a["main"]?["humidity"] == b["main"]?["humidity"])
    }

    @Test("different points get different weather")
    func differentPoints() {
        let a = SynthesizedWeather.weather(latitude: 10, longitude: 20, now: Self.noon)
        let b = SynthesizedWeather.weather(latitude: 10.01, longitude: 20, now: Self.noon)
        #expect(a.body["main"] != b.body["main"])
    }

    @Test("the body has OpenWeatherMap's shape for a point: id 0, empty name, no country, cod 200")
    func shape() {
        let weather = SynthesizedWeather.weather(latitude: -45, longitude: -140, now: Self.noon)
        #expect(weather.body["id"] == .integer(0))
        #expect(weather.body["name"] == .string(""))
        #expect(weather.body["cod"] == .integer(200))
        #expect(weather.body["base"] == .string("stations"))
        #expect(weather.body["sys"]?["country"] == nil)
        #expect(weather.country == nil)
        #expect(weather.body["weather"]?.arrayValue?.count == 1)
        for key in ["temp", "feels_like", "temp_min", "temp_max", "pressure", "humidity"] {
            #expect(weather.body["main"]?[key]?.doubleValue != nil, "main.\(key)")
        }
    }

    @Test("the body is recorded in metric units")
    func metric() {
        let weather = SynthesizedWeather.weather(latitude: 0, longitude: 0, now: Self.noon)
        #expect(weather.units == .metric)
        #expect(weather.file == "(synthesized)")
    }

    @Test("the coordinates are the point rounded to 4 decimals")
    func coordinates() {
        let weather = SynthesizedWeather.weather(latitude: 12.345678, longitude: -98.765432, now: Self.noon)
        #expect(weather.latitude == 12.3457)
        #expect(weather.longitude == -98.7654)
    }

    @Test("dt is the time asked for")
    func dt() {
        let weather = SynthesizedWeather.weather(latitude: 1, longitude: 2, now: Self.noon)
        #expect(weather.body["dt"] == .integer(1_763_726_400))
    }

    @Test("the temperature lies between the minimum and the maximum")
    func temperatureSpread() {
        for latitude in stride(from: -80.0, through: 80, by: 7.3) {
            let main = SynthesizedWeather.weather(latitude: latitude, longitude: latitude * 2, now: Self.noon).body["main"]
            let temp = main?["temp"]?.doubleValue ?? .nan
            #expect((main?["temp_min"]?.doubleValue ?? .nan) <= temp)
            #expect(temp <= (main?["temp_max"]?.doubleValue ?? .nan))
        }
    }

    @Test("it is colder far from the equator")
    func colderAtPoles() throws {
        let equator = try #require(SynthesizedWeather.weather(latitude: 0, longitude: 0, now: Self.noon).body["main"]?["temp"]?.doubleValue)
        let pole = try #require(SynthesizedWeather.weather(latitude: 85, longitude: 0, now: Self.noon).body["main"]?["temp"]?.doubleValue)
        #expect(equator > pole)
    }

    @Test("below 1 °C rain and drizzle become snow, and only there is it snowing")
    func snow() {
        var snowing = 0
        var wrong: [String] = []
        for latitude in stride(from: 40.0, through: 85, by: 0.5) {
            for longitude in stride(from: -170.0, through: 170, by: 17) {
                let body = SynthesizedWeather.weather(latitude: latitude, longitude: longitude, now: Self.noon).body
                let temp = body["main"]?["temp"]?.doubleValue ?? .nan
                let main = body["weather"]?.arrayValue?.first?["main"]?.stringValue ?? "?"
                let wet = main == "Rain" || main == "Drizzle"
                if (temp < 1 && wet) || (temp >= 1 && main == "Snow") {
                    wrong.append("\(latitude),\(longitude): \(temp) °C and \(main)")
                }
                if main == "Snow" { snowing += 1 }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(snowing > 0)
    }

    @Test("rain and drizzle come with a rain volume, other weather without")
    func rainVolume() {
        var wrong: [String] = []
        var raining = 0
        for latitude in stride(from: -30.0, through: 30, by: 1.5) {
            let body = SynthesizedWeather.weather(latitude: latitude, longitude: 5, now: Self.noon).body
            let main = body["weather"]?.arrayValue?.first?["main"]?.stringValue ?? "?"
            let wet = main == "Rain" || main == "Drizzle"
            if wet { raining += 1 }
            if (body["rain"]?["1h"] != nil) != wet { wrong.append("\(latitude): \(main)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(raining > 0)
    }

    @Test("the icon is a day icon at local noon and a night icon at local midnight")
    func dayAndNight() {
        let day = SynthesizedWeather.weather(latitude: 20, longitude: 0, now: Self.noon)
        let night = SynthesizedWeather.weather(latitude: 20, longitude: 0, now: Self.midnight)
        #expect(day.body["weather"]?.arrayValue?.first?["icon"]?.stringValue?.hasSuffix("d") == true)
        #expect(night.body["weather"]?.arrayValue?.first?["icon"]?.stringValue?.hasSuffix("n") == true)
    }

    @Test("sunrise and sunset lie either side of the solar noon of the day")
    func sunriseSunset() throws {
        let sys = try #require(SynthesizedWeather.weather(latitude: 20, longitude: 0, now: Self.noon).body["sys"])
        let sunrise = try #require(sys["sunrise"]?.intValue)
        let sunset = try #require(sys["sunset"]?.intValue)
        #expect(sunrise < 1_763_726_400 && 1_763_726_400 < sunset)
        #expect((sunrise + sunset) / 2 == 1_763_726_400)
    }

    @Test("the time zone offset is the longitude in whole hours")
    func timezone() {
        #expect(SynthesizedWeather.weather(latitude: 0, longitude: 44, now: Self.noon).body["timezone"] == .integer(3 * 3600))
        #expect(SynthesizedWeather.weather(latitude: 0, longitude: -100, now: Self.noon).body["timezone"] == .integer(-7 * 3600))
    }
}
