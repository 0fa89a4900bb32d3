import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Open-Meteo's air quality API (`{air-quality.base_url}/v1/air-quality`, CAMS data): the current
/// indexes and pollutants of several points in one request, like the weather grid. It needs no key
/// for the free API; Open-Meteo's commercial key (`[open-meteo]`), when there is one, goes with it,
/// to the `customer-` host when `base_url` is the default. The key never appears in a log or error.
public struct OpenMeteoAirQualityClient: AirQualityUpstream {
    public var provider: WeatherProviderName { .openMeteo }
    public var maxPointsPerRequest: Int { OpenMeteoClient.maxPoints }

    /// The host of a commercial subscription.
    public static let customerBaseURL = "https://customer-air-quality-api.open-meteo.com"

    /// Where and how to ask; replaced as a whole on a configuration reload.
    public struct Endpoint: Sendable, Equatable {
        /// `air-quality.base_url`, without a trailing slash.
        public var baseURL: String
        /// Open-Meteo's commercial key; nil for the free API (an empty key counts as none).
        public var apiKey: Secret?
        public var timeout: Duration

        public init(baseURL: String = AirQualityConfig.defaultBaseURL, apiKey: Secret? = nil, timeout: Duration = .seconds(5)) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.apiKey = apiKey?.revealed.isEmpty == false ? apiKey : nil
            self.timeout = timeout
        }

        /// The endpoint of the `[air-quality]` table, with Open-Meteo's commercial key (nil: none).
        public init(_ config: DaemonConfig, apiKey: Secret?) {
            self.init(baseURL: config.airQuality.baseURL, apiKey: apiKey, timeout: config.airQuality.timeout)
        }

        /// Where air quality is asked: `base_url`, or with a key and the default `base_url`, the
        /// customer host.
        public var host: String {
            apiKey != nil && baseURL.lowercased() == AirQualityConfig.defaultBaseURL ? OpenMeteoAirQualityClient.customerBaseURL : baseURL
        }
    }

    private let transport: any HTTPTransport
    private let box: LockedValue<Endpoint>
    private let logger: Logger?

    public init(transport: any HTTPTransport, endpoint: Endpoint, logger: Logger? = nil) {
        self.transport = transport
        self.box = LockedValue(endpoint)
        self.logger = logger
    }

    /// The endpoint requests go to now.
    public var endpoint: Endpoint { box.current }

    /// The request URL for `points`, with `key` (the key itself, `<redacted>` for the log, or nil):
    /// each point's 0.01° cell (``Coordinate/upstreamLatitude``), times as Unix seconds.
    static func url(for points: [Coordinate], endpoint: Endpoint, key: String?) -> String {
        var items = [
            ("latitude", points.map(\.upstreamLatitude).joined(separator: ",")),
            ("longitude", points.map(\.upstreamLongitude).joined(separator: ",")),
            ("current", OpenMeteoAirQualityResponse.currentVariables.joined(separator: ",")),
            ("timezone", "GMT"), ("timeformat", "unixtime"),
        ]
        if let key { items.append(("apikey", URLQuery.encode(key))) }
        return endpoint.host + "/v1/air-quality?" + items.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// The air quality at each of `coordinates`, in the order asked, in one request.
    public func airQuality(at coordinates: [Coordinate]) async throws -> [AirQuality] {
        let endpoint = self.endpoint
        return try await ProviderRequest(
            provider: .openMeteo, resource: "air-quality",
            url: Self.url(for: coordinates, endpoint: endpoint, key: endpoint.apiKey?.revealed),
            loggedURL: Self.url(for: coordinates, endpoint: endpoint, key: endpoint.apiKey.map { _ in "<redacted>" }),
            key: endpoint.apiKey, timeout: endpoint.timeout
        ).send(through: transport, logger: logger) { response throws(UpstreamError) in
            try Self.interpret(response, count: coordinates.count)
        }
    }

    /// Maps a `/v1/air-quality` response for `count` points to their air quality, in the order asked,
    /// or to the error the spec names for it: an answer with another number of points, or a point
    /// without a `current` block, is unavailable.
    public static func interpret(_ response: HTTPResponse, count: Int) throws(UpstreamError) -> [AirQuality] {
        let body = OpenMeteoForecastResponse.decode(response.body)
        var reason: String?
        if case .error(let given)? = body { reason = given }
        switch response.status {
        case 200..<300: break
        case 401, 403: throw .unauthorized
        case 429: throw .rateLimited(retryAfter: response.retryAfter)
        case 400:
            throw .unavailable(
                "Open-Meteo's air quality API refused the request: \(reason.map { String($0.prefix(200)) } ?? "no reason given")")
        default: throw .unavailable("Open-Meteo's air quality API answered HTTP \(response.status)")
        }
        guard case .points(let points)? = body else {
            throw .unavailable("Open-Meteo's air quality API sent a response that is not air quality JSON")
        }
        guard points.count == count else {
            throw .unavailable(
                "Open-Meteo's air quality API answered \(points.count) point\(points.count == 1 ? "" : "s") for \(count) asked")
        }
        var found: [AirQuality] = []
        for point in points {
            guard let quality = OpenMeteoAirQualityResponse.airQuality(point) else {
                throw .unavailable("Open-Meteo's air quality API sent a response that is not air quality JSON")
            }
            found.append(quality)
        }
        return found
    }
}

extension OpenMeteoAirQualityClient: Reconfigurable {
    /// Later requests go to the new `base_url`, with the new timeout and Open-Meteo's key.
    public func apply(_ change: ConfigChange) {
        box.replace(with: Endpoint(change.new, apiKey: change.keys.openMeteo))
    }
}
