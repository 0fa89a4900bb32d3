import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Open-Meteo: the current weather and the hourly forecast of its forecast API (`/v1/forecast`),
/// several points in one request, and places for a name from its geocoding API (`/v1/search`).
///
/// Its free API needs no key (non-commercial use; "Weather data by Open-Meteo.com", CC BY 4.0). With
/// a commercial subscription's key, requests carry `apikey=` and go to Open-Meteo's `customer-` hosts
/// when `base_url` and `geocoding_url` are the defaults; a URL the operator set is kept as it is.
/// The key never appears in a log line or an error: logged URLs carry `apikey=<redacted>`.
public struct OpenMeteoClient: WeatherUpstream {
    public var provider: WeatherProviderName { .openMeteo }
    public var servesSampleData: Bool { sample.current }

    /// The most points one weather request asks for: a region grid's 7 × 7 points (`region.around` 3)
    /// fit in one request, and the URL stays near 1 KB. More points asked at once are asked 50 at a
    /// time, one request after the other. Open-Meteo may count a request for many points as several
    /// calls against its limits.
    public static let maxPoints = 50

    public var maxPointsPerRequest: Int { Self.maxPoints }

    /// The most places the geocoding API gives for one name (its `count`).
    public static let maxPlaces = 100

    /// The days of hourly steps a forecast asks for: today (from midnight UTC) and 5 more, at least
    /// the 120 hours a `forecast` request may ask from the current hour.
    public static let forecastDays = 6

    /// The hosts of a commercial subscription.
    public static let customerBaseURL = "https://customer-api.open-meteo.com"
    public static let customerGeocodingURL = "https://customer-geocoding-api.open-meteo.com"

    /// Where and how to ask; replaced as a whole on a configuration reload.
    public struct Endpoint: Sendable, Equatable {
        /// `open-meteo.base_url`, without a trailing slash.
        public var baseURL: String
        /// `open-meteo.geocoding_url`, without a trailing slash.
        public var geocodingURL: String
        /// A commercial subscription's key; nil for the free API (an empty key counts as none).
        public var apiKey: Secret?
        public var units: Units
        /// `weather.lang`: the language of the places' names (the geocoder's `language`).
        public var lang: String
        public var timeout: Duration

        public init(
            baseURL: String = OpenMeteoConfig.defaultBaseURL, geocodingURL: String = OpenMeteoConfig.defaultGeocodingURL,
            apiKey: Secret? = nil, units: Units = .metric, lang: String = "en", timeout: Duration = .seconds(10)
        ) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.geocodingURL = geocodingURL.hasSuffix("/") ? String(geocodingURL.dropLast()) : geocodingURL
            self.apiKey = apiKey?.revealed.isEmpty == false ? apiKey : nil
            self.units = units
            self.lang = lang
            self.timeout = timeout
        }

        /// The endpoint of the `[open-meteo]` table, with the commercial key found for it (nil:
        /// none), asking in the units and language of the `[weather]` table.
        public init(_ config: DaemonConfig, apiKey: Secret?) {
            self.init(
                baseURL: config.openMeteo.baseURL, geocodingURL: config.openMeteo.geocodingURL, apiKey: apiKey,
                units: config.weather.units, lang: config.weather.lang, timeout: config.openMeteo.timeout)
        }

        /// Where weather and forecasts are asked: `base_url`, or with a key and the default
        /// `base_url`, the customer host.
        public var forecastHost: String {
            apiKey != nil && Self.same(baseURL, OpenMeteoConfig.defaultBaseURL) ? OpenMeteoClient.customerBaseURL : baseURL
        }

        /// Where names are asked: `geocoding_url`, or with a key and the default `geocoding_url`, the
        /// customer host.
        public var geocodingHost: String {
            apiKey != nil && Self.same(geocodingURL, OpenMeteoConfig.defaultGeocodingURL)
                ? OpenMeteoClient.customerGeocodingURL : geocodingURL
        }

        /// The geocoder's `language`: `weather.lang` lower-cased, without a region (`zh_cn` → `zh`,
        /// `pt-BR` → `pt`), as Open-Meteo takes ISO 639-1 codes.
        public var language: String {
            let code = lang.lowercased().prefix { $0 != "_" && $0 != "-" }
            return code.isEmpty ? "en" : String(code)
        }

