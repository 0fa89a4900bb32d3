import Testing

@testable import WeatherCore
@testable import owm_replay

@Suite("ReplayResponse")
struct ReplayResponseTests {
    @Test("a weather answer is status 200 with the body as compact JSON")
    func weather() {
        let response = ReplayResponse.weather(["name": .string("Paris"), "main": .object(["temp": .double(7.5)])])
        #expect(response.status == 200)
        #expect(response.contentType == "application/json; charset=utf-8")
        #expect(response.body == #"{"name":"Paris","main":{"temp":7.5}}"#)
        #expect(response.extraHeaders.isEmpty)
    }

    @Test("--fail 401 answers OpenWeatherMap's invalid API key body")
    func fail401() {
        let response = ReplayResponse.failure(.status(401), retryAfter: nil)
        #expect(response.status == 401)
        #expect(response.body == ReplayResponse.invalidAPIKey.body)
        #expect(response.body.contains("Invalid API key"))
    }

    @Test("--fail 404 answers OpenWeatherMap's city not found body")
    func fail404() {
        let response = ReplayResponse.failure(.status(404), retryAfter: nil)
        #expect(response.status == 404)
        #expect(response.body == #"{"cod":"404","message":"city not found"}"#)
    }

    @Test("--fail 429 answers the rate limit body with Retry-After when one is set")
    func fail429WithRetryAfter() {
        let response = ReplayResponse.failure(.status(429), retryAfter: 30)
        #expect(response.status == 429)
        #expect(response.contentType.hasPrefix("application/json"))
        #expect(response.extraHeaders.map(\.name) == ["Retry-After"])
        #expect(response.extraHeaders.first?.value == "30")
    }

    @Test("--fail 429 without --retry-after sends no Retry-After")
    func fail429WithoutRetryAfter() {
        #expect(ReplayResponse.failure(.status(429), retryAfter: nil).extraHeaders.isEmpty)
    }

    @Test("only 429 carries Retry-After")
    func retryAfterOnlyOn429() {
        #expect(ReplayResponse.failure(.status(503), retryAfter: 30).extraHeaders.isEmpty)
    }

    @Test("--fail 5xx answers the proxy's HTML error page")
    func fail5xx() {
        let response = ReplayResponse.failure(.status(503), retryAfter: nil)
        #expect(response.status == 503)
        #expect(response.contentType == "text/html")
        #expect(response.body.contains("<title>503 Service Temporarily Unavailable</title>"))
        #expect(response.body.contains("openresty"))
    }

    @Test("--fail with an uncommon 5xx still names a reason")
    func fail5xxUncommon() {
        let response = ReplayResponse.failure(.status(599), retryAfter: nil)
        #expect(response.status == 599)
        #expect(response.body.contains("<h1>599 Error</h1>"))
    }

    @Test("--fail with another status answers it as plain text")
    func failOther() {
        let response = ReplayResponse.failure(.status(403), retryAfter: nil)
        #expect(response.status == 403)
        #expect(response.contentType == "text/plain")
        #expect(response.body == "403 Forbidden\n")
    }

    @Test("--fail garbage answers 200 with a body that is not JSON")
    func failGarbage() {
        let response = ReplayResponse.failure(.garbage, retryAfter: 5)
        #expect(response.status == 200)
        #expect(throws: (any Error).self) { try JSONValue.parse(response.body.utf8) }
    }

    @Test("the JSON error bodies parse as JSON and carry their status as cod")
    func errorBodies() throws {
        let bodies: [(ReplayResponse, Int)] = [
            (.cityNotFound, 404), (.nothingToGeocode, 400), (.wrongLatitude, 400), (.wrongLongitude, 400),
            (.invalidAPIKey, 401), (.notFound, 404), (.methodNotAllowed, 405), (.tooManyRequests(retryAfter: nil), 429),
        ]
        for (response, status) in bodies {
            #expect(response.status == status)
            let body = try JSONValue.parse(response.body.utf8)
            let cod = body["cod"]?.intValue ?? body["cod"]?.stringValue.flatMap { Int($0) }
            #expect(cod == status, "\(response.body)")
        }
    }

    @Test("common statuses have their reason phrase, others read Error")
    func reasonPhrases() {
        #expect(reasonPhrase(429) == "Too Many Requests")
        #expect(reasonPhrase(502) == "Bad Gateway")
        #expect(reasonPhrase(418) == "Error")
    }
}

@Suite("ReplayStats")
struct ReplayStatsTests {
    static let noOpenMeteo =
        #"{"requests":0,"forecast_requests":0,"forecast_points":0,"search_requests":0,"air_quality_requests":0,"air_quality_points":0,"#
        + #""wrong_key":0,"by_query":{}}"#

    @Test("fresh stats count nothing")
    func empty() {
        #expect(
            ReplayStats().json.serialized
                == #"{"requests":0,"connections":0,"deprecated_q":0,"wrong_key":0,"by_query":{},"open_meteo":"# + Self.noOpenMeteo + "}")
    }

    @Test("requests are counted in total and per query, connections apart, keys sorted")
    func counts() {
        let stats = ReplayStats()
        stats.recordRequest("q=paris", deprecatedQ: true)
        stats.recordRequest("q=london", deprecatedQ: true)
        stats.recordRequest("q=paris", deprecatedQ: true)
        stats.recordConnection()
        #expect(
            stats.json.serialized
                == #"{"requests":3,"connections":1,"deprecated_q":3,"wrong_key":0,"by_query":{"q=london":1,"q=paris":2},"open_meteo":"#
                + Self.noOpenMeteo + "}")
    }

    @Test("Open-Meteo's requests are counted apart: forecasts, their points, searches, each by its key")
    func openMeteo() {
        let stats = ReplayStats()
        stats.recordOpenMeteoForecast(points: ["lat=1&lon=2", "lat=3&lon=4"])
        stats.recordOpenMeteoForecast(points: ["lat=1&lon=2"])
        stats.recordOpenMeteoForecast(points: [])
        stats.recordOpenMeteoSearch("search:name=berlin")
        stats.recordAirQuality(points: 9)
        stats.recordRequest("q=paris")
        #expect(stats.json["requests"] == .integer(1))
        #expect(
            stats.json["open_meteo"]?.serialized
                == #"{"requests":4,"forecast_requests":3,"forecast_points":3,"search_requests":1,"air_quality_requests":1,"#
                + #""air_quality_points":9,"wrong_key":0,"#
                + #""by_query":{"lat=1&lon=2":2,"lat=3&lon=4":1,"search:name=berlin":1}}"#)
    }

    @Test("wrong_key counts the requests refused for their key, each service's apart")
    func wrongKey() {
        let stats = ReplayStats()
        stats.recordWrongKey(.openWeatherMap)
        stats.recordWrongKey(.openWeatherMap)
        stats.recordWrongKey(.openMeteo)
        #expect(stats.json["wrong_key"] == .integer(2))
        #expect(stats.json["open_meteo"]?["wrong_key"] == .integer(1))
    }

    @Test("deprecated_q counts only the requests recorded as carrying q=")
    func deprecatedQ() {
        let stats = ReplayStats()
        stats.recordRequest("geo:q=london")
        stats.recordRequest("lat=51.51&lon=-0.13")
        stats.recordRequest("forecast:q=paris", deprecatedQ: true)
        #expect(stats.json["requests"] == .integer(3))
        #expect(stats.json["deprecated_q"] == .integer(1))
    }
}
