#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The current weather at one place, as a provider reported it. Values it did not send are nil.
public struct WeatherObservation: Sendable, Hashable {
    /// OpenWeatherMap's city id; nil (or 0 upstream) when the point has no city.
    public var cityID: Int?
    /// The GeoNames id of the searched place, for an answer from Open-Meteo whose geocoder gave one.
    public var geonamesID: Int?
    public var name: String?
    /// The state or region of the searched place; nil for a point or where the geocoder gave none.
    public var state: String?
    public var country: String?
    public var coordinate: Coordinate
    public var temperature: Double?
    public var feelsLike: Double?
    public var tempMin: Double?
    public var tempMax: Double?
    public var humidity: Double?
    public var pressure: Double?
    public var windSpeed: Double?
    public var windDeg: Double?
    public var clouds: Double?
    /// The primary condition group, e.g. `Clouds`.
    public var condition: String?
    /// The primary condition's description, e.g. `overcast clouds`.
    public var conditionDescription: String?
    public var icon: String?
    public var observedAt: Date?
    public var units: Units
    /// When weatherd received this observation from its provider (an answer from the cache keeps
    /// its time); nil when it did not come from there.
    public var fetchedAt: Date?
    /// Which provider answered: `openweathermap` or `open-meteo`.
    public var provider = "openweathermap"
    /// How many other places the searched name matched (0 for coordinates and given places).
    public var alternatives = 0
    /// The air quality there, asked beside the weather; nil where disabled or not available.
    public var airQuality: AirQuality?

    public init(
        cityID: Int? = nil, name: String? = nil, country: String? = nil, coordinate: Coordinate,
        temperature: Double? = nil, feelsLike: Double? = nil, tempMin: Double? = nil, tempMax: Double? = nil,
        humidity: Double? = nil, pressure: Double? = nil, windSpeed: Double? = nil, windDeg: Double? = nil,
        clouds: Double? = nil, condition: String? = nil, conditionDescription: String? = nil, icon: String? = nil,
        observedAt: Date? = nil, units: Units
    ) {
        self.cityID = cityID
        self.name = name
        self.country = country
        self.coordinate = coordinate
        self.temperature = temperature
        self.feelsLike = feelsLike
        self.tempMin = tempMin
        self.tempMax = tempMax
        self.humidity = humidity
        self.pressure = pressure
        self.windSpeed = windSpeed
        self.windDeg = windDeg
        self.clouds = clouds
        self.condition = condition
        self.conditionDescription = conditionDescription
        self.icon = icon
        self.observedAt = observedAt
        self.units = units
    }

    /// The GeoJSON feature id: `owm:<id>`, `geonames:<id>` or `pt:<lat>,<lon>` with 4 decimals.
    public var featureID: String {
        if let cityID, cityID != 0 { return "owm:\(cityID)" }
        if let geonamesID { return "geonames:\(geonamesID)" }
        return "pt:" + NumberText.fixed(coordinate.lat, decimals: 4) + "," + NumberText.fixed(coordinate.lon, decimals: 4)
    }

    /// This observation at `coordinate`: the point that was asked, which keeps its own position and
    /// `pt:` id whichever point of its 0.01° cell the provider was asked for (the cell's answer is
    /// shared by all of them).
    public func at(_ coordinate: Coordinate) -> WeatherObservation {
        var moved = self
        moved.coordinate = coordinate
        return moved
    }

    /// This observation under the name of `place` (the place that was searched, not the station that
    /// answered), with `alternatives` other places of the same name.
    public func named(after place: Place, alternatives: Int) -> WeatherObservation {
        var named = self
        named.name = place.name
        named.state = place.state
        named.country = place.country
        named.alternatives = alternatives
        // Open-Meteo names no place: its answer is known by the GeoNames id of the place searched.
        if named.cityID == nil, provider == WeatherProviderName.openMeteo.rawValue { named.geonamesID = place.geonamesID }
        return named
    }
}
