import WeatherCore

/// The `units` parameter of the OpenWeatherMap API, and the conversions between its units.
extension Units {
    /// Parses the query value like OpenWeatherMap does: anything unknown means `standard`.
    init(query value: String?) {
        self = value.flatMap { Units(rawValue: $0.lowercased()) } ?? .standard
    }

    func celsius(from value: Double) -> Double {
        switch self {
        case .standard: value - 273.15
        case .metric: value
        case .imperial: (value - 32) * 5 / 9
        }
    }

    func temperature(fromCelsius value: Double) -> Double {
        switch self {
        case .standard: value + 273.15
        case .metric: value
        case .imperial: value * 9 / 5 + 32
        }
    }

    func metresPerSecond(from value: Double) -> Double {
        self == .imperial ? value * 0.44704 : value
    }

    func speed(fromMetresPerSecond value: Double) -> Double {
        self == .imperial ? value / 0.44704 : value
    }
}
