/// Home Assistant MQTT discovery for one weatherd: one device, and four sensors (temperature,
/// humidity, wind speed, condition) for each place: the latest interactive place (`latest`: the
/// result of the latest text, location or region search) and each watched city (`city_<id>`).
/// A watched city has a fifth, its forecast: its state is the city's condition in Home Assistant's
/// names, its JSON attributes (`P/D/forecast/KEY`, see ``HomeAssistantForecast``) the forecast; and
/// with air quality on, a sixth, its air quality index (`device_class: aqi`, on `air-quality.scale`);
/// and a binary sensor "weather alert" (`device_class: safety`): on while an alert is in force there,
/// its attributes the alerts.
///
/// Each place's weather is published retained on `P/D/place/KEY` (the feature's properties as a
/// JSON object); its sensors read it with a value template and take `P/D/status` as their
/// availability. A watched city that leaves the overlays has its sensors' discovery topics and
/// its place topic emptied, which removes its entities. Pure: `update` says what to publish.
public struct HomeAssistantDiscovery: Sendable {
    /// One sensor of a place.
    struct Sensor: Sendable {
        let measure: String
        let label: String
        let property: String
        let deviceClass: String?
        let unit: String?
        let icon: String?
        /// Reads the city's forecast topic, not its place topic.
        var forecast = false
        /// Home Assistant's component: `sensor`, or `binary_sensor` (``alertSensor``).
        var component = "sensor"
        /// The value template, when it is not `{{ value_json.<property> }}`.
        var template: String?
    }

    private let topics: MQTTTopics
    private let discoveryPrefix: String
    private let sensors: [Sensor]
    /// The forecast sensor of a watched city.
    private let forecastSensor = Sensor(
        measure: "forecast", label: "forecast", property: "condition", deviceClass: nil, unit: nil, icon: "mdi:weather-partly-cloudy",
        forecast: true)
    /// The "weather alert" binary sensor of a watched city: on while `properties.alerts` holds one.
    private let alertSensor = Sensor(
        measure: "alert", label: "weather alert", property: "alerts", deviceClass: "safety", unit: nil, icon: nil,
        component: "binary_sensor")
    /// The air quality sensor of a watched city; nil while air quality is disabled.
    private let airQualitySensor: Sensor?
    private let version: String
    /// The device name as a discovery node id: letters, digits, `_` and `-`.
    let nodeID: String

    /// Places whose entities are configured, with the name they were configured with.
    private var configured: [String: String] = [:]
    /// The place payload last published, per place key.
    private var lastState: [String: String] = [:]
    /// Feature ids of watched cities seen: a city stays one while its feature is in the overlays,
    /// even when an interactive search of the same place replaced its source.
    private var cityIDs: Set<String> = []

    /// - Parameter airQualityScale: the index of each watched city's air quality sensor; nil: no
    ///   such sensor (air quality disabled).
    public init(
        topics: MQTTTopics, discoveryPrefix: String, units: Units, airQualityScale: AirQualityScale? = nil, version: String
    ) {
        self.topics = topics
        airQualitySensor = airQualityScale.map { scale in
            let property = scale == .european ? "european_aqi" : "us_aqi"
            // air_quality is null while it is not known: the sensor's state is then unknown.
            return Sensor(
                measure: "aqi", label: "air quality index", property: "air_quality.\(property)", deviceClass: "aqi", unit: nil,
                icon: nil,
                template: "{{ value_json.air_quality.\(property) if value_json.air_quality else None }}")
        }
        self.discoveryPrefix = discoveryPrefix
        self.version = version
        nodeID = Self.slug(topics.device)
        let (temperature, speed): (String, String) =
            switch units {
            case .metric: ("°C", "m/s")
            case .imperial: ("°F", "mph")
            case .standard: ("K", "m/s")
            }
        sensors = [
            Sensor(
                measure: "temperature", label: "temperature", property: "temperature", deviceClass: "temperature", unit: temperature,
                icon: nil),
            Sensor(measure: "humidity", label: "humidity", property: "humidity", deviceClass: "humidity", unit: "%", icon: nil),
            Sensor(measure: "wind_speed", label: "wind speed", property: "wind_speed", deviceClass: "wind_speed", unit: speed, icon: nil),
            Sensor(
                measure: "condition", label: "condition", property: "condition", deviceClass: nil, unit: nil,
                icon: "mdi:weather-partly-cloudy"),
        ]
    }

