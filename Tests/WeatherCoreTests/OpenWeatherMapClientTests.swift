import Foundation
import Testing
@testable import WeatherCore
@testable import TestSupport

@Suite("OpenWeatherMap client: URLs and error mapping")
struct OpenWeatherMapClientTests {
    static let apiKey = "0123456789abcdefSECRETKEY"

    private func client(_ transport: any HTTPTransport = ScriptedTransport(), baseURL: String = "https://api.openweathermap.org", units: Units = .metric) -> OpenWeatherMapClient {
        OpenWeatherMapClient(transport: transport, baseURL: baseURL, apiKey: Secret(Self.apiKey), units: units, lang: "en", timeout: .seconds(10),
                             wallClock: { Fixture.fetchedAt })
    }

    private func interpret(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Result<WeatherObservation, UpstreamError> {
        Result { () throws(UpstreamError) in
            try OpenWeatherMapClient.interpret(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), units: .metric)
        }
    }

    // MARK: URLs

    @Test("a city URL has q, units, lang and appid, in that order")
    func cityURL() {
        #expect(client().url(for: .city("London")) ==
            "https://api.openweathermap.org/data/2.5/weather?q=London&units=metric&lang=en&appid=\(Self.apiKey)")
    }

    @Test("city names are percent-encoded", arguments: [
        ("São Paulo", "q=S%C3%A3o%20Paulo&"),
        ("New York,US", "q=New%20York%2CUS&"),
        ("a&appid=x", "q=a%26appid%3Dx&"),
        ("x=y", "q=x%3Dy&"),
        ("50% + #1/?", "q=50%25%20%2B%20%231%2F%3F&"),
        ("Zürich-Oerlikon_~.", "q=Z%C3%BCrich-Oerlikon_~.&"),
    ])
    func percentEncoding(_ city: String, _ expected: String) {
        let url = client().url(for: .city(city))
        #expect(url.contains(expected), "\(url)")
        #expect(url.components(separatedBy: "appid=").count == 2, "exactly one appid")
    }

    @Test("a point URL has lat and lon with 4 decimals")
    func pointURL() {
        #expect(client(units: .imperial).url(for: .coordinate(Coordinate(lat: 51.508529, lon: -0.125740))) ==
            "https://api.openweathermap.org/data/2.5/weather?lat=51.5085&lon=-0.1257&units=imperial&lang=en&appid=\(Self.apiKey)")
        #expect(client().url(for: .coordinate(Coordinate(lat: 44.34, lon: 10.99))).contains("?lat=44.3400&lon=10.9900&"))
    }

    @Test("base_url may end with a slash and may have a path")
    func baseURL() {
        #expect(client(baseURL: "http://127.0.0.1:8080/").url(for: .city("Oslo")).hasPrefix("http://127.0.0.1:8080/data/2.5/weather?q=Oslo&"))
        #expect(client(baseURL: "http://proxy/owm").url(for: .city("Oslo")).hasPrefix("http://proxy/owm/data/2.5/weather?"))
    }

    @Test("redactedURL never contains the key")
    func redacted() {
        let c = client()
        for query in [LookupQuery.city("London"), .city("São Paulo"), .coordinate(Coordinate(lat: 1, lon: 2))] {
            let url = c.redactedURL(for: query)
            #expect(!url.contains(Self.apiKey))
            #expect(url.hasSuffix("&appid=%3Credacted%3E"))
            #expect(url.replacingOccurrences(of: "%3Credacted%3E", with: Self.apiKey) == c.url(for: query))
        }
    }

    @Test("the transport is asked for exactly the request URL, with the configured timeout")
    func fetchesTheURL() async throws {
        let transport = ScriptedTransport()
        transport.on("q=London", .ok(try Fixture.london()))
        let c = client(transport)
        let observation = try await c.fetch(.city("London"))
        #expect(observation == (try Fixture.fetchedLondonObservation()), "stamped with the time it was fetched")
        #expect(transport.requestedURLs == [c.url(for: .city("London"))])
    }

    // MARK: Error mapping (errors.md)

    @Test("404 with errors.md's body is not found")
    func notFound404() throws {
        #expect(interpret(404, try Fixture.errorBody(404)) == .failure(.notFound(message: "city not found")))
    }

    @Test("400 Nothing to geocode (empty q) is not found")
    func nothingToGeocode() throws {
        #expect(interpret(400, try Fixture.errorBody(400)) == .failure(.notFound(message: "Nothing to geocode")))
    }

    @Test("401 with errors.md's body is unauthorized")
    func unauthorized() throws {
        #expect(interpret(401, try Fixture.errorBody(401)) == .failure(.unauthorized))
    }

    @Test("429 with errors.md's body is rate limited, with Retry-After parsed")
    func rateLimitedWithRetryAfter() throws {
        #expect(interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "5"]) == .failure(.rateLimited(retryAfter: .seconds(5))))
        #expect(interpret(429, try Fixture.errorBody(429), headers: ["retry-after": " 120 "]) == .failure(.rateLimited(retryAfter: .seconds(120))))
    }

    @Test("429 without Retry-After, or with an HTTP date, is rate limited without a delay")
    func rateLimitedWithoutRetryAfter() throws {
        #expect(interpret(429, try Fixture.errorBody(429)) == .failure(.rateLimited(retryAfter: nil)))
        #expect(interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"]) == .failure(.rateLimited(retryAfter: nil)))
        #expect(interpret(429, try Fixture.errorBody(429), headers: ["retry-after": "-3"]) == .failure(.rateLimited(retryAfter: nil)))
    }

    @Test("an error body with HTTP 200 is mapped by its cod")
    func errorBodyWithStatus200() throws {
        #expect(interpret(200, try Fixture.errorBody(404)) == .failure(.notFound(message: "city not found")))
        #expect(interpret(200, try Fixture.errorBody(401)) == .failure(.unauthorized))
        #expect(interpret(200, try Fixture.errorBody(429)) == .failure(.rateLimited(retryAfter: nil)))
    }

    @Test("errors.md's 200 find-without-match body is not weather: unavailable")
    func findWithoutMatch() throws {
        guard case .failure(.unavailable) = interpret(200, try Fixture.errorBody(200)) else {
            Issue.record("expected unavailable"); return
        }
    }

    @Test("500 and 502 with HTML bodies are unavailable", arguments: [500, 502, 503])
    func serverErrors(_ status: Int) {
        let result = interpret(status, "<html><head><title>\(status) Bad Gateway</title></head><body>nginx</body></html>")
        #expect(result == .failure(.unavailable("OpenWeatherMap answered HTTP \(status)")))
    }

    @Test("200 with HTML garbage is unavailable")
    func htmlWith200() {
        guard case .failure(.unavailable) = interpret(200, "<html><body>captive portal</body></html>") else {
            Issue.record("expected unavailable"); return
        }
    }

    @Test("200 with the London fixture is weather")
    func success() throws {
        let body = String(decoding: try Fixture.london(), as: UTF8.self)
        #expect(interpret(200, body) == .success(try Fixture.londonObservation()))
    }

    // MARK: Transport failures

    @Test("a transport error is unavailable and keeps its kind")
    func transportErrors() async {
        let transport = ScriptedTransport()
        transport.on("q=Slow", .failure(HTTPTransportError(.timedOut, "after 10 s")))
        await #expect(throws: UpstreamError.unavailable("timed out: after 10 s")) { try await client(transport).fetch(.city("Slow")) }
        transport.on("q=Down", .failure(HTTPTransportError(.connectionFailed, "connection refused")))
        await #expect(throws: UpstreamError.unavailable("connection failed: connection refused")) { try await client(transport).fetch(.city("Down")) }
    }

    struct LeakyError: Error, Sendable, CustomStringConvertible {
        var url: String
        var description: String { "failed to fetch \(url)" }
    }

    @Test("any other transport error is unavailable without its text (it could hold the URL)")
    func foreignErrors() async {
        let transport = ScriptedTransport()
        let c = client(transport)
        transport.on("q=Leak", .failure(LeakyError(url: c.url(for: .city("Leak")))))
        await #expect(throws: UpstreamError.unavailable("transport failure")) { try await c.fetch(.city("Leak")) }
    }

    @Test("a cancelled transport request is a CancellationError, not unavailable")
    func cancellation() async {
        let transport = ScriptedTransport()
        transport.on("q=Gone", .failure(CancellationError()))
        await #expect(throws: CancellationError.self) { try await client(transport).fetch(.city("Gone")) }
    }
}
