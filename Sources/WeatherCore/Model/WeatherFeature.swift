import Foundation

/// Where a feature came from in the search stream (`properties.source`).
public enum FeatureSource: String, Sendable, Hashable, CaseIterable {
    /// A watched city of the configuration or `cities.add`.
    case city
    /// A `search` request.
    case text
    /// A gpsd fix.
    case location
    /// The centre of a map region.
    case region
    /// Another point of a region's grid.
    case around
}

/// The gpsd fix a location result was looked up for (`properties.fix`).
public struct FixSummary: Sendable, Hashable {
    public var coordinate: Coordinate
    public var horizontalError: Double
    public var mode: Int

    public init(coordinate: Coordinate, horizontalError: Double, mode: Int) {
        self.coordinate = coordinate
        self.horizontalError = horizontalError
        self.mode = mode
    }

    public var json: JSONValue {
        .object([
            "lat": .double(coordinate.lat), "lon": .double(coordinate.lon),
            "horizontal_error": .double(horizontalError), "mode": .integer(Int64(mode)),
        ])
    }
}

/// One weather result: a GeoJSON Feature with a Point geometry.
public struct WeatherFeature: Sendable, Hashable, JSONRepresentable {
    /// `owm:<city id>`, or `pt:<lat>,<lon>` (4 decimals) when OpenWeatherMap gave no city id.
    public var id: String
    public var coordinate: Coordinate
    public var source: FeatureSource
    public var observation: WeatherObservation
    public var fix: FixSummary?

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
            "name": .string(o.name), "country": .string(o.country), "source": .string(source.rawValue),
            "temperature": .number(o.temperature), "feels_like": .number(o.feelsLike),
            "temp_min": .number(o.tempMin), "temp_max": .number(o.tempMax),
            "humidity": .number(o.humidity), "pressure": .number(o.pressure),
            "wind_speed": .number(o.windSpeed), "wind_deg": .number(o.windDeg), "clouds": .number(o.clouds),
            "condition": .string(o.condition), "description": .string(o.conditionDescription),
            "icon": .string(o.icon), "symbol": .string(o.icon.flatMap(WeatherSymbol.glyph(forIcon:))),
            "observed_at": .string(o.observedAt.map(Timestamp.iso8601)), "units": .string(o.units.rawValue),
        ]
        if let fix { properties["fix"] = fix.json }
        return .object([
            "type": "Feature", "id": .string(id),
            "geometry": .object(["type": "Point", "coordinates": coordinate.geoJSONPosition]),
            "properties": .object(properties),
        ])
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

/// Timestamps as the protocol writes them: RFC 3339 in UTC with whole seconds.
public enum Timestamp {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())  // 2019-04-28T09:35:55Z
    }
}