        private static func same(_ url: String, _ defaultURL: String) -> Bool {
            url.lowercased() == defaultURL.lowercased()
        }
    }

    private let transport: any HTTPTransport
    private let box: LockedValue<Endpoint>
    /// Whether its latest answer was marked as sample data (``ProviderRequest/sampleHeader``).
    private let sample = LockedValue(false)
    private let logger: Logger?
    private let wallClock: @Sendable () -> Date

    /// - Parameter wallClock: stamps each answer's `fetchedAt`, and tells which forecast steps are over.
    public init(
        transport: any HTTPTransport, endpoint: Endpoint,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger? = nil
    ) {
        self.transport = transport
        self.box = LockedValue(endpoint)
        self.wallClock = wallClock
        self.logger = logger
    }

    /// A client of the `[open-meteo]` table of `config`, with the commercial key found for it (nil: none).
    public init(
        transport: any HTTPTransport, _ config: DaemonConfig, apiKey: Secret?,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger? = nil
    ) {
        self.init(transport: transport, endpoint: Endpoint(config, apiKey: apiKey), wallClock: wallClock, logger: logger)
    }

    /// The endpoint requests go to now.
    public var endpoint: Endpoint { box.current }

    /// Sends later requests to `endpoint` (configuration reload).
    public func update(_ endpoint: Endpoint) {
        box.replace(with: endpoint)
    }

    /// The APIs asked. The raw value is the `endpoint` label of the request metrics.
    public enum Resource: String, Sendable {
        /// The current weather of one or more points (`/v1/forecast?current=…`).
        case weather
        /// The hourly forecast of one point (`/v1/forecast?hourly=…`).
        case forecast
        /// Places for a name (`/v1/search`).
        case geocoding
    }

    /// What one request asks for.
    enum Request: Sendable {
        case weather([Coordinate])
        case forecast(Coordinate)
        /// The places of `query`'s name, `count` of them, narrowed by its country when that is a code.
        case places(PlaceQuery, count: Int)

        var resource: Resource {
            switch self {
            case .weather: .weather
            case .forecast: .forecast
            case .places: .geocoding
            }
        }
    }

    /// The variables of the current weather.
    static let currentVariables = [
        "temperature_2m", "apparent_temperature", "relative_humidity_2m", "pressure_msl", "wind_speed_10m",
        "wind_direction_10m", "cloud_cover", "weather_code", "is_day",
    ]

    /// The variables of a forecast step.
    static let hourlyVariables = [
        "temperature_2m", "apparent_temperature", "relative_humidity_2m", "pressure_msl", "wind_speed_10m",
        "wind_direction_10m", "cloud_cover", "weather_code", "precipitation_probability", "rain", "showers",
        "snowfall", "is_day",
    ]

    /// The request URL. It carries the key, when there is one: log `redactedURL` instead.
    func url(for request: Request) -> String {
        let endpoint = self.endpoint
        return Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey?.revealed)
    }

    /// The request URL with the key (if any) replaced by `<redacted>`, for logs.
    func redactedURL(for request: Request) -> String {
        let endpoint = self.endpoint
        return Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey.map { _ in "<redacted>" })
    }

    /// Points as `latitude=52.52,48.85&longitude=13.41,2.35` (each point's 0.01° cell,
    /// ``Coordinate/upstreamLatitude``; one point is a plain pair); the units weatherd answers in
    /// (Open-Meteo has no Kelvin: `standard` asks Celsius); times as Unix seconds.
    private static func url(for request: Request, endpoint: Endpoint, key: String?) -> String {
        var items: [(String, String)]
        let base: String
        func position(_ points: [Coordinate]) -> [(String, String)] {
            [
                ("latitude", points.map(\.upstreamLatitude).joined(separator: ",")),
                ("longitude", points.map(\.upstreamLongitude).joined(separator: ",")),
            ]
        }
        switch request {
        case .weather(let points):
            base = endpoint.forecastHost + "/v1/forecast"
            items = position(points) + [("current", currentVariables.joined(separator: ","))]
        case .forecast(let point):
            base = endpoint.forecastHost + "/v1/forecast"
            items = position([point]) + [("hourly", hourlyVariables.joined(separator: ",")), ("forecast_days", String(forecastDays))]
        case .places(let query, let count):
            base = endpoint.geocodingHost + "/v1/search"
            items = [
                ("name", URLQuery.encode(query.name)), ("count", String(min(max(count, 1), maxPlaces))),
                ("language", URLQuery.encode(endpoint.language)), ("format", "json"),
            ]
            if let code = countryCode(query) { items.append(("countryCode", code)) }
        }
        if request.resource != .geocoding {
            items += [
                ("temperature_unit", OpenMeteoUnit.temperatureParameter(endpoint.units)),
                ("wind_speed_unit", OpenMeteoUnit.windSpeedParameter(endpoint.units)),
                ("precipitation_unit", "mm"), ("timezone", "GMT"), ("timeformat", "unixtime"),
            ]
        }
        if let key { items.append(("apikey", URLQuery.encode(key))) }
        return base + "?" + items.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// The country of `query` as Open-Meteo's `countryCode` (ISO 3166-1 alpha-2, upper case); nil
    /// when it has none or it is not two letters (a country's name is matched in the answer instead).
    static func countryCode(_ query: PlaceQuery) -> String? {
        guard let country = query.country, country.count == 2,
            country.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) })
        else { return nil }
        return country.uppercased()
    }

    // MARK: Requests

    /// The places of `query`'s name, best first, at most `limit`. A query with a state (`Springfield,
    /// MO, US`) keeps the places whose region (`admin1`) is that state (``USState/matches(_:state:)``),
    /// and one whose country is not a two-letter code keeps the places of a country of that name;
    /// such a query asks for the most places the geocoder gives (100), so that the ones it keeps are
    /// among them.
    public func places(_ query: PlaceQuery, limit: Int) async throws -> [Place] {
        let narrowed = query.state != nil || (query.country != nil && Self.countryCode(query) == nil)
        let count = narrowed ? Self.maxPlaces : limit
        let found = try await request(.places(query, count: count)) { response, _ throws(UpstreamError) in
            try Self.interpretPlaces(response)
        }
        return Array(Self.matching(found, query).prefix(max(limit, 1)))
    }

    /// The current weather at `coordinate`: the list form with one point.
    public func fetch(at coordinate: Coordinate) async throws -> WeatherObservation {
        let observations = try await fetch(at: [coordinate])
        guard let observation = observations.first else { throw UpstreamError.unavailable("Open-Meteo answered no point") }
        return observation
    }

    /// The current weather at each of `coordinates`, in the order asked, in one request (of at most
    /// ``maxPoints`` points; more are asked in several). Each observation's coordinate is the point
    /// asked, not the grid cell Open-Meteo answers for, so the caller can match answers to points.
    public func fetch(at coordinates: [Coordinate]) async throws -> [WeatherObservation] {
        var observations: [WeatherObservation] = []
        observations.reserveCapacity(coordinates.count)
        var start = coordinates.startIndex
        while start < coordinates.endIndex {
            let points = Array(coordinates[start..<min(start + Self.maxPoints, coordinates.endIndex)])
            observations += try await request(.weather(points)) { response, units throws(UpstreamError) in
                try Self.interpretWeather(response, at: points, units: units)
            }
            start += points.count
        }
        let fetchedAt = wallClock()
        for index in observations.indices { observations[index].fetchedAt = fetchedAt }
        return observations
    }

    /// The hourly forecast at `coordinate`, from the step in progress on.
    public func fetchForecast(at coordinate: Coordinate) async throws -> WeatherForecast {
        let now = wallClock()
        var forecast = try await request(.forecast(coordinate)) { response, units throws(UpstreamError) in
            try Self.interpretForecast(response, at: coordinate, units: units, now: now)
        }
        forecast.place.fetchedAt = wallClock()
        return forecast
    }

    /// One GET (``ProviderRequest``), its response interpreted in the endpoint's units.
    private func request<Answer>(
        _ request: Request, interpret: (HTTPResponse, Units) throws(UpstreamError) -> Answer
    ) async throws -> Answer {
        let endpoint = self.endpoint
        return try await ProviderRequest(
            provider: .openMeteo, resource: request.resource.rawValue,
            url: Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey?.revealed),
            loggedURL: Self.url(for: request, endpoint: endpoint, key: endpoint.apiKey.map { _ in "<redacted>" }),
            key: endpoint.apiKey, timeout: endpoint.timeout
        ).send(through: transport, logger: logger, sample: sample) { response throws(UpstreamError) in
            try interpret(response, endpoint.units)
        }
    }

    // MARK: Interpreting responses

    /// Maps a `/v1/forecast?current=…` response for `coordinates` to their weather, in the order
    /// asked, or to the error the spec names for it: an answer with another number of points than
    /// asked is unavailable.
    public static func interpretWeather(_ response: HTTPResponse, at coordinates: [Coordinate], units: Units) throws(UpstreamError)
        -> [WeatherObservation]
    {
        let points = try points(response, what: "weather")
        guard points.count == coordinates.count else {
            throw .unavailable("Open-Meteo answered \(points.count) point\(points.count == 1 ? "" : "s") for \(coordinates.count) asked")
        }
        var observations: [WeatherObservation] = []
        for (point, coordinate) in zip(points, coordinates) {
            guard let observation = OpenMeteoForecastResponse.observation(point, at: coordinate, units: units) else {
                throw .unavailable("Open-Meteo sent a response that is not weather JSON")
            }
            observations.append(observation)
        }
        return observations
    }

    /// Maps a `/v1/forecast?hourly=…` response to the forecast at `coordinate` from the step in
    /// progress at `now`, or to the error the spec names for it.
    public static func interpretForecast(_ response: HTTPResponse, at coordinate: Coordinate, units: Units, now: Date) throws(UpstreamError)
        -> WeatherForecast
    {
        let points = try points(response, what: "forecast")
        guard points.count == 1, let forecast = OpenMeteoForecastResponse.forecast(points[0], at: coordinate, units: units, now: now) else {
            throw .unavailable("Open-Meteo sent a response that is not forecast JSON")
        }
        return forecast
    }

    /// Maps a geocoding response to its places, best first (empty for an unknown name), or to the
    /// error the spec names for it.
    public static func interpretPlaces(_ response: HTTPResponse) throws(UpstreamError) -> [OpenMeteoGeocodingResponse.Found] {
        let body = OpenMeteoGeocodingResponse.decode(response.body)
        var reason: String?
        if case .error(let given)? = body { reason = given }
        try check(response, reason: reason)
        switch body {
        case .places(let found)?: return found
        case .error(let reason)?: throw refused(reason)
        case nil: throw .unavailable("Open-Meteo sent a response that is not places JSON")
        }
    }

    /// The places of `found` that `query` names: in its state, when it gives one (compared with
    /// `admin1`: `MO` matches `Missouri`), and in its country (its code, or its name when it is not a
    /// two-letter code).
    static func matching(_ found: [OpenMeteoGeocodingResponse.Found], _ query: PlaceQuery) -> [Place] {
        func folded(_ text: String?) -> String? {
            text.map { $0.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        }
        let code = countryCode(query)
        return found.filter { entry in
            if let state = query.state {
                guard let region = entry.place.state, USState.matches(state, state: region) else { return false }
            }
            if let code {
                guard entry.place.country == code else { return false }
            } else if let country = folded(query.country) {
                guard folded(entry.place.country) == country || folded(entry.countryName) == country else { return false }
            }
            return true
        }.map(\.place)
    }

    /// The point objects of a `/v1/forecast` response with a 2xx status, or the error of its status.
    private static func points(_ response: HTTPResponse, what: String) throws(UpstreamError) -> [JSONObject] {
        let body = OpenMeteoForecastResponse.decode(response.body)
        var reason: String?
        if case .error(let given)? = body { reason = given }
        try check(response, reason: reason)
        switch body {
        case .points(let points)?: return points
        case .error(let reason)?: throw refused(reason)
        case nil: throw .unavailable("Open-Meteo sent a response that is not \(what) JSON")
        }
    }

    /// The error of a status other than 2xx. A 400 is the request's fault (a parameter Open-Meteo
    /// does not take), never an unknown place: unavailable, with Open-Meteo's reason. 401 and 403 are
    /// a commercial key refused.
    private static func check(_ response: HTTPResponse, reason: String?) throws(UpstreamError) {
        switch response.status {
        case 200..<300: return
        case 400: throw refused(reason)
        case 401, 403: throw .unauthorized
        case 429: throw .rateLimited(retryAfter: response.retryAfter)
        default: throw .unavailable("Open-Meteo answered HTTP \(response.status)")
        }
    }

    /// `Open-Meteo refused the request: <reason>`, the reason cut to 200 characters.
    private static func refused(_ reason: String?) -> UpstreamError {
        let reason = reason.map { $0.count > 200 ? String($0.prefix(200)) + "…" : $0 }
        return .unavailable("Open-Meteo refused the request: \(reason ?? "no reason given")")
    }
}

extension OpenMeteoClient: Reconfigurable {
    /// Later requests go to the new endpoint: the new URLs, commercial key, units, language and timeout.
    public func apply(_ change: ConfigChange) {
        update(Endpoint(change.new, apiKey: change.keys.openMeteo))
    }
}