    /// Letters, digits, `_` and `-` of `text`; anything else becomes `_`.
    static func slug(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                let allowed =
                    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
                    || scalar == "-"
                return allowed ? Character(scalar) : "_"
            })
    }

    /// The place key of a watched city whose feature has `featureID`.
    public static func cityKey(_ featureID: String) -> String { "city_" + slug(featureID) }

    /// The sensors of the place `key`: a watched city's have its forecast, too.
    private func sensors(of key: String) -> [Sensor] {
        key == "latest" ? sensors : sensors + [forecastSensor] + (airQualitySensor.map { [$0] } ?? []) + [alertSensor]
    }

    /// The discovery topic of one sensor of a place.
    func configTopic(place: String, measure: String, component: String = "sensor") -> String {
        "\(discoveryPrefix)/\(component)/\(nodeID)/\(place)_\(measure)/config"
    }

    /// What to publish after the overlays changed: discovery of new places, their weather, and the
    /// removal of cities no longer watched. Retained messages, in that order.
    public mutating func update(_ overlays: Overlays) -> [MQTTMessage] {
        var places: [(key: String, name: String, feature: WeatherFeature?)] = []
        let interactive = overlays.features.first { [.text, .location, .region].contains($0.source) }
        places.append(("latest", "latest", interactive))
        let present = Set(overlays.features.map(\.id))
        cityIDs = cityIDs.intersection(present).union(overlays.features.filter { $0.source == .city }.map(\.id))
        for feature in overlays.features where cityIDs.contains(feature.id) {
            let name = feature.observation.name ?? feature.id
            places.append((Self.cityKey(feature.id), name, feature))
        }
        var messages: [MQTTMessage] = []
        for place in places where configured[place.key] != place.name {
            configured[place.key] = place.name
            messages += sensors(of: place.key).map {
                MQTTMessage(
                    topic: configTopic(place: place.key, measure: $0.measure, component: $0.component),
                    payload: config(of: $0, place: place.key, name: place.name))
            }
        }
        for place in places {
            guard let feature = place.feature, let properties = feature.json["properties"] else { continue }
            let payload = properties.serialized
            if lastState[place.key] != payload {
                lastState[place.key] = payload
                messages.append(MQTTMessage(topic: topics.place(place.key), payload: payload))
            }
        }
        let wanted = Set(places.map(\.key))
        for key in configured.keys.sorted() where !wanted.contains(key) {
            configured[key] = nil
            lastState[key] = nil
            messages += sensors(of: key).map {
                MQTTMessage(topic: configTopic(place: key, measure: $0.measure, component: $0.component), payload: "")
            }
            messages.append(MQTTMessage(topic: topics.place(key), payload: ""))
        }
        return messages
    }

    /// The discovery payload of one sensor.
    func config(of sensor: Sensor, place: String, name: String) -> String {
        let topic = sensor.forecast ? topics.forecast(place) : topics.place(place)
        var object: JSONObject = [
            "name": .string(place == "latest" ? "Latest \(sensor.label)" : "\(name) \(sensor.label)"),
            "unique_id": .string("weatherd_\(nodeID)_\(place)_\(sensor.measure)"),
            "state_topic": .string(topic),
            "value_template": .string(sensor.template ?? "{{ value_json.\(sensor.property) }}"),
            "json_attributes_topic": .string(topic),
            "availability_topic": .string(topics.status),
            "payload_available": .string(MQTTTopics.online),
            "payload_not_available": .string(MQTTTopics.offline),
            "qos": .integer(1),
            "device": .object([
                "identifiers": .array([.string("weatherd_\(nodeID)")]),
                "name": .string("weatherd \(topics.device)"),
                "manufacturer": "weatherd",
                "model": "weatherd",
                "sw_version": .string(version),
            ]),
            "origin": .object(["name": "weatherd", "sw_version": .string(version)]),
        ]
        if sensor.component == "binary_sensor" {
            // On while an alert is in force (unknown while the alerts are not known); the alerts as attributes.
            object["value_template"] = .string("{{ 'ON' if value_json.\(sensor.property) else 'OFF' }}")
            object["json_attributes_template"] = .string("{{ {'alerts': value_json.\(sensor.property) or []} | tojson }}")
            object["payload_on"] = "ON"
            object["payload_off"] = "OFF"
            if let deviceClass = sensor.deviceClass { object["device_class"] = .string(deviceClass) }
        } else if let deviceClass = sensor.deviceClass {
            object["device_class"] = .string(deviceClass)
            object["state_class"] = "measurement"
        }
        if let unit = sensor.unit { object["unit_of_measurement"] = .string(unit) }
        if let icon = sensor.icon { object["icon"] = .string(icon) }
        return JSONValue.object(object).serialized
    }
}
