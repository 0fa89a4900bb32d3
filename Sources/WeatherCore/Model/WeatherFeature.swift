/// One weather result: a GeoJSON Feature with a Point geometry.
public struct WeatherFeature: Sendable, Hashable, JSONRepresentable {
    /// The stored fields, kept in one heap block (``CopyOnWrite``): a feature is copied
    /// into every overlays, turn and reply, with its observation, fix and device.
    struct Fields: Sendable, Hashable {
        var id: String
        var coordinate: Coordinate
        var source: FeatureSource
        var observation: WeatherObservation
        var fix: FixSummary?
        var device: DeviceSummary?
        var stale: Bool = false
        var alerts: [Alert]?
        var alertsStale: Bool = false
    }

    private var fields: CopyOnWrite<Fields>

    /// `owm:<city id>`, or `pt:<lat>,<lon>` (4 decimals) when OpenWeatherMap gave no city id.
    public var id: String {
        get { fields.value.id }
        set { fields.modify { $0.id = newValue } }
    }
    public var coordinate: Coordinate {
        get { fields.value.coordinate }
        set { fields.modify { $0.coordinate = newValue } }
    }
    public var source: FeatureSource {
        get { fields.value.source }
        set { fields.modify { $0.source = newValue } }
    }
    public var observation: WeatherObservation {
        get { fields.value.observation }
        set { fields.modify { $0.observation = newValue } }
    }
    public var fix: FixSummary? {
        get { fields.value.fix }
        set { fields.modify { $0.fix = newValue } }
    }
    /// An OwnTracks device's feature: the device (`properties.device`).
    public var device: DeviceSummary? {
        get { fields.value.device }
        set { fields.modify { $0.device = newValue } }
    }
    /// A watched city's last good feature, kept while its refresh fails.
    public var stale: Bool {
        get { fields.value.stale }
        set { fields.modify { $0.stale = newValue } }
    }
    /// The alerts in force here, most severe first: `[]` when asked and there are none; nil while not
    /// known yet or outside every alert provider's area.
    public var alerts: [Alert]? {
        get { fields.value.alerts }
        set { fields.modify { $0.alerts = newValue } }
    }
    /// A refresh of `alerts` failed: they are the last ones known.
    public var alertsStale: Bool {
        get { fields.value.alertsStale }
        set { fields.modify { $0.alertsStale = newValue } }
    }

    public init(observation: WeatherObservation, source: FeatureSource, fix: FixSummary? = nil) {
        fields = CopyOnWrite(
            Fields(id: observation.featureID, coordinate: observation.coordinate, source: source, observation: observation, fix: fix))
    }

    public var json: JSONValue {
        let o = observation
        var properties: JSONObject = [
            "name": .string(o.name), "state": .string(o.state), "country": .string(o.country),
            "source": .string(source.rawValue), "provider": .string(o.provider), "alternatives": .integer(Int64(o.alternatives)),
            "temperature": .number(o.temperature), "feels_like": .number(o.feelsLike),
            "temp_min": .number(o.tempMin), "temp_max": .number(o.tempMax),
            "humidity": .number(o.humidity), "pressure": .number(o.pressure),
            "wind_speed": .number(o.windSpeed), "wind_deg": .number(o.windDeg), "clouds": .number(o.clouds),
            "condition": .string(o.condition), "description": .string(o.conditionDescription),
            "icon": .string(o.icon), "symbol": .string(o.icon.flatMap(WeatherSymbol.glyph(forIcon:))),
            "observed_at": .string(o.observedAt.map(Timestamp.iso8601)), "units": .string(o.units.rawValue),
            "fetched_at": .string(o.fetchedAt.map(Timestamp.iso8601)), "stale": .bool(stale),
            "air_quality": o.airQuality?.json ?? .null,
        ]
        if let fix { properties["fix"] = fix.json }
        if let device { properties["device"] = device.json }
        properties["alerts"] = alerts.map { .array($0.map(\.json)) } ?? .null
        properties["alerts_stale"] = .bool(alertsStale)
        return .object([
            "type": "Feature", "id": .string(id),
            "geometry": .object(["type": "Point", "coordinates": coordinate.geoJSONPosition]),
            "properties": .object(properties),
        ])
    }
}
