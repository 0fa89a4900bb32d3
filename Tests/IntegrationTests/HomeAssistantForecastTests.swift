import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The topics of the watched cities' forecasts, on an `MQTTDaemon` publishing Home Assistant
/// discovery (`homeassistant = true`).
private enum ForecastDaemon {
    static let prefix = MQTTDaemon.prefix
    static let london = "city_owm_2643743"
    static let paris = "city_owm_2988507"

    /// Starts weatherd with Home Assistant discovery, connected to a real Mosquitto.
    static func start(cities: [String]) async throws -> MQTTDaemon {
        try await MQTTDaemon(cities: cities, mqttLines: ["homeassistant = true"])
    }

    static func forecastTopic(_ key: String) -> String { "\(prefix)/forecast/\(key)" }
    static func configTopic(_ key: String) -> String { "homeassistant/sensor/\(MQTTDaemon.device)/\(key)_forecast/config" }
}

/// Home Assistant's weather conditions.
private let homeAssistantConditions: Set<String> = [
    "clear-night", "cloudy", "exceptional", "fog", "hail", "lightning", "lightning-rainy", "partlycloudy", "pouring", "rainy",
    "snowy", "snowy-rainy", "sunny", "windy", "windy-variant",
]

@Suite("Home Assistant: the watched cities' forecasts on a real Mosquitto", .serialized)
struct HomeAssistantForecastMQTTTests {
    @Test(
        "each watched city's forecast is retained in Home Assistant's shape, named by its discovery config; removing the city empties both")
    func retainedForecasts() async throws {
        let fixture = try await ForecastDaemon.start(cities: ["London", "Paris"])
        let subscriber = try await fixture.broker.subscriber(
            ["homeassistant/sensor/dev1/+/config", "\(ForecastDaemon.prefix)/forecast/#"], format: "%t %l %p")
        defer { subscriber.send(SIGKILL) }
        for key in [ForecastDaemon.london, ForecastDaemon.paris] {
            _ = try await subscriber.waitForLine(containing: ForecastDaemon.forecastTopic(key) + " ", on: \.stdout, timeout: .seconds(20))
        }
        let topics = [ForecastDaemon.london, ForecastDaemon.paris].flatMap {
            [ForecastDaemon.forecastTopic($0), ForecastDaemon.configTopic($0)]
        }
        let retained = try await fixture.broker.retained(topics)

        // The discovery config: the forecast topic is the sensor's state and JSON attributes.
        let config = try JSONValue.parse(Array((retained[ForecastDaemon.configTopic(ForecastDaemon.paris)] ?? "").utf8))
        #expect(config["json_attributes_topic"] == .string(ForecastDaemon.forecastTopic(ForecastDaemon.paris)))
        #expect(config["state_topic"] == .string(ForecastDaemon.forecastTopic(ForecastDaemon.paris)))
        #expect(config["availability_topic"] == .string("\(ForecastDaemon.prefix)/status"))
        #expect(config["unique_id"] == "weatherd_dev1_city_owm_2988507_forecast" && config["name"] == "Paris forecast")

        // Paris's forecast: the recording's steps, in Home Assistant's shape.
        let paris = try JSONValue.parse(Array((retained[ForecastDaemon.forecastTopic(ForecastDaemon.paris)] ?? "").utf8))
        #expect(paris["condition"]?.stringValue.map(homeAssistantConditions.contains) == true, "\(paris.serialized)")
        #expect(paris["forecast_step"] == .integer(10_800))
        let steps = try #require(paris["forecast"]?.arrayValue)
        #expect(steps.map { $0["datetime"]?.stringValue } == ["2018-12-01T00:00:00Z", "2018-12-05T21:00:00Z"])
        #expect(steps[0]["condition"] == "rainy" && steps[0]["temperature"]?.doubleValue == 6.71)
        #expect(steps[0]["precipitation"]?.doubleValue == 0.035 && steps[0]["precipitation_probability"] == .null)
        for step in steps {
            let keys = Set(step.objectValue?.keys ?? [])
            #expect(
                keys == [
                    "datetime", "condition", "temperature", "precipitation", "precipitation_probability", "wind_speed", "wind_bearing",
                    "humidity",
                ])
            #expect(step["condition"]?.stringValue.map(homeAssistantConditions.contains) == true)
        }
        // London's (synthesized) forecast: every step has a condition Home Assistant knows.
        let london = try JSONValue.parse(Array((retained[ForecastDaemon.forecastTopic(ForecastDaemon.london)] ?? "").utf8))
        let londonSteps = try #require(london["forecast"]?.arrayValue)
        #expect(!londonSteps.isEmpty && londonSteps.count <= HomeAssistantForecast.maxSteps)
        #expect(londonSteps.allSatisfy { $0["condition"]?.stringValue.map(homeAssistantConditions.contains) == true })

