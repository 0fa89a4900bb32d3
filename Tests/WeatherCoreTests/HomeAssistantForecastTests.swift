import Foundation
import Testing

@testable import WeatherCore

private let topics = MQTTTopics(prefix: "weatherd", device: "dev1")

private func feature(id: Int = 2_643_743, fetchedAt: Double, condition: String = "Clouds", icon: String = "04d") -> WeatherFeature {
    var observation = WeatherObservation(
        cityID: id, name: "London", country: "GB", coordinate: Coordinate(lat: 51.5, lon: -0.12), temperature: 9,
        humidity: 80, windSpeed: 3, windDeg: 250, condition: condition, icon: icon, units: .metric)
    observation.fetchedAt = Date(timeIntervalSince1970: fetchedAt)
    return WeatherFeature(observation: observation, source: .city)
}

private func forecast(_ temperature: Double = 10) -> WeatherForecast {
    let step = ForecastStep(
        at: Date(timeIntervalSince1970: 1_795_000_000), temperature: temperature, humidity: 70, windSpeed: 4.5, windDeg: 200,
        pop: 0.37, rain3h: 1.2, snow3h: 0.1, condition: "Rain", icon: "10n")
    return WeatherForecast(place: feature(fetchedAt: 0).observation, steps: [step])
}

@Suite("Home Assistant: conditions and forecasts")
struct HomeAssistantForecastTests {
    @Test(
        "our conditions in Home Assistant's names",
        arguments: [
            ("Clear", "01d", "sunny"), ("Clear", "01n", "clear-night"), ("Clouds", "02d", "partlycloudy"),
            ("Clouds", "03n", "partlycloudy"), ("Clouds", "04d", "cloudy"), ("Drizzle", "09d", "rainy"), ("Rain", "10d", "rainy"),
            ("Rain", "09n", "rainy"), ("Rain", "13d", "snowy-rainy"), ("Snow", "13n", "snowy"),
            ("Thunderstorm", "11d", "lightning-rainy"), ("Mist", "50d", "fog"), ("Fog", "50n", "fog"), ("Haze", "50d", "fog"),
            ("Smoke", "50d", "fog"), ("Dust", "50d", "exceptional"), ("Sand", "50d", "exceptional"), ("Ash", "50d", "exceptional"),
            ("Squall", "50d", "windy"), ("Tornado", "50d", "exceptional"),
        ])
    func conditions(_ condition: String, _ icon: String, _ expected: String) {
        #expect(HomeAssistantCondition.of(condition: condition, icon: icon) == expected)
    }

    @Test("every Home Assistant condition in the table is one of its documented names; an unknown condition is null")
    func tableNames() {
        let names: Set = [
            "clear-night", "cloudy", "exceptional", "fog", "hail", "lightning", "lightning-rainy", "partlycloudy", "pouring", "rainy",
            "snowy", "snowy-rainy", "sunny", "windy", "windy-variant",
        ]
        #expect(HomeAssistantCondition.table.allSatisfy { names.contains($0.homeAssistant) })
        #expect(HomeAssistantCondition.of(condition: "Volcano", icon: "50d") == nil)
        #expect(HomeAssistantCondition.of(condition: nil, icon: nil) == nil)
    }

    @Test("the payload: the weather now and the forecast in Home Assistant's shape (percent, mm, bearing)")
    func payload() throws {
        let text = HomeAssistantForecast.payload(feature: feature(fetchedAt: 1), forecast: forecast())
        let payload = try JSONValue.parse(Array(text.utf8))
        #expect(payload["condition"] == "cloudy")
        #expect(payload["forecast_step"] == .integer(10_800))
        let step = try #require(payload["forecast"]?.arrayValue?.first)
        #expect(step["datetime"] == .string(Timestamp.iso8601(Date(timeIntervalSince1970: 1_795_000_000))))
        #expect(step["condition"] == "rainy")
        #expect(step["temperature"]?.doubleValue == 10)
        #expect(step["precipitation"]?.doubleValue == 1.3)
        #expect(step["precipitation_probability"]?.doubleValue == 37)
        #expect(step["wind_speed"]?.doubleValue == 4.5)
        #expect(step["wind_bearing"]?.doubleValue == 200)
        #expect(step["humidity"]?.doubleValue == 70)
    }

    @Test("at most maxSteps steps")
    func maxSteps() throws {
        var long = forecast()
        long.steps = Array(repeating: long.steps[0], count: 120)
        let payload = try JSONValue.parse(Array(HomeAssistantForecast.payload(feature: feature(fetchedAt: 1), forecast: long).utf8))
        #expect(payload["forecast"]?.arrayValue?.count == HomeAssistantForecast.maxSteps)
    }

    @Test("plan: a forecast is fetched with each good lookup of the city, not again for the same one, nor for a stale one")
    func fetchWithLookups() {
        var plan = HomeAssistantForecastPlan(topics: topics)
        let key = "city_owm_2643743"
        #expect(plan.citiesChanged([("London", feature(fetchedAt: 1))]).fetch == [.init(key: key, city: "London")])
        // Nothing published before the forecast is there.
        #expect(plan.citiesChanged([("London", feature(fetchedAt: 1))]) == .init())
        let published = plan.fetched(key, forecast())
        #expect(published?.topic == "weatherd/dev1/forecast/\(key)")
        // The same lookup (an answer from the cache keeps its time): nothing to fetch or publish.
        #expect(plan.citiesChanged([("London", feature(fetchedAt: 1))]) == .init())
        // A failed refresh: the stale feature fetches nothing.
        var stale = feature(fetchedAt: 1)
        stale.stale = true
        #expect(plan.citiesChanged([("London", stale)]).fetch.isEmpty)
        // A new lookup: fetched again; the weather now changed, so the payload goes out at once.
        let next = plan.citiesChanged([("London", feature(fetchedAt: 2, condition: "Clear", icon: "01d"))])
        #expect(next.fetch == [.init(key: key, city: "London")])
        #expect(next.publish.count == 1 && next.publish[0].payload.contains(#""condition":"sunny""#))
        // The same forecast again: the same payload, not published twice.
        #expect(plan.fetched(key, forecast()) == nil)
        #expect(plan.fetched(key, forecast(11)) != nil)
    }

    @Test("plan: a city removed empties its topic once; a forecast arriving after is not published")
    func removal() {
        var plan = HomeAssistantForecastPlan(topics: topics)
        let key = "city_owm_2643743"
        _ = plan.citiesChanged([("London", feature(fetchedAt: 1))])
        _ = plan.fetched(key, forecast())
        let removed = plan.citiesChanged([])
        #expect(removed.publish == [MQTTMessage(topic: "weatherd/dev1/forecast/\(key)", payload: "")])
        #expect(plan.citiesChanged([]) == .init())
        #expect(plan.fetched(key, forecast()) == nil)
        // A city removed before its first forecast had nothing published: nothing to empty.
        _ = plan.citiesChanged([("Paris", feature(id: 2_988_507, fetchedAt: 1))])
        #expect(plan.citiesChanged([]) == .init())
    }
}
