/// An air quality index (`air-quality.scale`): the European Environment Agency's or the US EPA's.
public enum AirQualityScale: String, Sendable, CaseIterable {
    /// The European Air Quality Index (0 to 100 and beyond).
    case european
    /// The US EPA's Air Quality Index (0 to 500).
    case us
}
