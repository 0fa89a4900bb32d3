import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("MQTT: the latest payload per topic")
struct MQTTLatestTests {
    static let topics = MQTTTopics(prefix: "weatherd", device: "dev1")

    @Test("topics are P/D/...")
    func topicNames() {
        let topics = Self.topics
        #expect(
            [topics.status, topics.overlays, topics.state, topics.request, topics.reply, topics.place("latest")]
                == [
                    "weatherd/dev1/status", "weatherd/dev1/overlays", "weatherd/dev1/state", "weatherd/dev1/request",
                    "weatherd/dev1/reply", "weatherd/dev1/place/latest",
                ])
    }

    @Test("the newest payload wins; nothing is taken twice; every change wakes the publisher")
    func latestWins() {
        let latest = MQTTLatest(topics: Self.topics)
        let wakes = Mutex(0)
        latest.onChange { wakes.withLock { $0 += 1 } }
        latest.set(MQTTMessage(topic: "a", payload: "1"))
        latest.set(MQTTMessage(topic: "a", payload: "2"))
        latest.set(MQTTMessage(topic: "b", payload: "x"))
        #expect(wakes.withLock { $0 } == 3)
        let first = latest.next()
        #expect(first?.topic == "a" && first?.payload.encoded == "2")
        #expect(latest.next()?.topic == "b")
        #expect(latest.next() == nil)
    }

    @Test("at most one payload of a topic in flight: a newer one waits for the acknowledgement, the ones between are never sent")
    func oneInFlight() throws {
        let latest = MQTTLatest(topics: Self.topics)
        latest.set(MQTTMessage(topic: "a", payload: "1"))
        let sent = try #require(latest.next())
        latest.set(MQTTMessage(topic: "a", payload: "2"))
        latest.set(MQTTMessage(topic: "a", payload: "3"))
        #expect(latest.next() == nil)
        latest.published("a", version: sent.version)
        #expect(latest.next()?.payload.encoded == "3")
        #expect(latest.next() == nil)
    }

    @Test("after a lost connection every latest payload goes out again, once")
    func republishAfterLoss() throws {
        let latest = MQTTLatest(topics: Self.topics)
        latest.set(MQTTMessage(topic: "a", payload: "1"))
        latest.set(MQTTMessage(topic: "b", payload: "2"))
        let a = try #require(latest.next())
        latest.published("a", version: a.version)
        let b = try #require(latest.next())
        latest.published("b", version: b.version)
        #expect(latest.next() == nil)
        latest.connectionLost()
        #expect([latest.next()?.topic, latest.next()?.topic, latest.next()?.topic] == ["a", "b", nil])
    }

    @Test(
        "a failed publish is not taken again until replaced (the other topics go on); it is reported once; a new connection tries it once more"
    )
    func failedNotRetried() throws {
        let latest = MQTTLatest(topics: Self.topics)
        latest.set(MQTTMessage(topic: "a", payload: "too big"))
        latest.set(MQTTMessage(topic: "b", payload: "2"))
        let a = try #require(latest.next())
        #expect(latest.failed("a", version: a.version))
        let b = try #require(latest.next())
        #expect(b.topic == "b")
        latest.published("b", version: b.version)
        #expect(latest.next() == nil)
        // A new connection: tried once more, not reported again.
        latest.connectionLost()
        let retried = try #require(latest.next())
        #expect(retried.topic == "a" && retried.version == a.version)
        #expect(!latest.failed("a", version: retried.version))
        #expect(latest.next()?.topic == "b")
        #expect(latest.next() == nil)
        // A newer payload is taken, and its failure reported.
        latest.set(MQTTMessage(topic: "a", payload: "smaller"))
        let newer = try #require(latest.next())
        #expect(newer.payload.encoded == "smaller")
        #expect(latest.failed("a", version: newer.version))
    }

    @Test("an empty payload (a deletion) is forgotten once acknowledged")
    func deletionForgotten() throws {
        let latest = MQTTLatest(topics: Self.topics)
        latest.set(MQTTMessage(topic: "gone", payload: ""))
        let deletion = try #require(latest.next())
        latest.published("gone", version: deletion.version)
        #expect(latest.topicCount == 0)
        latest.connectionLost()
        #expect(latest.next() == nil)
    }

    @Test("as the engine's publisher: state and overlays land on their topics, encoded only when taken")
    func changePublisher() throws {
        let latest = MQTTLatest(topics: Self.topics)
        latest.publish(overlays: Overlays(seq: 3, focus: nil, features: []))
        let taken = try #require(latest.next())
        #expect(taken.topic == "weatherd/dev1/overlays")
        #expect(try JSONValue.parse(Array(taken.payload.encoded.utf8))["seq"] == .integer(3))
    }
}

@Suite("MQTT: Home Assistant discovery")
struct HomeAssistantDiscoveryTests {
    static let topics = MQTTTopics(prefix: "weatherd", device: "van 1")

    static func overlays(_ features: [WeatherFeature]) -> Overlays { Overlays(seq: 1, focus: nil, features: features) }

    static func configTopics(_ messages: [MQTTMessage]) -> [String] {
        messages.map(\.topic).filter { $0.hasPrefix("homeassistant/") }
    }

