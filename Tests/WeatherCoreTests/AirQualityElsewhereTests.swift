import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// Air quality where the weather goes besides the socket: `/metrics` and Home Assistant.
@Suite("Air quality in the metrics and in Home Assistant's discovery")
struct AirQualityElsewhereTests {
    static let reading = AirQuality(europeanAQI: 44, usAQI: 65, pm25: 22.1, pm10: 28.2, ozone: 42, nitrogenDioxide: 11.2)

    static func london(airQuality: AirQuality?) throws -> WeatherFeature {
        var observation = try Fixture.londonObservation()
        observation.airQuality = airQuality
        return WeatherFeature(observation: observation, source: .city)
    }

    @Test("a watched city's index on both scales, labelled with the data's provider and the scale; none without air quality")
    func series() throws {
        let samples = WeatherSeries.samples(of: try Self.london(airQuality: Self.reading), city: "London,GB")
            .filter { $0.measure == .airQualityIndex }
        #expect(samples.map(\.value) == [44, 65])
        #expect(
            samples.map(\.labels.pairs).map { $0.map { "\($0.0)=\($0.1)" } } == [
                ["city=London", "id=owm:2643743", "country=GB", "provider=open-meteo", "scale=european"],
                ["city=London", "id=owm:2643743", "country=GB", "provider=open-meteo", "scale=us"],
            ])
        #expect(!WeatherSeries.samples(of: try Self.london(airQuality: nil), city: "London,GB").contains { $0.measure == .airQualityIndex })
    }

    @Test("each watched city gets an AQI sensor (device_class aqi) reading the index of air-quality.scale; none while disabled")
    func homeAssistant() throws {
        let topics = MQTTTopics(prefix: "weatherd", device: "van 1")
        let london = try Self.london(airQuality: Self.reading)
        var discovery = HomeAssistantDiscovery(
            topics: topics, discoveryPrefix: "homeassistant", units: .metric, airQualityScale: .us, version: "1")
        let messages = discovery.update(Overlays(seq: 1, focus: nil, features: [london]))
        let sensor = try #require(messages.first { $0.topic == "homeassistant/sensor/van_1/city_owm_2643743_aqi/config" })
        let config = try JSONValue.parse(Array(sensor.payload.utf8))
        #expect(config["device_class"] == "aqi" && config["state_class"] == "measurement")
        #expect(config["unit_of_measurement"] == nil)
        #expect(config["state_topic"] == "weatherd/van 1/place/city_owm_2643743")
        #expect(config["value_template"] == "{{ value_json.air_quality.us_aqi if value_json.air_quality else None }}")
        #expect(config["name"] == "London air quality index")
        #expect(!messages.contains { $0.topic.contains("latest_aqi") }, "the watched cities' only")
        var disabled = HomeAssistantDiscovery(topics: topics, discoveryPrefix: "homeassistant", units: .metric, version: "1")
        #expect(!disabled.update(Overlays(seq: 1, focus: nil, features: [london])).contains { $0.topic.contains("_aqi/") })
    }
}
