/// Units of the weather results (`weather.units`).
public enum Units: String, Sendable, CaseIterable {
    /// Kelvin, metres per second.
    case standard
    /// Degrees Celsius, metres per second.
    case metric
    /// Degrees Fahrenheit, miles per hour.
    case imperial
}