    @Test(
        "the latest place gets four sensors, a watched city five (its forecast too) and a weather alert binary sensor, on one device, with availability from P/D/status"
    )
    func sensors() throws {
        var discovery = HomeAssistantDiscovery(topics: Self.topics, discoveryPrefix: "homeassistant", units: .metric, version: "1.2.3")
        let london = WeatherFeature(observation: try Fixture.londonObservation(), source: .city)
        let messages = discovery.update(Self.overlays([london]))
        let configs = messages.filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(configs.count == 10)
        #expect(
            configs.allSatisfy {
                ($0.topic.hasPrefix("homeassistant/sensor/van_1/") || $0.topic.hasPrefix("homeassistant/binary_sensor/van_1/"))
                    && $0.topic.hasSuffix("/config") && $0.retained
            })
        let alert = try #require(configs.first { $0.topic == "homeassistant/binary_sensor/van_1/city_owm_2643743_alert/config" })
        let alertConfig = try JSONValue.parse(Array(alert.payload.utf8))
        #expect(alertConfig["device_class"] == "safety" && alertConfig["name"] == "London weather alert")
        #expect(alertConfig["state_topic"] == "weatherd/van 1/place/city_owm_2643743")
        #expect(alertConfig["value_template"] == "{{ 'ON' if value_json.alerts else 'OFF' }}")
        #expect(alertConfig["state_class"] == nil && alertConfig["payload_on"] == "ON")
        let temperature = try #require(configs.first { $0.topic == "homeassistant/sensor/van_1/city_owm_2643743_temperature/config" })
        let config = try JSONValue.parse(Array(temperature.payload.utf8))
        #expect(config["state_topic"] == "weatherd/van 1/place/city_owm_2643743")
        #expect(config["availability_topic"] == "weatherd/van 1/status")
        #expect(config["device_class"] == "temperature" && config["unit_of_measurement"] == "°C")
        #expect(config["device"]?["identifiers"] == .array(["weatherd_van_1"]))
        #expect(config["name"] == "London temperature")
        // The forecast sensor: state and attributes from the city's forecast topic.
        let forecast = try #require(configs.first { $0.topic == "homeassistant/sensor/van_1/city_owm_2643743_forecast/config" })
        let forecastConfig = try JSONValue.parse(Array(forecast.payload.utf8))
        #expect(forecastConfig["json_attributes_topic"] == "weatherd/van 1/forecast/city_owm_2643743")
        #expect(forecastConfig["state_topic"] == "weatherd/van 1/forecast/city_owm_2643743")
        #expect(forecastConfig["value_template"] == "{{ value_json.condition }}")
        #expect(forecastConfig["name"] == "London forecast")
        #expect(!configs.contains { $0.topic.contains("latest_forecast") })
        // Only the city has weather yet; the latest place waits for an interactive search.
        let places = messages.filter { $0.topic.hasPrefix("weatherd/") }
        #expect(places.map(\.topic) == ["weatherd/van 1/place/city_owm_2643743"])
        #expect(try JSONValue.parse(Array(places[0].payload.utf8))["temperature"]?.doubleValue == 8.94)
        // Nothing changed: nothing to publish.
        #expect(discovery.update(Self.overlays([london])).isEmpty)
    }

    @Test("units follow weather.units")
    func imperial() throws {
        var discovery = HomeAssistantDiscovery(topics: Self.topics, discoveryPrefix: "ha", units: .imperial, version: "1")
        let messages = discovery.update(Self.overlays([]))
        let wind = try #require(messages.first { $0.topic == "ha/sensor/van_1/latest_wind_speed/config" })
        #expect(try JSONValue.parse(Array(wind.payload.utf8))["unit_of_measurement"] == "mph")
    }

    @Test("a city searched interactively keeps its entities; a city gone from the overlays has them removed (empty retained payloads)")
    func removal() throws {
        var discovery = HomeAssistantDiscovery(topics: Self.topics, discoveryPrefix: "homeassistant", units: .metric, version: "1")
        let observation = try Fixture.londonObservation()
        _ = discovery.update(Self.overlays([WeatherFeature(observation: observation, source: .city)]))
        let searched = discovery.update(Self.overlays([WeatherFeature(observation: observation, source: .text)]))
        #expect(searched.allSatisfy { !$0.payload.isEmpty })
        #expect(searched.map(\.topic).contains("weatherd/van 1/place/latest"))
        let removed = discovery.update(Self.overlays([]))
        let emptied = removed.filter { $0.payload.isEmpty }.map(\.topic)
        #expect(emptied.count == 7)
        #expect(emptied.contains("homeassistant/binary_sensor/van_1/city_owm_2643743_alert/config"))
        #expect(emptied.contains("homeassistant/sensor/van_1/city_owm_2643743_condition/config"))
        #expect(emptied.contains("homeassistant/sensor/van_1/city_owm_2643743_forecast/config"))
        #expect(emptied.contains("weatherd/van 1/place/city_owm_2643743"))
        #expect(!emptied.contains { $0.contains("latest") })
    }
}
