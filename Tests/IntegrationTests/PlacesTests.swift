import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Names resolved to places by OpenWeatherMap's Geocoding API (owm-replay's `/geo/1.0/direct`), end
/// to end: the real daemon over its socket, the web and MQTT. owm-replay knows five Londons, seven
/// Springfields (Illinois first) and one place for each city it has weather for; its `/_stats`
/// counts `deprecated_q`, the weather and forecast requests that named a city with `q=`, which
/// weatherd never sends.
@Suite("places")
struct PlacesTests {
    private static func daemon(
        cities: [String] = [], openWeatherMap: [String] = [], directory: TemporaryDirectory? = nil
    ) async throws -> (ReplayServer, DaemonProcess, DaemonSetup) {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try directory ?? TemporaryDirectory(), replay: replay, cities: cities)
        setup.openWeatherMapLines = openWeatherMap
        return (replay, try await DaemonProcess.start(setup), setup)
    }

    @Test("an ambiguous name: search takes the best place and counts the others; places lists them, best first")
    func ambiguous() async throws {
        let (replay, daemon, _) = try await Self.daemon()
        let feature = try await daemon.call("search", ["city": "Springfield"])
        let properties = feature["properties"]
        #expect(
            properties?["name"] == "Springfield" && properties?["state"] == "Illinois" && properties?["country"] == "US",
            "\(feature.serialized)")
        #expect(properties?["alternatives"] == .integer(4) && properties?["provider"] == "openweathermap")
        #expect(feature["id"]?.stringValue?.hasPrefix("owm:") == true, "the id OpenWeatherMap answers for the point")
        #expect(feature["geometry"]?["coordinates"]?.position == [-89.644, 39.799])

        let places = try #require(try await daemon.call("places", ["name": "springfield"])["places"]?.arrayValue)
        #expect(places.map { $0["state"]?.stringValue } == ["Illinois", "Missouri", "Massachusetts", "Ohio", "Oregon"])
        #expect(places.allSatisfy { $0["name"] == "Springfield" && $0["country"] == "US" && $0["provider"] == "openweathermap" })
        #expect(places[1]["lat"]?.doubleValue == 37.2082 && places[1]["lon"]?.doubleValue == -93.2923)
        #expect(try await daemon.call("places", ["name": "Springfield", "limit": .integer(2)])["places"]?.arrayValue?.count == 2)

        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "springfield") == 1, "the places of a name are cached: \(stats)")
        #expect(stats.deprecatedQ == 0, "\(stats)")

        let human = try await daemon.weatherctl(["search", "Springfield"])
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("Springfield, Illinois, US  "), "\(human)")
        #expect(human.stdout.hasSuffix("\n(4 more places named Springfield: weatherctl places Springfield)\n"), "\(human)")
        let listed = try await daemon.weatherctl(["places", "Springfield", "--limit", "2"])
        #expect(listed.stdout == "Springfield, Illinois, US  39.80, -89.64\nSpringfield, Missouri, US  37.21, -93.29\n", "\(listed)")
        let none = try await daemon.weatherctl(["places", "Atlantis"])
        #expect(none.status == 1 && none.stderr == "weatherctl: no place named Atlantis\n", "\(none)")
        let noneJSON = try await daemon.weatherctl(["places", "Atlantis", "--json"])
        #expect(noneJSON.status == 0 && noneJSON.stdout == "{\"places\":[]}\n", "\(noneJSON)")
    }

    @Test(
        "as one types: OpenWeatherMap's geocoder knows no \"Spring\", Open-Meteo's (asked next) lists the Springfields; with --limit 10 both merged, no place twice"
    )
    func asOneTypes() async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openWeatherMap, .openMeteo]))
        let listed = try await daemon.weatherctl(["places", "Spring"])
        let lines = listed.stdout.split(separator: "\n")
        #expect(listed.status == 0 && lines.count >= 2, "\(listed)")
        #expect(lines.allSatisfy { $0.hasPrefix("Springfield, ") }, "\(listed)")
        let spring = try #require(try await daemon.call("places", ["name": "Spring"])["places"]?.arrayValue)
        #expect(spring.allSatisfy { $0["provider"] == "open-meteo" }, "\(spring)")

        // OpenWeatherMap's geocoder gives at most 5; the rest come from Open-Meteo's, the same places once.
        let ten = try #require(
            try await daemon.call("places", ["name": "Springfield", "limit": .integer(10)])["places"]?.arrayValue)
        #expect(ten.count > 5, "\(ten)")
        #expect(Array(ten.prefix(5)).allSatisfy { $0["provider"] == "openweathermap" }, "the first geocoder's places first: \(ten)")
        let places = ten.compactMap { Place(json: $0) }
        #expect(places.count == ten.count)
        for (index, place) in places.enumerated() {
            #expect(!places[..<index].contains { $0.isSame(as: place) }, "\(place.label) twice: \(ten)")
        }
        #expect(Set(places.map(\.label)).count == places.count, "\(ten)")
        // Five or more from the first geocoder: it is enough, the next is not asked.
        let before = try await replay.stats().openMeteoRequests
        let five = try #require(try await daemon.call("places", ["name": "London"])["places"]?.arrayValue)
        #expect(five.count == 5 && five.allSatisfy { $0["provider"] == "openweathermap" }, "\(five)")
        #expect(try await replay.stats().openMeteoRequests == before)
    }

    @Test("Name, ST, CC narrows by state and country; Name, CC by country")
    func narrowing() async throws {
        let (replay, daemon, _) = try await Self.daemon()
        let missouri = try await daemon.call("search", ["city": "Springfield, MO, US"])
        #expect(
            missouri["properties"]?["state"] == "Missouri" && missouri["properties"]?["alternatives"] == .integer(0),
            "\(missouri.serialized)")
        let canada = try #require(try await daemon.call("places", ["name": "London,CA"])["places"]?.arrayValue)
        #expect(canada.count == 1 && canada.first?["country"] == "CA", "\(canada)")
        let human = try await daemon.weatherctl(["search", "Springfield,", "MO,", "US"])
        #expect(human.stdout.hasPrefix("Springfield, Missouri, US  ") && !human.stdout.contains("more places"), "\(human)")
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "springfield,mo,us") == 1, "\(stats)")
        #expect(stats.deprecatedQ == 0)
    }

    @Test("search with a place from places looks it up as given: no geocoding, named after it")
    func searchPlace() async throws {
        let (replay, daemon, _) = try await Self.daemon()
        let places = try #require(try await daemon.call("places", ["name": "Springfield"])["places"]?.arrayValue)
        let oregon = try #require(places.first { $0["state"] == "Oregon" })
        let before = try await replay.stats()
        let feature = try await daemon.call("search", ["place": oregon])
        #expect(feature["properties"]?["name"] == "Springfield" && feature["properties"]?["state"] == "Oregon", "\(feature.serialized)")
        #expect(feature["properties"]?["alternatives"] == .integer(0))
        let after = try await replay.stats()
        #expect(after.placeRequests == before.placeRequests && after.weatherRequests == before.weatherRequests + 1, "\(after)")
        let state = try await daemon.call("state")
        #expect(state["input"] == .object(["kind": "text", "city": "Springfield, Oregon, US"]), "\(state.serialized)")

        let bad = try await remoteError {
            try await daemon.call("search", ["place": .object(["name": "Nowhere", "lat": .integer(95), "lon": .integer(0)])])
        }
        #expect(bad.code == -32602, "\(bad.json.serialized)")
    }

    @Test("the places of a name survive a restart: no second geocoding request; a corrupt file is set aside")
    func keptAcrossRestart() async throws {
        let directory = try TemporaryDirectory()
        let (replay, daemon, setup) = try await Self.daemon(directory: directory)
        _ = try await daemon.call("search", ["city": "London"])
        #expect(try await daemon.terminate().status == 0)
        #expect(FileManager.default.fileExists(atPath: setup.stateDirectory + "/places.json"))

        let again = try await DaemonProcess.start(setup)
        let london = try await again.call("search", ["city": " LONDON "])
        #expect(london["properties"]?["alternatives"] == .integer(4))
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "london") == 1, "geocoded again after the restart: \(stats)")
        #expect(stats.weatherRequests == 2)
        #expect(try await again.terminate().status == 0)

        try "{\"version\": 1, \"names\": [".write(toFile: setup.stateDirectory + "/places.json", atomically: true, encoding: .utf8)
        let third = try await DaemonProcess.start(setup)
        _ = try await third.process.waitForLine(containing: "is not a place list; moved it to", on: \.stderr)
        #expect(try await third.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
        #expect(try await replay.stats().placeRequests(for: "london") == 2)
        let aside = try FileManager.default.contentsOfDirectory(atPath: setup.stateDirectory).filter {
            $0.hasPrefix("places.json.corrupt-")
        }
        #expect(aside.count == 1, "\(aside)")
    }

    @Test("a typo is not_found, and asking again within cache_ttl sends nothing")
    func typo() async throws {
        let (replay, daemon, _) = try await Self.daemon()
        for _ in 0..<3 {
            let error = try await remoteError { try await daemon.call("search", ["city": "Lodnon"]) }
            #expect(
                error.code == -32001 && error.name == "not_found" && error.message == "city not found: Lodnon", "\(error.json.serialized)")
        }
        #expect(try await daemon.call("places", ["name": "lodnon"])["places"] == .array([]))
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "lodnon") == 1 && stats.weatherRequests == 0, "\(stats)")
        let human = try await daemon.weatherctl(["search", "Lodnon"])
        #expect(human.status == 1 && human.stderr == "weatherctl: city not found: Lodnon\n", "\(human)")
    }

    @Test("geocoding spends the request budget: the places of a name, then its weather, then nothing more")
    func budget() async throws {
        let (replay, daemon, _) = try await Self.daemon(openWeatherMap: ["requests_per_minute = 3"])
        _ = try await daemon.call("places", ["name": "Zocca"])
        _ = try await daemon.call("search", ["city": "Zocca"])
        _ = try await daemon.call("places", ["name": "Paris"])
        let spent = try await remoteError { try await daemon.call("places", ["name": "Tokyo"]) }
        #expect(spent.code == -32003 && spent.name == "rate_limited", "\(spent.json.serialized)")
        let cached = try await daemon.call("search", ["city": "zocca"])
        #expect(cached["properties"]?["name"] == "Zocca", "a cached answer costs nothing")
        #expect(try await replay.stats().requests == 3)
    }

    @Test("watched cities are geocoded once, not at every refresh; a forecast by name asks by the place's point")
    func watchedCities() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, cities: ["London,GB", "Zocca"])
        setup.weatherLines = ["cache_ttl = \"0s\""]
        setup.refresh = "1s"
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        // Three rounds: the first at start, then two refreshes, each running and then settled.
        for round in 1...3 {
            try await watcher.next("round \(round) to run") { $0.isStateNotification && $0.params?["running"]?.boolValue == true }
            try await watcher.next("round \(round) to settle", where: isSettledState)
        }
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "london,gb") == 1 && stats.placeRequests(for: "zocca") == 1, "\(stats)")
        #expect(stats.weatherRequests >= 6, "\(stats)")
        let overlays = try await daemon.call("overlays")
        let london = try #require(overlays["features"]?.arrayValue?.first { $0["id"]?.stringValue == Fixtures.londonID })
        #expect(london["properties"]?["alternatives"] == .integer(0), "London,GB names one place")

        let forecast = try await daemon.call("forecast", ["city": "Springfield, MO, US", "hours": .integer(24)])
        #expect(
            forecast["properties"]?["name"] == "Springfield" && forecast["properties"]?["state"] == "Missouri", "\(forecast.serialized)")
        let after = try await replay.stats()
        #expect(after.requests(for: "forecast:lat=37.21&lon=-93.29") == 1, "\(after)")
        #expect(after.deprecatedQ == 0)
        await watcher.close()
    }

    @Test("over the web: places answers; read-only refuses places and search with -32601")
    func web() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay)
        setup.webLines = ["listen = \"127.0.0.1:0\""]
        let daemon = try await DaemonProcess.start(setup)
        let port = try await daemon.webPort()
        let socket = try await WebSocketClient.connect(port: port)
        let reply = try await socket.call(1, "places", ["name": "London", "limit": .integer(3)])
        #expect(reply["result"]?["places"]?.arrayValue?.map { $0["country"]?.stringValue } == ["GB", "CA", "US"], "\(reply.serialized)")
        #expect(try await daemon.terminate().status == 0)

        setup.webLines = ["listen = \"127.0.0.1:0\"", "read_only = true"]
        let readOnly = try await DaemonProcess.start(setup)
        let viewer = try await WebSocketClient.connect(port: try await readOnly.webPort())
        for method in ["places", "search"] {
            let refused = try await viewer.call(2, method, method == "places" ? ["name": "London"] : ["city": "London"])
            #expect(refused["error"]?["code"] == .integer(-32601), "\(method): \(refused.serialized)")
        }
        #expect(try await readOnly.call("places", ["name": "London"])["places"]?.arrayValue?.count == 5, "the socket is not read-only")
    }

    @Test("over MQTT: a places request is answered on the response topic")
    func mqtt() async throws {
        let directory = try TemporaryDirectory()
        let replay = try await ReplayServer.start()
        let broker = try await MosquittoBroker.start(in: directory)
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.useBroker(broker, device: "places1")
        let daemon = try await DaemonProcess.start(setup)
        _ = try await daemon.process.waitForLine(containing: "MQTT: connected to the broker", on: \.stderr)
        let answered = try await runCommand(
            "/usr/bin/mosquitto_rr",
            broker.clientOptions() + [
                "-t", "weatherd/places1/request", "-e", "replies/places", "-W", "20",
                "-m", #"{"jsonrpc":"2.0","id":3,"method":"places","params":{"name":"Springfield","limit":1}}"#,
            ],
            environment: TestEnvironment.childEnvironment(), timeout: .seconds(30))
        #expect(answered.status == 0, "\(answered)")
        let reply = try JSONValue.parse(Array(answered.stdout.utf8))
        #expect(reply["result"]?["places"]?.arrayValue?.first?["state"] == "Illinois", "\(reply.serialized)")
        #expect(try await daemon.terminate().status == 0)
        try await broker.stop()
    }
}
