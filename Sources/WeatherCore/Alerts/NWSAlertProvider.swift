import Logging

/// The US National Weather Service's alerts (api.weather.gov): `{nws_url}/alerts/active?point=LAT,LON`
/// for a cell, an alert's `affectedZones` URL for a zone's shape. Its transport sends the User-Agent
/// the NWS requires, `weatherd/VERSION (alerts.contact)` (``AlertsConfig/userAgent``).
public struct NWSAlertProvider: AlertProvider {
    public let name = AlertProviderName.nws
    private let transport: any HTTPTransport
    private let baseURL: String
    private let timeout: Duration
    private let logger: Logger?

    public init(transport: any HTTPTransport, config: AlertsConfig, logger: Logger? = nil) {
        self.transport = transport
        var base = config.nwsURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.timeout = config.timeout
        self.logger = logger
    }

    /// The United States and its territories, from a bundled outline (``USOutline``).
    public func covers(_ point: Coordinate) -> Bool {
        USOutline.contains(point)
    }

    public func alerts(at cell: Coordinate) async throws -> [Alert] {
        let url = "\(baseURL)/alerts/active?point=\(cell.upstreamLatitude),\(cell.upstreamLongitude)"
        return try await get(url, endpoint: "alerts", interpret: NWSAlertsResponse.alerts)
    }

    /// A zone is asked at the URL the alert gave when it is the configured API's (a fleet's proxy or
    /// a stand-in answers for it too); a zone elsewhere is asked at `{nws_url}/zones/…` by its path.
    public func zoneArea(_ zone: String) async throws -> AlertArea? {
        try await get(zoneURL(zone), endpoint: "zone", interpret: NWSAlertsResponse.zoneArea)
    }

    func zoneURL(_ zone: String) -> String {
        if zone.hasPrefix(baseURL + "/") { return zone }
        guard let range = zone.firstRange(of: "/zones/") else { return baseURL + "/zones/" + zone }
        return baseURL + zone[range.lowerBound...]
    }

    private func get<Answer>(
        _ url: String, endpoint: String, interpret: ([UInt8]) throws(UpstreamError) -> Answer
    ) async throws -> Answer {
        let started = ContinuousClock.now
        func count(_ outcome: String) {
            UpstreamMetrics.request(
                provider: name.rawValue, endpoint: endpoint, outcome: outcome, duration: started.duration(to: .now))
        }
        let response: HTTPResponse
        do {
            response = try await transport.get(url, timeout: timeout)
            logger?.debug("GET \(url) -> \(response.status)")
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPTransportError {
            count("unavailable")
            throw UpstreamError.unavailable("the NWS cannot be reached: \(error.description)")
        } catch {
            count("unavailable")
            throw UpstreamError.unavailable("the NWS cannot be reached")
        }
        do throws(UpstreamError) {
            let answer = try interpret(Self.checked(response))
            count("ok")
            return answer
        } catch {
            count(error.metricOutcome)
            throw error
        }
    }

    /// The body of a 2xx answer; otherwise the error its status means: 400 and 404 (a point outside
    /// the NWS's area, an unknown zone) `notFound`, 429 `rateLimited`, anything else `unavailable`.
    static func checked(_ response: HTTPResponse) throws(UpstreamError) -> [UInt8] {
        switch response.status {
        case 200..<300: return response.body
        case 400, 404: throw .notFound(message: detail(response.body) ?? "outside the NWS's area")
        case 429: throw .rateLimited(retryAfter: response.retryAfter)
        default: throw .unavailable("the NWS answered HTTP \(response.status)")
        }
    }

    /// The `detail` of an NWS problem answer (`application/problem+json`).
    private static func detail(_ body: [UInt8]) -> String? {
        (try? JSONValue.parse(body))?["detail"]?.stringValue
    }
}
