import Foundation
import Testing
import WeatherCore

@testable import TestSupport
@testable import owm_replay

/// `/_faults` through the endpoint: setting, listing, clearing, and which requests a fault covers.
@Suite("Fault control")
struct FaultControlTests {
    static func get(_ endpoint: WeatherEndpoint, _ uri: String, method: String = "GET") async -> ReplayResponse {
        await WeatherEndpointTests.get(endpoint, uri, method: method)
    }

    static func listed(_ response: ReplayResponse) throws -> [String] {
        let list = try JSONValue.parse(response.body.utf8)
        return (list["faults"]?.arrayValue ?? []).map { fault in
            fault.objectValue!.members.map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized)" }.joined(separator: "&")
        }
    }

    @Test("POST sets a fault, GET lists it, DELETE of its city clears it")
    func setListClear() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        let set = await Self.get(endpoint, "/_faults?city=Paris&fault=429&retry_after=2", method: "POST")
        #expect(set.status == 200)
        #expect(try Self.listed(set) == ["city=Paris&fault=429&retry_after=2"])

        let limited = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        #expect(limited.status == 429)
        #expect(limited.body == ReplayResponse.tooManyRequests(retryAfter: nil).body)
        #expect(limited.extraHeaders.filter { $0.name == "Retry-After" }.map(\.value) == ["2"])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=London").status == 200)

        #expect(try Self.listed(await Self.get(endpoint, "/_faults")) == ["city=Paris&fault=429&retry_after=2"])
        let cleared = await Self.get(endpoint, "/_faults?city=paris", method: "DELETE")
        #expect(cleared.status == 200)
        #expect(try Self.listed(cleared) == [])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 200)
    }

    @Test("a status fault answers what OpenWeatherMap sends; without retry_after no Retry-After")
    func statusBodies() async throws {
        let endpoint = try WeatherEndpointTests.endpoint(retryAfter: 9)
        for (status, body) in [
            (401, ReplayResponse.invalidAPIKey.body), (404, ReplayResponse.cityNotFound.body),
            (500, ReplayResponse.proxyError(500).body), (429, ReplayResponse.tooManyRequests(retryAfter: nil).body),
        ] {
            _ = await Self.get(endpoint, "/_faults?city=Tokyo&fault=\(status)", method: "POST")
            let response = await Self.get(endpoint, "/data/2.5/weather?q=Tokyo")
            #expect(response.status == status)
            #expect(response.body == body)
            // --retry-after is for --fail rules only.
            #expect(response.extraHeaders.allSatisfy { $0.name != "Retry-After" }, "\(status)")
        }
    }

    @Test("POST for a city replaces its fault; DELETE without a city clears all")
    func replaceAndClearAll() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await Self.get(endpoint, "/_faults?city=Paris&fault=500", method: "POST")
        _ = await Self.get(endpoint, "/_faults?city=*&fault=503", method: "POST")
        let replaced = await Self.get(endpoint, "/_faults?city=PARIS&fault=not-json", method: "POST")
        #expect(try Self.listed(replaced) == ["city=*&fault=503", "city=PARIS&fault=not-json"])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").body == ReplayResponse.garbage.body)
        #expect(try Self.listed(await Self.get(endpoint, "/_faults", method: "DELETE")) == [])
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 200)
    }

    @Test("a fault naming the city wins over a * fault, and over a --fail rule")
    func precedence() async throws {
        let endpoint = try WeatherEndpointTests.endpoint(failures: ["Paris=503"])
        _ = await Self.get(endpoint, "/_faults?city=*&fault=500", method: "POST")
        _ = await Self.get(endpoint, "/_faults?city=Paris,FR&fault=404", method: "POST")
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 404)
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Berlin").status == 500)
        // A point that resolves to Paris is covered too.
        #expect(await Self.get(endpoint, "/data/2.5/weather?lat=48.85&lon=2.35").status == 404)
        _ = await Self.get(endpoint, "/_faults", method: "DELETE")
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris").status == 503)
    }

    @Test("the API key is checked before a fault applies")
    func keyFirst() async throws {
        let endpoint = try WeatherEndpointTests.endpoint(apiKey: "k")
        _ = await Self.get(endpoint, "/_faults?city=*&fault=500", method: "POST")
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris&appid=x").status == 401)
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Paris&appid=k").status == 500)
    }

    @Test("requests with a fault are counted in /_stats like any other")
    func counted() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await Self.get(endpoint, "/_faults?city=Paris&fault=500", method: "POST")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        _ = await Self.get(endpoint, "/data/2.5/weather?q=London")
        let stats = try JSONValue.parse(await Self.get(endpoint, "/_stats").body.utf8)
        #expect(stats["requests"] == .integer(2))
        #expect(stats["by_query"]?["q=paris"] == .integer(1))
    }

    @Test(
        "a bad request is 400 with a message and changes nothing",
        arguments: ["?fault=500", "?city=&fault=500", "?city=Paris", "?city=Paris&fault=boom", "?city=Paris&fault=huge&bytes=1"])
    func badRequest(query: String) async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        let response = await Self.get(endpoint, "/_faults" + query, method: "POST")
        #expect(response.status == 400)
        #expect(try JSONValue.parse(response.body.utf8)["message"]?.stringValue?.isEmpty == false)
        #expect(try Self.listed(await Self.get(endpoint, "/_faults")) == [])
    }

    @Test("DELETE takes only city=; other methods are not allowed")
    func methods() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        #expect(await Self.get(endpoint, "/_faults?fault=500", method: "DELETE").status == 400)
        #expect(await Self.get(endpoint, "/_faults", method: "PATCH").status == 405)
    }

    @Test("a drip fault keeps the usual answer and only changes how its body goes out")
    func dripKeepsAnswer() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        let usual = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        _ = await Self.get(endpoint, "/_faults?city=*&fault=drip&rate=16", method: "POST")
        let dripped = await Self.get(endpoint, "/data/2.5/weather?q=Paris")
        #expect(dripped.status == 200 && dripped.body == usual.body)
        #expect(dripped.delivery == .drip(bytesPerSecond: 16))
        #expect(await Self.get(endpoint, "/data/2.5/weather?q=Atlantis").status == 404)
    }

    @Test("a hanging request is answered as the rules say once its fault is replaced or cleared")
    func hangReleased() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await Self.get(endpoint, "/_faults?city=Paris&fault=hang", method: "POST")
        let first = Task { await Self.get(endpoint, "/data/2.5/weather?q=Paris") }
        let second = Task { await Self.get(endpoint, "/data/2.5/weather?q=Paris") }
        try await Self.waitForHanging(endpoint, 2)

        _ = await Self.get(endpoint, "/_faults?city=Paris&fault=503", method: "POST")
        #expect(await first.value.status == 503)
        #expect(await second.value.status == 503)
        #expect(endpoint.faults.hangingCount == 0)

        _ = await Self.get(endpoint, "/_faults?city=Paris&fault=hang", method: "POST")
        let third = Task { await Self.get(endpoint, "/data/2.5/weather?q=Paris") }
        try await Self.waitForHanging(endpoint, 1)
        _ = await Self.get(endpoint, "/_faults?city=Paris", method: "DELETE")
        #expect(await third.value.status == 200)
    }

    @Test("a hanging request is abandoned when its client goes away or its task is cancelled")
    func hangAbandoned() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await Self.get(endpoint, "/_faults?city=*&fault=hang", method: "POST")
        let clientGone = Gate()
        let gone = Task {
            await endpoint.respond(method: "GET", target: RequestTarget("/data/2.5/weather?q=Paris"), clientGone: clientGone)
        }
        let cancelled = Task { await Self.get(endpoint, "/data/2.5/weather?q=Tokyo") }
        try await Self.waitForHanging(endpoint, 2)
        clientGone.open()
        #expect(await gone.value.delivery == .abandoned)
        cancelled.cancel()
        #expect(await cancelled.value.delivery == .abandoned)
        #expect(endpoint.faults.hangingCount == 0)
        #expect(try Self.listed(await Self.get(endpoint, "/_faults")) == ["city=*&fault=hang"])
    }

    static func waitForHanging(_ endpoint: WeatherEndpoint, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while endpoint.faults.hangingCount != count {
            guard ContinuousClock.now < deadline else { throw TimeoutError(what: "\(count) hanging requests", timeout: .seconds(10)) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// `/_faults?service=…`: a fault for one service.
@Suite("Fault control: services")
struct FaultServiceTests {
    typealias F = FaultControlTests

    @Test("service= scopes a fault; it is listed with it, and a fault without one is for both")
    func scoped() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await F.get(endpoint, "/_faults?service=open-meteo&city=*&fault=500", method: "POST")
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Paris").status == 200, "not for OpenWeatherMap")
        let listed = await F.get(endpoint, "/_faults?service=openweathermap&city=Paris&fault=503", method: "POST")
        #expect(try F.listed(listed) == ["city=*&service=open-meteo&fault=500", "city=Paris&service=openweathermap&fault=503"])
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Paris").status == 503)
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Tokyo").status == 200)
        _ = await F.get(endpoint, "/_faults?city=Tokyo&service=*&fault=429", method: "POST")
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Tokyo").status == 429)
    }

    @Test("the same city for another service is another fault; a fault for the service beats one for both")
    func separateFaults() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await F.get(endpoint, "/_faults?city=Paris&fault=404", method: "POST")
        _ = await F.get(endpoint, "/_faults?city=Paris&service=openweathermap&fault=429", method: "POST")
        _ = await F.get(endpoint, "/_faults?city=*&service=openweathermap&fault=500", method: "POST")
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Paris").status == 429)
        #expect(await F.get(endpoint, "/data/2.5/weather?q=Tokyo").status == 500)
        let replaced = await F.get(endpoint, "/_faults?city=paris&service=OpenWeatherMap&fault=503", method: "POST")
        #expect(
            try F.listed(replaced) == [
                "city=Paris&fault=404", "city=*&service=openweathermap&fault=500", "city=paris&service=openweathermap&fault=503",
            ])
    }

    @Test("DELETE with service= clears the faults for that service (* for both); with city= too, those of the city")
    func clearByService() async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        for query in [
            "city=Paris&fault=404", "city=Paris&service=open-meteo&fault=500", "city=*&service=open-meteo&fault=hang",
            "city=Paris&service=openweathermap&fault=429",
        ] {
            _ = await F.get(endpoint, "/_faults?" + query, method: "POST")
        }
        let one = await F.get(endpoint, "/_faults?service=open-meteo&city=Paris", method: "DELETE")
        #expect(
            try F.listed(one) == [
                "city=Paris&fault=404", "city=*&service=open-meteo&fault=hang", "city=Paris&service=openweathermap&fault=429",
            ])
        let meteo = await F.get(endpoint, "/_faults?service=open-meteo", method: "DELETE")
        #expect(try F.listed(meteo) == ["city=Paris&fault=404", "city=Paris&service=openweathermap&fault=429"])
        let both = await F.get(endpoint, "/_faults?service=*", method: "DELETE")
        #expect(try F.listed(both) == ["city=Paris&service=openweathermap&fault=429"])
        _ = await F.get(endpoint, "/_faults?city=Paris&fault=404", method: "POST")
        let paris = await F.get(endpoint, "/_faults?city=Paris", method: "DELETE")
        #expect(try F.listed(paris) == [], "without service=, the city's faults for every service")
    }

    @Test("an unknown service is 400 and changes nothing", arguments: ["POST", "DELETE"])
    func unknownService(method: String) async throws {
        let endpoint = try WeatherEndpointTests.endpoint()
        _ = await F.get(endpoint, "/_faults?city=Paris&fault=404", method: "POST")
        let response = await F.get(endpoint, "/_faults?city=Paris&service=darksky&fault=500", method: method)
        #expect(response.status == 400)
        #expect(try JSONValue.parse(response.body.utf8)["message"]?.stringValue?.contains("darksky") == true)
        #expect(try F.listed(await F.get(endpoint, "/_faults")) == ["city=Paris&fault=404"])
    }
}
