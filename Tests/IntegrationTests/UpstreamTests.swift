import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// How the daemon uses OpenWeatherMap: cache, single-flight, connection reuse (seen from owm-replay).
@Suite("upstream")
struct UpstreamTests {
    @Test("owm-replay answers when run as an unprivileged user without capabilities (TCP_NODELAY is a TCP option, not SO_DEBUG)")
    func replayUnprivileged() async throws {
        let replay = try await ReplayServer.start(unprivileged: true)
        let body = try await httpGet(port: replay.port, path: "/data/2.5/weather?q=London&units=metric&appid=k")
        #expect(try JSONValue.parse(Array(body.utf8))["name"] == "London", "\(body)")
    }

    @Test("city lookups are cached case- and space-insensitively")
    func cache() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        for spelling in ["London", "  lONDON ", "london"] {
            #expect(try await daemon.call("search", ["city": .string(spelling)])["id"]?.stringValue == Fixtures.londonID)
        }
        for spelling in ["New York", "new  YORK"] {
            #expect(try await daemon.call("search", ["city": .string(spelling)])["properties"]?["name"] == "New York")
        }
        let stats = try await replay.stats()
        #expect(stats.placeRequests(for: "london") == 1, "\(stats)")
        #expect(stats.placeRequests(for: "new york") == 1, "\(stats)")
        #expect(stats.weatherRequests == 2 && stats.requests == 4, "\(stats)")
    }

    @Test("identical lookups in flight share one HTTP request")
    func singleFlight() async throws {
        // Tokyo answers after a second; the cache is off, so only single-flight can merge lookups.
        let replay = try await ReplayServer.start(["--delay", "Tokyo=1000"])
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.weatherLines = ["cache_ttl = \"0s\""]
        let daemon = try await DaemonProcess.start(setup)

        let socket = daemon.socketPath
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            for spelling in ["Tokyo", "tokyo", "TOKYO", " Tokyo", "Tokyo "] {
                group.addTask {
                    try await DaemonConnection.with(socketPath: socket) {
                        try await $0.call("search", ["city": .string(spelling)])["id"]?.stringValue
                    }
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(ids.count == 5)
        #expect(Set(ids).count == 1 && ids[0]?.hasPrefix("owm:") == true, "\(ids)")
        let stats = try await replay.stats()
        #expect(
            stats.placeRequests(for: "tokyo") == 1 && stats.weatherRequests == 1,
            "5 concurrent searches, 1 request for the places and 1 for the weather expected: \(stats)")

        // With the cache off, a later search is a new weather request (its places are kept for
        // geocode_ttl): the merge above was single-flight.
        _ = try await daemon.call("search", ["city": "Tokyo"])
        #expect(try await replay.stats().weatherRequests == 2)
    }

    @Test("HTTP connections to OpenWeatherMap are reused")
    func connectionReuse() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let cities = ["London", "Paris", "Berlin", "Tokyo", "Minsk", "Reykjavik"]
        for city in cities {
            _ = try await daemon.call("search", ["city": .string(city)])
        }
        let stats = try await replay.stats()
        #expect(stats.requests == 2 * cities.count, "the places and the weather of each: \(stats)")
        // This GET /_stats is one of the connections.
        let daemonConnections = stats.connections - 1
        #expect(daemonConnections < stats.requests, "libcurl should keep its connection: \(stats)")
        #expect(daemonConnections <= 2, "\(stats)")
    }
}
