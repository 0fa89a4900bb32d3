/// One weather result: a GeoJSON Feature with a Point geometry.
public struct WeatherFeature: Sendable, Hashable, JSONRepresentable {
    /// `owm:<city id>`, or `pt:<lat>,<lon>` (4 decimals) when OpenWeatherMap gave no city id.
    public var id: String
    public var coordinate: Coordinate
    public var source: FeatureSource
    public var observation: WeatherObservation
    public var fix: FixSummary?
    /// An OwnTracks device's feature: the device (`properties.device`).
    public var device: DeviceSummary?
    /// A watched city's last good feature, kept while its refresh fails.
    public var stale = false
    /// The alerts in force here, most severe first: `[]` when asked and there are none; nil while not
    /// known yet or outside every alert provider's area.
    public var alerts: [Alert]?
    /// A refresh of `alerts` failed: they are the last ones known.
    public var alertsStale = false

    public init(observation: WeatherObservation, source: FeatureSource, fix: FixSummary? = nil) {
        self.id = observation.featureID
        self.coordinate = observation.coordinate
        self.source = source
        self.observation = observation
        self.fix = fix
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
