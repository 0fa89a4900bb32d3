import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The OpenWeatherMap current-weather API (`/data/2.5/weather`) and its 5 day / 3 hour forecast
/// (`/data/2.5/forecast`): the same query style, key, units and language.
public struct OpenWeatherMapClient: WeatherUpstream {
    public var provider: WeatherProviderName { .openWeatherMap }
    public var servesSampleData: Bool { sample.current }

    /// Where and how to ask; replaced as a whole on a configuration reload.
    public struct Endpoint: Sendable, Equatable {
        public var baseURL: String
        public var apiKey: Secret
        public var units: Units
        public var lang: String
        public var timeout: Duration

        public init(baseURL: String, apiKey: Secret, units: Units, lang: String, timeout: Duration) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.apiKey = apiKey
            self.units = units
            self.lang = lang
            self.timeout = timeout
        }

        /// The endpoint of the `[openweathermap]` table, with the key found for it, asking in the units
        /// and language of the `[weather]` table.
        public init(_ config: DaemonConfig, apiKey: Secret) {
            self.init(
                baseURL: config.openWeatherMap.baseURL, apiKey: apiKey, units: config.weather.units,
                lang: config.weather.lang, timeout: config.openWeatherMap.timeout)
        }
    }

    private let transport: any HTTPTransport
    private let box: LockedValue<Endpoint>
    /// Whether its latest answer was marked as sample data (``ProviderRequest/sampleHeader``).
    private let sample = LockedValue(false)
    private let logger: Logger?
    private let wallClock: @Sendable () -> Date

    /// - Parameter wallClock: stamps each observation's `fetchedAt`.
    public init(
        transport: any HTTPTransport, baseURL: String, apiKey: Secret, units: Units, lang: String, timeout: Duration,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger? = nil
    ) {
        self.wallClock = wallClock
        self.transport = transport
        self.box = LockedValue(Endpoint(baseURL: baseURL, apiKey: apiKey, units: units, lang: lang, timeout: timeout))
        self.logger = logger
    }

    /// The endpoint requests go to now.
    public var endpoint: Endpoint { box.current }

    /// Sends later requests to `endpoint` (configuration reload).
    public func update(_ endpoint: Endpoint) {
        box.replace(with: endpoint)
    }

    /// The APIs asked: the current weather and the forecast under `{base_url}/data/2.5/`, and the
    /// Geocoding API at `{base_url}/geo/1.0/direct`. The raw value is the `endpoint` label of the
    /// request metrics.
    public enum Resource: String, Sendable {
        case weather
        case forecast
        case geocoding
    }

    /// What one request asks for.
    enum Request: Sendable {
        case weather(Coordinate)
        case forecast(Coordinate)
        case places(PlaceQuery, limit: Int)

        var resource: Resource {
            switch self {
            case .weather: .weather
            case .forecast: .forecast
            case .places: .geocoding
            }
        }
    }

    /// The most places the Geocoding API gives for one name.
    public static let maxPlaces = 5

    /// The request URL. It carries the API key: log `redactedURL` instead.
    func url(for request: Request) -> String {
        let endpoint = self.endpoint
        return Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey.revealed)
    }

    /// The request URL with the key replaced by `<redacted>`, for logs.
    func redactedURL(for request: Request) -> String {
        Self.url(for: request, endpoint: endpoint, key: "<redacted>")
    }

    /// Weather and forecasts are asked by `lat`/`lon` only, those of the point's 0.01° cell
    /// (``Coordinate/upstreamLatitude``); a name goes to the Geocoding API first (OpenWeatherMap's `q=`
    /// on `/data/2.5/*` is deprecated, and answers one arbitrary place).
    private static func url(for request: Request, endpoint: Endpoint, key: String) -> String {
        var items: [(String, String)]
        let path: String
        switch request {
        case .weather(let c), .forecast(let c):
            path = "/data/2.5/\(request.resource.rawValue)"
            items = [("lat", c.upstreamLatitude), ("lon", c.upstreamLongitude)]
            items += [("units", endpoint.units.rawValue), ("lang", endpoint.lang)]
        case .places(let query, let limit):
            path = "/geo/1.0/direct"
            items = [("q", query.description), ("limit", String(min(max(limit, 1), maxPlaces)))]
        }
        items.append(("appid", key))
        let queryString = items.map { "\($0)=\(Self.percentEncode($1))" }.joined(separator: "&")
        return endpoint.baseURL + path + "?" + queryString
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func percentEncode(_ value: String) -> String {
        URLQuery.encode(value)
    }

    public func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        try await request(.places(query, limit: limit)) { response, _ throws(UpstreamError) in
            try Self.interpretPlaces(response)
        }
    }

    public func fetch(at coordinate: Coordinate) async throws -> WeatherObservation {
        var observation = try await request(.weather(coordinate), interpret: Self.interpret)
        observation.fetchedAt = wallClock()
        return observation
    }

    public func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        var forecast = try await request(.forecast(coordinate), interpret: Self.interpretForecast)
        forecast.place.fetchedAt = wallClock()
        return forecast
    }

    /// One GET (``ProviderRequest``), its response interpreted in the endpoint's units.
    private func request<Answer>(
        _ request: Request, interpret: (HTTPResponse, Units) throws(UpstreamError) -> Answer
    ) async throws -> Answer {
        let endpoint = self.endpoint
        return try await ProviderRequest(
            provider: .openWeatherMap, resource: request.resource.rawValue,
            url: Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey.revealed),
            loggedURL: Self.url(for: request, endpoint: endpoint, key: "<redacted>"), key: endpoint.apiKey, timeout: endpoint.timeout
        ).send(through: transport, logger: logger, sample: sample) { response throws(UpstreamError) in
            try interpret(response, endpoint.units)
        }
    }

    /// Maps a Geocoding API response to its places (empty for an unknown name) or to the error the
    /// spec names for it.
    public static func interpretPlaces(_ response: HTTPResponse) throws(UpstreamError) -> [Place] {
        let body: (answer: [Place]?, code: Int?, message: String?)? =
            switch OpenWeatherMapGeocodingResponse.decode(response.body) {
            case .places(let places)?: (places, nil, nil)
            case .error(let code, let message)?: (nil, code, message)
            case nil: nil
            }
        do {
            return try interpret(response, body: body, what: "places")
        } catch .notFound {
            return []  // "Nothing to geocode" and the like: no place of that name
        }
    }

    /// Maps a response to weather or to the error the spec names for it.
    public static func interpret(_ response: HTTPResponse, units: Units) throws(UpstreamError) -> WeatherObservation {
        let body: (answer: WeatherObservation?, code: Int?, message: String?)? =
            switch OpenWeatherMapResponse.decode(response.body, units: units) {
            case .weather(let observation)?: (observation, nil, nil)
            case .error(let code, let message)?: (nil, code, message)
            case nil: nil
            }
        return try interpret(response, body: body, what: "weather")
    }

    /// Maps a response to a forecast or to the error the spec names for it.
    public static func interpretForecast(_ response: HTTPResponse, units: Units) throws(UpstreamError) -> WeatherForecast {
        let body: (answer: WeatherForecast?, code: Int?, message: String?)? =
            switch OpenWeatherMapForecastResponse.decode(response.body, units: units) {
            case .forecast(let forecast)?: (forecast, nil, nil)
            case .error(let code, let message)?: (nil, code, message)
            case nil: nil
            }
        return try interpret(response, body: body, what: "forecast")
    }

    /// The status and the decoded body (nil: not a JSON object) together.
    private static func interpret<Answer>(
        _ response: HTTPResponse, body: (answer: Answer?, code: Int?, message: String?)?, what: String
    ) throws(UpstreamError) -> Answer {
        switch response.status {
        case 200..<300:
            guard let body else { throw .unavailable("OpenWeatherMap sent a response that is not \(what) JSON") }
            if let answer = body.answer { return answer }
            switch body.code {
            case 404, 400: throw .notFound(message: body.message)
            case 401: throw .unauthorized
            case 429: throw .rateLimited(retryAfter: nil)
            default:
                throw .unavailable(
                    "OpenWeatherMap answered \(body.code.map(String.init) ?? "without \(what)"): \(body.message ?? "no message")")
            }
        case 404, 400:
            throw .notFound(message: body?.message)
        case 401:
            throw .unauthorized
        case 429:
            throw .rateLimited(retryAfter: response.retryAfter)
        default:
            throw .unavailable("OpenWeatherMap answered HTTP \(response.status)")
        }
    }
}

extension OpenWeatherMapClient: Reconfigurable {
    /// Later requests go to the new endpoint, with the new key, units, language and timeout.
    public func apply(_ change: ConfigChange) {
        update(Endpoint(change.new, apiKey: change.keys.openWeatherMap ?? Secret("")))
    }
}