        // One forecast request a city, through the request budget like any forecast.
        let stats = try await fixture.replay.stats()
        #expect(stats.forecastRequests == 2, "\(stats)")

        // Removing the city empties its forecast topic and its forecast sensor's discovery config.
        _ = try await fixture.daemon.call("cities.remove", ["city": "Paris"])
        _ = try await subscriber.waitForLine(
            containing: ForecastDaemon.forecastTopic(ForecastDaemon.paris) + " 0 ", on: \.stdout, timeout: .seconds(20))
        _ = try await subscriber.waitForLine(
            containing: ForecastDaemon.configTopic(ForecastDaemon.paris) + " 0 ", on: \.stdout, timeout: .seconds(20))
        #expect(try await fixture.broker.retained([ForecastDaemon.forecastTopic(ForecastDaemon.london)]).count == 1)
        _ = try await fixture.daemon.expectPromptShutdown()
    }

    @Test("the broker restarted: each forecast goes out once, the latest, never the changes made while it was away")
    func noBacklogAfterReconnect() async throws {
        let fixture = try await ForecastDaemon.start(cities: ["London"])
        let london = ForecastDaemon.forecastTopic(ForecastDaemon.london)
        let first = try await fixture.broker.subscriber([london])
        _ = try await first.waitForLine(containing: london + " ", on: \.stdout, timeout: .seconds(20))
        first.send(SIGKILL)
        let port = fixture.broker.port
        try await fixture.broker.stop()
        _ = try await fixture.daemon.process.waitForLine(containing: "MQTT: the connection to", on: \.stderr)
        // While the broker is away: Paris comes, its forecast is fetched (and handed over), and it goes.
        _ = try await fixture.daemon.call("cities.add", ["city": "Paris"])
        try await fixture.replay.waitForStats("Paris's forecast requested") { $0.forecastRequests == 2 }
        _ = try await fixture.daemon.call("cities.remove", ["city": "Paris"])
        let restarted = try await MosquittoBroker.start(in: fixture.directory, port: port, config: ["log_type all"])
        let subscriber = try await restarted.subscriber(["\(ForecastDaemon.prefix)/status", london], format: "%t %p")
        defer { subscriber.send(SIGKILL) }
        _ = try await subscriber.waitForLine(containing: "status online", on: \.stdout, timeout: .seconds(40))
        _ = try await subscriber.waitForLine(containing: london + " {", on: \.stdout, timeout: .seconds(20))
        // The broker's log counts what weatherd sent it after the reconnect.
        func published(_ topic: String) -> [String] {
            restarted.logLines(containing: "Received PUBLISH from dev1 ").filter { $0.contains("'\(topic)'") }
        }
        // The subscriber can see the message before the broker's log line about it is read here.
        _ = try await restarted.waitForLog("London's forecast received from weatherd") { lines in
            lines.contains { $0.contains("Received PUBLISH from dev1 ") && $0.contains("'\(london)'") } ? true : nil
        }
        #expect(published(london).count == 1, "\(restarted.logLines(containing: "PUBLISH"))")
        let paris = published(ForecastDaemon.forecastTopic(ForecastDaemon.paris))
        #expect(paris.count <= 1 && paris.allSatisfy { $0.hasSuffix("(0 bytes))") }, "at most the removal, once: \(paris)")
        _ = try await fixture.daemon.expectPromptShutdown()
        withExtendedLifetime(restarted) {}
    }
}
