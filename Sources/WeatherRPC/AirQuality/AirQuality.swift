#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The air quality at one place (a feature's `air_quality`): both indexes and the pollutants they
/// are made of, in µg/m³, as the provider reported them for `at`. Values it did not send are nil.
public struct AirQuality: Sendable, Hashable, JSONRepresentable {
    /// The European Air Quality Index.
    public var europeanAQI: Double?
    /// The US EPA's Air Quality Index.
    public var usAQI: Double?
    public var pm25: Double?
    public var pm10: Double?
    public var ozone: Double?
    public var nitrogenDioxide: Double?
    /// The hour the values are for.
    public var at: Date?
    /// Which provider answered: `open-meteo`.
    public var provider: String
    /// The index shown (`air-quality.scale`), for clients that show one (`weatherctl bar`'s `{aqi}`);
    /// nil: not said (then the European one). In the JSON only when set.
    public var scale: AirQualityScale?

    public init(
        europeanAQI: Double? = nil, usAQI: Double? = nil, pm25: Double? = nil, pm10: Double? = nil, ozone: Double? = nil,
        nitrogenDioxide: Double? = nil, at: Date? = nil, provider: String = WeatherProviderName.openMeteo.rawValue,
        scale: AirQualityScale? = nil
    ) {
        self.europeanAQI = europeanAQI
        self.usAQI = usAQI
        self.pm25 = pm25
        self.pm10 = pm10
        self.ozone = ozone
        self.nitrogenDioxide = nitrogenDioxide
        self.at = at
        self.provider = provider
        self.scale = scale
    }

    /// The index of `scale`.
    public func index(_ scale: AirQualityScale) -> Double? {
        switch scale {
        case .european: europeanAQI
        case .us: usAQI
        }
    }

    /// The band of the index of `scale`; nil when that index is not known.
    public func band(_ scale: AirQualityScale) -> AirQualityBand? {
        index(scale).flatMap { AirQualityBand(index: $0, scale: scale) }
    }

    /// `{"european_aqi","us_aqi","pm2_5","pm10","ozone","nitrogen_dioxide","at","provider","scale"?}`.
    public var json: JSONValue {
        var object: JSONObject = [
            "european_aqi": .number(europeanAQI), "us_aqi": .number(usAQI), "pm2_5": .number(pm25), "pm10": .number(pm10),
            "ozone": .number(ozone), "nitrogen_dioxide": .number(nitrogenDioxide), "at": .string(at.map(Timestamp.iso8601)),
            "provider": .string(provider),
        ]
        if let scale { object["scale"] = .string(scale.rawValue) }
        return .object(object)
    }

    /// The index of ``scale`` (the European one when none is said).
    public var shownIndex: Double? { index(scale ?? .european) }

    /// Reads a feature's `air_quality` back; nil for null or anything but an object.
    public init?(json: JSONValue?) {
        guard let object = json?.objectValue else { return nil }
        self.init(
            europeanAQI: object["european_aqi"]?.doubleValue, usAQI: object["us_aqi"]?.doubleValue,
            pm25: object["pm2_5"]?.doubleValue, pm10: object["pm10"]?.doubleValue, ozone: object["ozone"]?.doubleValue,
            nitrogenDioxide: object["nitrogen_dioxide"]?.doubleValue,
            at: object["at"]?.stringValue.flatMap(Timestamp.parse),
            provider: object["provider"]?.stringValue ?? WeatherProviderName.openMeteo.rawValue,
            scale: object["scale"]?.stringValue.flatMap(AirQualityScale.init(rawValue:)))
    }

    /// The credit its data needs wherever it is shown (CAMS's licence, through Open-Meteo).
    public static let attribution = "Air quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com"
}
