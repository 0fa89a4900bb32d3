#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One sample of the weather series of `/metrics` (contract "Metrics"): a measure of a watched city's
/// latest good feature, in base units whatever `weather.units` is, labelled with the city.
public struct WeatherSeries: Sendable, Hashable {
    /// What a series measures: its name, unit and help text.
    public enum Measure: String, Sendable, CaseIterable {
        case temperature = "weatherd_weather_temperature_celsius"
        case feelsLike = "weatherd_weather_feels_like_celsius"
        case humidity = "weatherd_weather_relative_humidity_ratio"
        case pressure = "weatherd_weather_pressure_pascals"
        case windSpeed = "weatherd_weather_wind_speed_meters_per_second"
        case cloudiness = "weatherd_weather_cloudiness_ratio"
        case observed = "weatherd_weather_observed_timestamp_seconds"
        case airQualityIndex = "weatherd_weather_air_quality_index"
        case alerts = "weatherd_weather_alerts"

        /// The series' name.
        public var name: String { rawValue }

        /// The help text: what it is, in which unit.
        public var help: String {
            switch self {
            case .temperature: "Air temperature at a watched city, in degrees Celsius"
            case .feelsLike: "Apparent (feels like) temperature at a watched city, in degrees Celsius"
            case .humidity: "Relative humidity at a watched city, as a ratio from 0 to 1"
            case .pressure: "Atmospheric pressure at a watched city, in pascals"
            case .windSpeed: "Wind speed at a watched city, in meters per second"
            case .cloudiness: "Cloud cover at a watched city, as a ratio from 0 to 1"
            case .observed: "When the weather of a watched city was observed, in seconds since the Unix epoch"
            case .airQualityIndex: "Air quality index at a watched city, on the scale of the label scale (european or us)"
            case .alerts: "Official alerts in force at a watched city, by severity (CAP)"
            }
        }
    }

    /// The labels of a city's series.
    public struct Labels: Sendable, Hashable {
        /// The place's name (the searched place's, else the watched entry as written).
        public var city: String
        /// The feature's id (`owm:…`, `geonames:…`, `pt:…`).
        public var id: String
        /// The country code, empty when unknown.
        public var country: String
        /// The provider that answered.
        public var provider: String
        /// An alert series' severity (`extreme` … `unknown`); nil for the others.
        public var severity: String?
        /// The index's scale (`european`, `us`), for the air quality series only.
        public var scale: String?

        public init(city: String, id: String, country: String, provider: String, severity: String? = nil, scale: String? = nil) {
            self.city = city
            self.id = id
            self.country = country
            self.provider = provider
            self.severity = severity
            self.scale = scale
        }

        /// As Prometheus labels, in the contract's order.
        public var pairs: [(String, String)] {
            [("city", city), ("id", id), ("country", country), ("provider", provider)] + (severity.map { [("severity", $0)] } ?? [])
                + (scale.map { [("scale", $0)] } ?? [])
        }
    }

    /// What identifies a series: its measure and labels.
    public struct Key: Sendable, Hashable {
        public var measure: Measure
        public var labels: Labels
    }

    public var measure: Measure
    public var labels: Labels
    public var value: Double

    public init(measure: Measure, labels: Labels, value: Double) {
        self.measure = measure
        self.labels = labels
        self.value = value
    }

    public var key: Key { Key(measure: measure, labels: labels) }

    /// The samples of a watched city's feature (`city`: its entry in the list, the label when the
    /// feature has no name). A value the provider did not send has no sample; a stale feature keeps
    /// its values (the observation time tells their age).
    public static func samples(of feature: WeatherFeature, city: String) -> [WeatherSeries] {
        let observation = feature.observation
        let labels = Labels(
            city: observation.name ?? city, id: feature.id, country: observation.country ?? "", provider: observation.provider)
        let units = observation.units
        let values: [(Measure, Double?)] = [
            (.temperature, observation.temperature.map { celsius($0, from: units) }),
            (.feelsLike, observation.feelsLike.map { celsius($0, from: units) }),
            (.humidity, observation.humidity.map { $0 / 100 }),
            (.pressure, observation.pressure.map { $0 * 100 }),
            (.windSpeed, observation.windSpeed.map { metersPerSecond($0, from: units) }),
            (.cloudiness, observation.clouds.map { $0 / 100 }),
            (.observed, observation.observedAt.map(\.timeIntervalSince1970)),
        ]
        let weather = values.compactMap { measure, value in
            value.flatMap { $0.isFinite ? WeatherSeries(measure: measure, labels: labels, value: $0) : nil }
        }
        return weather + airQualitySamples(observation.airQuality, labels: labels) + alertSamples(of: feature, labels: labels)
    }

    /// The number of alerts of each severity in force at the feature's place (every severity, 0
    /// where none), labelled with the alerts' provider; none while its alerts are not known or it
    /// is outside every alert provider's area.
    static func alertSamples(of feature: WeatherFeature, labels: Labels) -> [WeatherSeries] {
        guard let alerts = feature.alerts else { return [] }
        let providers = Set(alerts.map(\.provider))
        return (providers.isEmpty ? [AlertProviderName.nws.rawValue] : providers.sorted()).flatMap { provider in
            AlertSeverity.allCases.map { severity in
                var labels = labels
                labels.provider = provider
                labels.severity = severity.label
                let count = alerts.filter { $0.provider == provider && $0.severity == severity }.count
                return WeatherSeries(measure: .alerts, labels: labels, value: Double(count))
            }
        }
    }

    /// The air quality index of each scale it has, labelled with the data's provider and the scale.
    static func airQualitySamples(_ quality: AirQuality?, labels: Labels) -> [WeatherSeries] {
        guard let quality else { return [] }
        return AirQualityScale.allCases.compactMap { scale in
            guard let index = quality.index(scale), index.isFinite else { return nil }
            var labels = labels
            labels.provider = quality.provider
            labels.scale = scale.rawValue
            return WeatherSeries(measure: .airQualityIndex, labels: labels, value: index)
        }
    }

    /// The samples of every watched city, each feature once (two entries naming one place share it).
    public static func samples(of cities: [(city: String, feature: WeatherFeature)]) -> [WeatherSeries] {
        var seen: Set<String> = []
        return cities.filter { seen.insert($0.feature.id).inserted }.flatMap { samples(of: $0.feature, city: $0.city) }
    }

    /// A temperature in `units` (Kelvin, Celsius or Fahrenheit) in degrees Celsius.
    static func celsius(_ value: Double, from units: Units) -> Double {
        switch units {
        case .metric: value
        case .standard: value - 273.15
        case .imperial: (value - 32) * 5 / 9
        }
    }

    /// A speed in `units` (m/s, or miles an hour for imperial) in meters per second.
    static func metersPerSecond(_ value: Double, from units: Units) -> Double {
        switch units {
        case .metric, .standard: value
        case .imperial: value * 0.44704
        }
    }
}

extension SearchEngine {
    /// The watched cities' weather series now, with the overlays' `seq` they go with (read together,
    /// in one turn of the engine: the series change only with the overlays).
    public var weatherSeries: (version: Int, samples: [WeatherSeries]) {
        (currentOverlays.seq, WeatherSeries.samples(of: watchedCityFeatures.map { ($0.city, alertView.annotated($0.feature)) }))
    }
}
