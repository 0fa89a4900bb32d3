/// Where an air quality index stands on its scale's published bands, in words and colour: the
/// European Environment Agency's six (good … extremely poor) or the US EPA's six (good … hazardous).
/// The map page's `air-quality.mjs` has the same table; `Tests/web/air-quality.test.mjs` and
/// `AirQualityBandTests` check both against the same boundaries.
public struct AirQualityBand: Sendable, Hashable {
    public let scale: AirQualityScale
    /// 0 (the best) to 5 (the worst).
    public let level: Int

    /// The band of `index` on `scale`; nil for a negative or not finite index. Each band includes
    /// its upper bound (European 20 is good, US 50 is good).
    public init?(index: Double, scale: AirQualityScale) {
        guard index.isFinite, index >= 0 else { return nil }
        let bounds = Self.upperBounds(scale)
        self.scale = scale
        self.level = bounds.firstIndex { index <= $0 } ?? bounds.count
    }

    /// The upper bounds of the first five bands; the sixth is everything above.
    public static func upperBounds(_ scale: AirQualityScale) -> [Double] {
        switch scale {
        case .european: [20, 40, 60, 80, 100]
        case .us: [50, 100, 150, 200, 300]
        }
    }

    /// The band's name, in the scale's own words.
    public var name: String {
        switch scale {
        case .european: ["good", "fair", "moderate", "poor", "very poor", "extremely poor"][level]
        case .us: ["good", "moderate", "unhealthy for sensitive groups", "unhealthy", "very unhealthy", "hazardous"][level]
        }
    }

    /// The scale's colour of the band (`#RRGGBB`).
    public var colour: String {
        switch scale {
        case .european: ["#50F0E6", "#50CCAA", "#F0E641", "#FF5050", "#960032", "#7D2181"][level]
        case .us: ["#00E400", "#FFFF00", "#FF7E00", "#FF0000", "#8F3F97", "#7E0023"][level]
        }
    }

    /// The text colour on ``colour`` that keeps a contrast of at least 4.5:1.
    public var textColour: String {
        level >= 4 ? "#FFFFFF" : "#000000"
    }
}
