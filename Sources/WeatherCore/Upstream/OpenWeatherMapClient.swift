import Foundation
import Logging
import Synchronization

/// The OpenWeatherMap current-weather API (`/data/2.5/weather`).
public struct OpenWeatherMapClient: WeatherUpstream {
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

        /// The endpoint of the `[openweathermap]` table, with the key found for it.
        public init(_ config: OpenWeatherMapConfig, apiKey: Secret) {
            self.init(baseURL: config.baseURL, apiKey: apiKey, units: config.units, lang: config.lang, timeout: config.timeout)
        }
    }

    private final class EndpointBox: Sendable {
        let value: Mutex<Endpoint>
        init(_ endpoint: Endpoint) { value = Mutex(endpoint) }
    }

    private let transport: any HTTPTransport
    private let box: EndpointBox
    private let logger: Logger?
    private let wallClock: @Sendable () -> Date

    /// - Parameter wallClock: stamps each observation's `fetchedAt`.
    public init(
        transport: any HTTPTransport, baseURL: String, apiKey: Secret, units: Units, lang: String, timeout: Duration,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger? = nil
    ) {
        self.wallClock = wallClock
        self.transport = transport
        self.box = EndpointBox(Endpoint(baseURL: baseURL, apiKey: apiKey, units: units, lang: lang, timeout: timeout))
        self.logger = logger
    }

    /// The endpoint requests go to now.
    public var endpoint: Endpoint { box.value.withLock { $0 } }

    /// Sends later requests to `endpoint` (configuration reload).
    public func update(_ endpoint: Endpoint) {
        box.value.withLock { $0 = endpoint }
    }

    /// The request URL. It carries the API key: log `redactedURL` instead.
    public func url(for query: LookupQuery) -> String {
        let endpoint = self.endpoint
        return Self.url(for: query, endpoint: endpoint, key: endpoint.apiKey.revealed)
    }

    /// The request URL with the key replaced by `<redacted>`, for logs.
    public func redactedURL(for query: LookupQuery) -> String {
        Self.url(for: query, endpoint: endpoint, key: "<redacted>")
    }

    private static func url(for query: LookupQuery, endpoint: Endpoint, key: String) -> String {
        var items: [(String, String)]
        switch query {
        case .city(let name):
            items = [("q", name)]
        case .coordinate(let c):
            items = [("lat", String(format: "%.4f", c.lat)), ("lon", String(format: "%.4f", c.lon))]
        }
        items += [("units", endpoint.units.rawValue), ("lang", endpoint.lang), ("appid", key)]
        let queryString = items.map { "\($0)=\(Self.percentEncode($1))" }.joined(separator: "&")
        return "\(endpoint.baseURL)/data/2.5/weather?\(queryString)"
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func percentEncode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    public func fetch(_ query: LookupQuery) async throws -> WeatherObservation {
        let endpoint = self.endpoint
        let response: HTTPResponse
        let started = ContinuousClock.now
        do {
            response = try await transport.get(
                Self.url(for: query, endpoint: endpoint, key: endpoint.apiKey.revealed), timeout: endpoint.timeout)
            logger?.debug("GET \(Self.url(for: query, endpoint: endpoint, key: "<redacted>")) -> \(response.status) in \(started.duration(to: .now).formatted(.units(allowed: [.milliseconds])))")
        } catch let error as HTTPTransportError {
            UpstreamMetrics.request(endpoint: "weather", outcome: "unavailable", duration: started.duration(to: .now))
            throw UpstreamError.unavailable(error.description)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            UpstreamMetrics.request(endpoint: "weather", outcome: "unavailable", duration: started.duration(to: .now))
            throw UpstreamError.unavailable("transport failure")  // never the error text: it could hold the URL
        }
        do {
            var observation = try Self.interpret(response, units: endpoint.units)
            observation.fetchedAt = wallClock()
            UpstreamMetrics.request(endpoint: "weather", outcome: "ok", duration: started.duration(to: .now))
            return observation
        } catch {
            UpstreamMetrics.request(endpoint: "weather", outcome: error.metricOutcome, duration: started.duration(to: .now))
            throw error
        }
    }

    /// Maps a response to weather or to the error the spec names for it.
    public static func interpret(_ response: HTTPResponse, units: Units) throws(UpstreamError) -> WeatherObservation {
        let body = OpenWeatherMapResponse.decode(response.body, units: units)
        switch response.status {
        case 200..<300:
            switch body {
            case .weather(let observation):
                return observation
            case .error(let code, let message):
                switch code {
                case 404, 400: throw .notFound(message: message)
                case 401: throw .unauthorized
                case 429: throw .rateLimited(retryAfter: nil)
                default: throw .unavailable("OpenWeatherMap answered \(code.map(String.init) ?? "without weather"): \(message ?? "no message")")
                }
            case nil:
                throw .unavailable("OpenWeatherMap sent a response that is not weather JSON")
            }
        case 404, 400:
            throw .notFound(message: body.flatMap { if case .error(_, let m) = $0 { m } else { nil } })
        case 401:
            throw .unauthorized
        case 429:
            throw .rateLimited(retryAfter: response.headers["retry-after"].flatMap(Self.retryAfter))
        default:
            throw .unavailable("OpenWeatherMap answered HTTP \(response.status)")
        }
    }

    /// `Retry-After` as delay-seconds (an HTTP date is rare here and treated as absent).
    static func retryAfter(_ header: String) -> Duration? {
        Int(header.trimmingCharacters(in: .whitespaces)).flatMap { $0 >= 0 ? .seconds($0) : nil }
    }
}

extension OpenWeatherMapClient: Reconfigurable {
    /// Later requests go to the new endpoint, with the new key, units, language and timeout.
    public func apply(_ change: ConfigChange) {
        update(Endpoint(change.new.openWeatherMap, apiKey: change.apiKey))
    }
}
