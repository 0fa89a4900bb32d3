import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The two weather providers as `weather.providers`, owm-replay's `service=` and `data.provider` name them.
enum Provider: String, Sendable, CaseIterable, CustomStringConvertible {
    case openWeatherMap = "openweathermap"
    case openMeteo = "open-meteo"

    var other: Provider { self == .openWeatherMap ? .openMeteo : .openWeatherMap }
    /// As the daemon's messages write it.
    var displayName: String { self == .openWeatherMap ? "OpenWeatherMap" : "Open-Meteo" }
    var description: String { rawValue }
}

extension ReplayServer {
    /// `POST /_faults?service=SERVICE&city=CITY&fault=FAULT&…`: a fault of one service only.
    @discardableResult
    func setFault(_ service: Provider, city: String = "*", _ fault: String, _ parameters: [String: String] = [:]) async throws -> JSONValue
    {
        var parameters = parameters
        parameters["service"] = service.rawValue
        return try await setFault(city: city, fault, parameters)
    }
}

extension ReplayStats {
    /// Every request of one service (OpenWeatherMap: weather, forecasts and geocoding; Open-Meteo:
    /// forecasts and searches).
    func requests(to provider: Provider) -> Int {
        provider == .openWeatherMap ? requests : openMeteoRequests
    }
}

extension DaemonSetup {
    /// A setup asking `providers` in that order, with the cities given.
    init(directory: TemporaryDirectory, replay: ReplayServer, providers: [Provider], cities: [String] = []) {
        self.init(directory: directory, replay: replay, cities: cities)
        self.providers = providers.map(\.rawValue)
    }
}

extension DaemonProcess {
    /// `state.providers`, in the order of `weather.providers`.
    func providerStatuses() async throws -> [JSONValue] {
        try await call("state")["providers"]?.arrayValue ?? []
    }
}

extension JSONValue {
    /// A feature's `properties.provider`.
    var provider: String? { self["properties"]?["provider"]?.stringValue }
    /// The features of an overlays FeatureCollection.
    var features: [JSONValue] { self["features"]?.arrayValue ?? [] }
    /// One entry of `state.providers` by name.
    func providerStatus(_ provider: Provider) -> JSONValue? {
        self["providers"]?.arrayValue?.first { $0["name"]?.stringValue == provider.rawValue }
    }
}

/// `region` params: a centre and, optionally, a span.
func regionParams(_ lat: Double, _ lon: Double, span: (lat: Double, lon: Double)? = nil) -> JSONObject {
    var params: JSONObject = ["center": .object(["lat": .double(lat), "lon": .double(lon)])]
    if let span { params["span"] = .object(["lat": .double(span.lat), "lon": .double(span.lon)]) }
    return params
}

/// Whether a notification is a state whose input is the region centred at lat/lon.
func isRegionState(_ message: JSONValue, lat: Double, lon: Double) -> Bool {
    guard message.isStateNotification, let input = message.params?["input"], input["kind"] == "region",
        let centreLat = input["center"]?["lat"]?.doubleValue, let centreLon = input["center"]?["lon"]?.doubleValue
    else { return false }
    return abs(centreLat - lat) < 1e-6 && abs(centreLon - lon) < 1e-6
}

/// An RFC 3339 UTC timestamp with whole seconds (`2026-11-22T10:00:03Z`), parsed; nil when it is not one.
func rfc3339UTC(_ text: String?) -> Date? {
    guard let text, text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil else { return nil }
    return try? Date(text, strategy: Date.ISO8601FormatStyle())
}
