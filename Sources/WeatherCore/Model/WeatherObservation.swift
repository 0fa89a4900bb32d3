#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The current weather at one place, as a provider reported it. Values it did not send are nil.
public struct WeatherObservation: Sendable, Hashable {
    /// The stored fields, kept in one heap block (``CopyOnWrite``): an observation is copied into
    /// every feature, turn and change, and is some 470 bytes with a dozen strings.
    struct Fields: Sendable, Hashable {
        var cityID: Int?
        var geonamesID: Int?
        var name: String?
        var state: String?
        var country: String?
        var coordinate: Coordinate
        var temperature: Double?
        var feelsLike: Double?
        var tempMin: Double?
        var tempMax: Double?
        var humidity: Double?
        var pressure: Double?
        var windSpeed: Double?
        var windDeg: Double?
        var clouds: Double?
        var condition: String?
        var conditionDescription: String?
        var icon: String?
        var observedAt: Date?
        var units: Units
        var fetchedAt: Date?
        var provider: String = "openweathermap"
        var alternatives: Int = 0
        var airQuality: AirQuality?
    }

    private var fields: CopyOnWrite<Fields>

    /// OpenWeatherMap's city id; nil (or 0 upstream) when the point has no city.
    public var cityID: Int? {
        get { fields.value.cityID }
        set { fields.modify { $0.cityID = newValue } }
    }
    /// The GeoNames id of the searched place, for an answer from Open-Meteo whose geocoder gave one.
    public var geonamesID: Int? {
        get { fields.value.geonamesID }
        set { fields.modify { $0.geonamesID = newValue } }
    }
    public var name: String? {
        get { fields.value.name }
        set { fields.modify { $0.name = newValue } }
    }
    /// The state or region of the searched place; nil for a point or where the geocoder gave none.
    public var state: String? {
        get { fields.value.state }
        set { fields.modify { $0.state = newValue } }
    }
    public var country: String? {
        get { fields.value.country }
        set { fields.modify { $0.country = newValue } }
    }
    public var coordinate: Coordinate {
        get { fields.value.coordinate }
        set { fields.modify { $0.coordinate = newValue } }
    }
    public var temperature: Double? {
        get { fields.value.temperature }
        set { fields.modify { $0.temperature = newValue } }
    }
    public var feelsLike: Double? {
        get { fields.value.feelsLike }
        set { fields.modify { $0.feelsLike = newValue } }
    }
    public var tempMin: Double? {
        get { fields.value.tempMin }
        set { fields.modify { $0.tempMin = newValue } }
    }
    public var tempMax: Double? {
        get { fields.value.tempMax }
        set { fields.modify { $0.tempMax = newValue } }
    }
    public var humidity: Double? {
        get { fields.value.humidity }
        set { fields.modify { $0.humidity = newValue } }
    }
    public var pressure: Double? {
        get { fields.value.pressure }
        set { fields.modify { $0.pressure = newValue } }
    }
    public var windSpeed: Double? {
        get { fields.value.windSpeed }
        set { fields.modify { $0.windSpeed = newValue } }
    }
    public var windDeg: Double? {
        get { fields.value.windDeg }
        set { fields.modify { $0.windDeg = newValue } }
    }
    public var clouds: Double? {
        get { fields.value.clouds }
        set { fields.modify { $0.clouds = newValue } }
    }
    /// The primary condition group, e.g. `Clouds`.
    public var condition: String? {
        get { fields.value.condition }
        set { fields.modify { $0.condition = newValue } }
    }
    /// The primary condition's description, e.g. `overcast clouds`.
    public var conditionDescription: String? {
        get { fields.value.conditionDescription }
        set { fields.modify { $0.conditionDescription = newValue } }
    }
    public var icon: String? {
        get { fields.value.icon }
        set { fields.modify { $0.icon = newValue } }
    }
    public var observedAt: Date? {
        get { fields.value.observedAt }
        set { fields.modify { $0.observedAt = newValue } }
    }
    public var units: Units {
        get { fields.value.units }
        set { fields.modify { $0.units = newValue } }
    }
    /// When weatherd received this observation from its provider (an answer from the cache keeps
    /// its time); nil when it did not come from there.
    public var fetchedAt: Date? {
        get { fields.value.fetchedAt }
        set { fields.modify { $0.fetchedAt = newValue } }
    }
    /// Which provider answered: `openweathermap` or `open-meteo`.
    public var provider: String {
        get { fields.value.provider }
        set { fields.modify { $0.provider = newValue } }
    }
    /// How many other places the searched name matched (0 for coordinates and given places).
    public var alternatives: Int {
        get { fields.value.alternatives }
        set { fields.modify { $0.alternatives = newValue } }
    }
    /// The air quality there, asked beside the weather; nil where disabled or not available.
    public var airQuality: AirQuality? {
        get { fields.value.airQuality }
        set { fields.modify { $0.airQuality = newValue } }
    }

    public init(
        cityID: Int? = nil, name: String? = nil, country: String? = nil, coordinate: Coordinate,
        temperature: Double? = nil, feelsLike: Double? = nil, tempMin: Double? = nil, tempMax: Double? = nil,
        humidity: Double? = nil, pressure: Double? = nil, windSpeed: Double? = nil, windDeg: Double? = nil,
        clouds: Double? = nil, condition: String? = nil, conditionDescription: String? = nil, icon: String? = nil,
        observedAt: Date? = nil, units: Units
    ) {
        fields = CopyOnWrite(
            Fields(
                cityID: cityID, name: name, country: country, coordinate: coordinate, temperature: temperature,
                feelsLike: feelsLike, tempMin: tempMin, tempMax: tempMax, humidity: humidity, pressure: pressure,
                windSpeed: windSpeed, windDeg: windDeg, clouds: clouds, condition: condition,
                conditionDescription: conditionDescription, icon: icon, observedAt: observedAt, units: units))
    }

    /// The GeoJSON feature id: `owm:<id>`, `geonames:<id>` or `pt:<lat>,<lon>` with 4 decimals.
    public var featureID: String {
        if let cityID, cityID != 0 { return "owm:\(cityID)" }
        if let geonamesID { return "geonames:\(geonamesID)" }
        return "pt:" + NumberText.fixed(coordinate.lat, decimals: 4) + "," + NumberText.fixed(coordinate.lon, decimals: 4)
    }

    /// Whether `other` is this very value: a copy of it that was not changed since (its fields
    /// are not compared). Equal values need not be the same.
    public func isSame(as other: WeatherObservation) -> Bool { fields.isSame(as: other.fields) }

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
        named.name(after: place, alternatives: alternatives)
        return named
    }

    /// Names this observation after `place`, as ``named(after:alternatives:)`` does, in place.
    public mutating func name(after place: Place, alternatives: Int) {
        fields.modify { named in
            named.name = place.name
            named.state = place.state
            named.country = place.country
            named.alternatives = alternatives
            // Open-Meteo names no place: its answer is known by the GeoNames id of the place searched.
            if named.cityID == nil, named.provider == WeatherProviderName.openMeteo.rawValue { named.geonamesID = place.geonamesID }
        }
    }
}
