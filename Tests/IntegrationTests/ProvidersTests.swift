import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Both weather providers end to end: the real daemon asking owm-replay as OpenWeatherMap and as
/// Open-Meteo (one port, faults scoped per service), in the order of `weather.providers`.
///
/// Without an OpenWeatherMap key and with `providers = ["openweathermap"]` the daemon exits 78:
/// ConfigCheckTests ("no API key anywhere and OpenWeatherMap the only provider") covers that.
@Suite("providers: no OpenWeatherMap key", .processTimeLimit)
struct ProvidersNoKeyTests {
    @Test("no key at all: one notice, then every method answers from Open-Meteo; state.providers says why OpenWeatherMap is left out")
    func noKeyAtAll() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.apiKey = nil
        setup.providers = nil  // the daemon's default: ["openweathermap", "open-meteo"]
        // No key file either (the default path may exist on a developer's machine).
        setup.openWeatherMapLines = ["api_key_file = \"\(directory.file("no-such-key"))\""]
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)

        let london = try await daemon.call("search", ["city": "London"])
        #expect(london["id"] == "geonames:2643743" && london.provider == "open-meteo", "\(london.serialized)")
        #expect(london["properties"]?["name"] == "London" && london["properties"]?["country"] == "GB")
        #expect(london["properties"]?["alternatives"] == .integer(4), "Open-Meteo knows the five Londons too")

        let places = try #require(try await daemon.call("places", ["name": "Springfield", "limit": .integer(3)])["places"]?.arrayValue)
        #expect(places.count == 3 && places.allSatisfy { $0["provider"] == "open-meteo" }, "\(places)")

        let forecast = try await daemon.call("forecast", ["city": "Paris", "hours": .integer(6)])
        #expect(forecast["id"] == "geonames:2988507" && forecast.provider == "open-meteo", "\(forecast.serialized)")
        #expect(forecast["properties"]?["forecast"]?.arrayValue?.count == 6)

        #expect(try await daemon.call("region", regionParams(-30, -140)) == .object(["accepted": .bool(true)]))
        let (_, gridMessages) = try await watcher.next("the grid to settle") {
            isSettledState($0) && isRegionState($0, lat: -30, lon: -140)
        }
        let grid = try #require(gridMessages.last(where: \.isOverlaysNotification)?.params, "the grid landed no overlays")
        #expect(grid.features.count == 9 && grid.features.allSatisfy { $0.provider == "open-meteo" }, "\(grid.serialized)")

        let added = try await daemon.call("cities.add", ["city": "Zocca"])
        #expect(added == .object(["cities": .array(["Zocca"])]))
        let overlays = try await daemon.call("overlays")
        let zocca = try #require(overlays.features.first { $0["properties"]?["source"] == "city" }, "\(overlays.serialized)")
        #expect(zocca["id"] == "geonames:3163858" && zocca.provider == "open-meteo", "\(zocca.serialized)")

        let state = try await daemon.call("state")
        let statuses = try #require(state["providers"]?.arrayValue)
        #expect(statuses.count == 2, "\(state.serialized)")
        #expect(
            statuses.first
                == .object([
                    "name": "openweathermap", "usable": .bool(false), "used_minute": .integer(0), "used_day": .integer(0),
                    "blocked_until": .null, "error": "no API key",
                ]), "\(state.serialized)")
        #expect(statuses.last?["name"] == "open-meteo" && statuses.last?["usable"] == .bool(true), "\(state.serialized)")
        #expect(statuses.last?["error"] == .null && (statuses.last?["used_minute"]?.intValue ?? 0) > 0, "\(state.serialized)")
        #expect(state["phase"] == "populated", "\(state.serialized)")
        // state.budget is the first provider that has its key.
        #expect(state["budget"]?["requests_per_minute"] == .integer(600), "Open-Meteo's minute budget: \(state.serialized)")
        let stateLine = try await daemon.weatherctl(["state"])
        #expect(stateLine.stdout.contains("providers openweathermap (no API key), open-meteo ok"), "\(stateLine)")

        let human = try await daemon.weatherctl(["search", "London"])
        #expect(human.status == 0, "\(human)")
        let lines = human.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("London, England, GB  ") == true, "\(human)")
        #expect(lines.dropLast().last == "Weather data by Open-Meteo.com (CC BY 4.0)" && lines.last == "", "the credit line last: \(human)")
        let forecastLines = try await daemon.weatherctl(["forecast", "Paris", "--hours", "3"])
        #expect(
            forecastLines.status == 0 && forecastLines.stdout.hasSuffix("\nWeather data by Open-Meteo.com (CC BY 4.0)\n"),
            "\(forecastLines)")
        let json = try await daemon.weatherctl(["search", "London", "--json"])
        #expect(json.status == 0 && !json.stdout.contains("Open-Meteo.com"), "\(json)")
        #expect(try JSONValue.parse(Array(json.stdout.utf8)).provider == "open-meteo", "the output is the Feature alone: \(json)")

        let stats = try await replay.stats()
        #expect(stats.requests == 0, "nothing may go to OpenWeatherMap without a key: \(stats)")
        let notices = daemon.stderrText.split(separator: "\n").filter { $0.contains("no OpenWeatherMap API key") }
        #expect(
            notices.count == 1 && notices.allSatisfy { $0.contains("OWM_API_KEY") && $0.contains("notice") },
            "one notice: \(notices.joined(separator: "\n"))")
        await watcher.close()
    }
}

@Suite("providers: failover", .processTimeLimit)
struct ProvidersFailoverTests {
    /// The first provider fails in one way; the other answers.
    struct FailoverCase: Sendable, CustomStringConvertible {
        var failing: Provider
        var fault: String
        var parameters: [String: String] = [:]
        /// The failing provider's `timeout` is set to 1 s (for `hang`).
        var shortTimeout = false
        /// What its `state.providers` entry's `error` holds.
        var error: [String]
        /// A 429: `blocked_until` this many seconds after the failure.
        var blockedFor: Int?

        var description: String {
            "\(failing.displayName) \(fault)" + (parameters["retry_after"].map { " (Retry-After \($0))" } ?? "")
        }
        var providers: [Provider] { [failing, failing.other] }
    }

    static let cases: [FailoverCase] = [
        FailoverCase(failing: .openWeatherMap, fault: "500", error: ["OpenWeatherMap answered HTTP 500"]),
        FailoverCase(failing: .openWeatherMap, fault: "503", error: ["OpenWeatherMap answered HTTP 503"]),
        FailoverCase(failing: .openWeatherMap, fault: "hang", shortTimeout: true, error: ["timed out"]),
        FailoverCase(
            failing: .openWeatherMap, fault: "429", parameters: ["retry_after": "30"],
            error: ["rate limit reached (HTTP 429)"], blockedFor: 30),
        FailoverCase(failing: .openWeatherMap, fault: "429", error: ["rate limit reached (HTTP 429)"], blockedFor: 60),
        FailoverCase(failing: .openWeatherMap, fault: "401", error: ["the API key was rejected"]),
        FailoverCase(failing: .openMeteo, fault: "500", error: ["Open-Meteo answered HTTP 500"]),
        FailoverCase(failing: .openMeteo, fault: "429", error: ["rate limit reached (HTTP 429)"], blockedFor: 60),
        FailoverCase(failing: .openMeteo, fault: "401", error: ["the API key was rejected"]),
        FailoverCase(failing: .openMeteo, fault: "hang", shortTimeout: true, error: ["timed out"]),
        FailoverCase(
            failing: .openMeteo, fault: "400",
            error: ["Open-Meteo refused the request: Bad Request (a fault set at owm-replay)"]),
    ]

    @Test(
        "the first provider fails: the other answers the same search; the next search within its backoff or block goes straight to the other",
        arguments: cases)
    func failover(_ failure: FailoverCase) async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay, providers: failure.providers)
        if failure.shortTimeout {
            let timeout = ["timeout = \"1s\""]
            if failure.failing == .openWeatherMap { setup.openWeatherMapLines = timeout } else { setup.openMeteoLines = timeout }
        }
        let daemon = try await DaemonProcess.start(setup)
        let failing = failure.failing
        let answering = failing.other
        try await replay.setFault(failing, failure.fault, failure.parameters)

        let sentAt = Date()
        let london = try await daemon.call("search", ["city": "London"])
        let failedAt = Date()
        #expect(london.provider == answering.rawValue, "\(london.serialized)")
        #expect(london["id"] == (answering == .openMeteo ? "geonames:2643743" : "owm:2643743"), "\(london.serialized)")
        #expect(london["properties"]?["name"] == "London" && london["properties"]?["country"] == "GB", "\(london.serialized)")
        // London's places were asked of the failing provider, then of the other; its weather only of
        // the other (the failing one was left out by then).
        let afterLondon = try await replay.stats()
        #expect(afterLondon.requests(to: failing) == 1 && afterLondon.requests(to: answering) == 2, "\(afterLondon)")
        if failure.fault == "hang" { try await replay.waitForHanging(0) }  // given up at the timeout, its connection closed
        #expect(daemon.stderrText.contains("asking \(answering.displayName) for places named London"), "\(daemon.stderrText)")

        let statuses = try await daemon.providerStatuses()
        #expect(statuses.map { $0["name"]?.stringValue } == failure.providers.map(\.rawValue))
        let failed = try #require(statuses.first)
        #expect(failed["usable"] == .bool(false), "\(failed.serialized)")
        let error = failed["error"]?.stringValue ?? ""
        #expect(failure.error.allSatisfy { error.contains($0) } && error.hasPrefix(failure.error[0]), "\(failed.serialized)")
        if let blockedFor = failure.blockedFor {
            let until = try #require(rfc3339UTC(failed["blocked_until"]?.stringValue), "\(failed.serialized)")
            // The 429 came between the two instants (whole seconds in blocked_until).
            let earliest = sentAt.addingTimeInterval(Double(blockedFor) - 1)
            let latest = failedAt.addingTimeInterval(Double(blockedFor) + 1)
            #expect(
                until >= earliest && until <= latest,
                "blocked until \(until), sent at \(sentAt), answered at \(failedAt): \(failed.serialized)")
        } else {
            #expect(failed["blocked_until"] == .null, "a backoff is no block: \(failed.serialized)")
        }
        #expect(statuses.last?["usable"] == .bool(true) && statuses.last?["error"] == .null, "\(statuses)")

        // Within the backoff (10 s) or the block, the failing provider is not asked at all.
        let paris = try await daemon.call("search", ["city": "Paris"])
        #expect(paris.provider == answering.rawValue && paris["properties"]?["name"] == "Paris", "\(paris.serialized)")
        let afterParis = try await replay.stats()
        #expect(afterParis.requests(to: failing) == 1, "the failing provider was asked again: \(afterParis)")
        #expect(afterParis.requests(to: answering) == 4, "\(afterParis)")
    }

    @Test(
        "a 429 with Retry-After 2 s: Open-Meteo answers meanwhile; once the block ends (a state notification) OpenWeatherMap is first again"
    )
    func blockEnds() async throws {
        try await Self.recovers(after: "429", ["retry_after": "2"], lasting: .seconds(2))
    }

    @Test("a 500: OpenWeatherMap is left out for its 10 s backoff, then (a state notification) first again")
    func backoffEnds() async throws {
        try await Self.recovers(after: "500", lasting: .seconds(10))
    }

    /// OpenWeatherMap fails with `fault` (then the fault is cleared); Open-Meteo answers; a state
    /// notification says when OpenWeatherMap is usable again, not before `lasting`; then it answers.
    static func recovers(after fault: String, _ parameters: [String: String] = [:], lasting: Duration) async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openWeatherMap, .openMeteo]))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath, params: ["topics": .array(["state"])])
        try await watcher.next("the replayed state", where: isSettledState)
        try await replay.setFault(.openWeatherMap, fault, parameters)
        let sent = ContinuousClock.now
        let london = try await daemon.call("search", ["city": "London"])
        #expect(london.provider == "open-meteo", "\(london.serialized)")
        try await replay.clearFaults()

        let isOpenWeatherMapUsable: @Sendable (JSONValue, Bool) -> Bool = { message, usable in
            message.isStateNotification && message.params?.providerStatus(.openWeatherMap)?["usable"] == .bool(usable)
        }
        let (failed, _) = try await watcher.next("a state with OpenWeatherMap not usable") { isOpenWeatherMapUsable($0, false) }
        #expect(
            failed.params?.providerStatus(.openWeatherMap)?["error"]?.stringValue?.hasPrefix(
                fault == "429" ? "rate limit reached" : "OpenWeatherMap answered HTTP") == true,
            "\(failed.serialized)")
        #expect((failed.params?.providerStatus(.openWeatherMap)?["blocked_until"] != .null) == (fault == "429"), "\(failed.serialized)")
        // Meanwhile every lookup goes to Open-Meteo, though the fault is gone. The failure came after
        // `sent`, so an answer before `sent + lasting` was asked and answered within the block or
        // backoff; one after it (a machine slow enough) could be OpenWeatherMap's, and says nothing.
        let paris = try await daemon.call("search", ["city": "Paris"])
        let parisWithin = ContinuousClock.now - sent < lasting
        if parisWithin { #expect(paris.provider == "open-meteo", "\(paris.serialized)") }

        // The end of the block or backoff is an event: awaited without a deadline of its own (the
        // suite's time limit ends a hang); that it came no earlier than `lasting` is checked.
        let (recovered, _) = try await watcher.next("a state with OpenWeatherMap usable again", timeout: nil) {
            isOpenWeatherMapUsable($0, true)
        }
        let waited = ContinuousClock.now - sent
        #expect(waited >= lasting, "usable again \(waited) after the failure")
        let status = recovered.params?.providerStatus(.openWeatherMap)
        #expect(status?["error"] == .null && status?["blocked_until"] == .null, "\(recovered.serialized)")
        let meanwhile = try await replay.stats()
        let askedMeanwhile = paris.provider == "openweathermap" && !parisWithin ? 3 : 1
        #expect(
            meanwhile.requests == askedMeanwhile,
            "OpenWeatherMap was asked during its \(fault == "429" ? "block" : "backoff"): \(meanwhile)")

        let tokyo = try await daemon.call("search", ["city": "Tokyo"])
        #expect(tokyo.provider == "openweathermap" && tokyo["id"] == .string(Fixtures.tokyoID), "\(tokyo.serialized)")
        let after = try await replay.stats()
        #expect(
            after.requests == meanwhile.requests + 2 && after.openMeteoRequests == meanwhile.openMeteoRequests,
            "Tokyo's places and weather from OpenWeatherMap: \(after)")
        await watcher.close()
    }

    @Test("none usable: a failing provider is asked anyway, a blocked one never; all blocked is rate_limited at once, nothing sent")
    func noneUsable() async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openWeatherMap, .openMeteo]))
        try await replay.setFault(.openWeatherMap, "429", ["retry_after": "30"])
        try await replay.setFault(.openMeteo, "500")
        let london = try await remoteError { try await daemon.call("search", ["city": "London"]) }
        #expect(london.code == -32004 && london.json["data"]?["provider"] == "open-meteo", "\(london.json.serialized)")
        var stats = try await replay.stats()
        #expect(stats.requests == 1 && stats.openMeteoRequests == 1, "\(stats)")

        // OpenWeatherMap is blocked, Open-Meteo in its backoff: Open-Meteo is asked anyway.
        let paris = try await remoteError { try await daemon.call("search", ["city": "Paris"]) }
        #expect(paris.code == -32004 && paris.json["data"]?["provider"] == "open-meteo", "\(paris.json.serialized)")
        stats = try await replay.stats()
        #expect(stats.requests == 1, "the block was overridden: \(stats)")
        #expect(stats.openMeteoRequests == 2, "the failing provider was not asked though none was usable: \(stats)")
        try await replay.clearFaults()
        let tokyo = try await daemon.call("search", ["city": "Tokyo"])
        #expect(tokyo.provider == "open-meteo", "\(tokyo.serialized)")
        stats = try await replay.stats()
        #expect(stats.requests == 1 && stats.openMeteoRequests == 4, "\(stats)")

        // Both blocked: refused at once, nothing sent.
        try await replay.setFault(.openMeteo, "429", ["retry_after": "20"])
        let berlin = try await remoteError { try await daemon.call("search", ["city": "Berlin"]) }
        #expect(berlin.code == -32003 && berlin.json["data"]?["provider"] == "open-meteo", "\(berlin.json.serialized)")
        #expect(berlin.json["data"]?["retry_after"] == .integer(20), "\(berlin.json.serialized)")
        let blocked = try await replay.stats()
        #expect(blocked.requests == 1 && blocked.openMeteoRequests == 5, "\(blocked)")
        let minsk = try await remoteError { try await daemon.call("search", ["city": "Minsk"]) }
        #expect(minsk.code == -32003 && minsk.name == "rate_limited", "\(minsk.json.serialized)")
        let wait = minsk.json["data"]?["retry_after"]?.intValue ?? 0
        #expect((1...30).contains(wait), "retry_after \(wait): \(minsk.json.serialized)")
        let after = try await replay.stats()
        #expect(
            after.requests == blocked.requests && after.openMeteoRequests == blocked.openMeteoRequests,
            "sent while both were blocked: \(after)")
        let statuses = try await daemon.providerStatuses()
        #expect(statuses.allSatisfy { $0["usable"] == .bool(false) && $0["blocked_until"] != .null }, "\(statuses)")
    }

    @Test(
        "both failed once, then OpenWeatherMap answers 500 while Open-Meteo, still in its backoff, is healthy again: the search succeeds from Open-Meteo"
    )
    func backingOffAskedBeforeFailing() async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openWeatherMap, .openMeteo]))
        try await replay.setFault(.openWeatherMap, "500")
        try await replay.setFault(.openMeteo, "500")
        let london = try await remoteError { try await daemon.call("search", ["city": "London"]) }
        #expect(london.code == -32004 && london.json["data"]?["provider"] == "open-meteo", "\(london.json.serialized)")

        // Both back off now; asked in order, OpenWeatherMap answers and is healthy again. Open-Meteo
        // is not needed, so it still backs off.
        try await replay.clearFaults()
        let paris = try await daemon.call("search", ["city": "Paris"])
        #expect(paris.provider == "openweathermap", "\(paris.serialized)")
        let healed = try await replay.stats()
        #expect(healed.requests == 3 && healed.openMeteoRequests == 1, "\(healed)")

        try await replay.setFault(.openWeatherMap, "500")
        let tokyo = try await daemon.call("search", ["city": "Tokyo"])
        #expect(tokyo.provider == "open-meteo" && tokyo["properties"]?["name"] == "Tokyo", "\(tokyo.serialized)")
        let after = try await replay.stats()
        #expect(after.requests == 4, "Tokyo's places were asked of OpenWeatherMap once: \(after)")
        #expect(after.openMeteoRequests == 3, "Tokyo's places and weather from Open-Meteo: \(after)")
    }

    @Test("Open-Meteo's daily budget spent: the third upstream request goes to OpenWeatherMap; state.providers says so")
    func dailyBudgetSpent() async throws {
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [.openMeteo, .openWeatherMap])
        setup.openMeteoLines = ["requests_per_day = 2"]
        let daemon = try await DaemonProcess.start(setup)

        let london = try await daemon.call("search", ["city": "London"])
        #expect(london.provider == "open-meteo", "\(london.serialized)")
        let spent = try await replay.stats()
        #expect(spent.openMeteoRequests == 2 && spent.requests == 0, "\(spent)")

        let paris = try await daemon.call("search", ["city": "Paris"])
        #expect(paris.provider == "openweathermap" && paris["id"] == .string(Fixtures.parisID), "\(paris.serialized)")
        let after = try await replay.stats()
        #expect(after.openMeteoRequests == 2, "a request beyond Open-Meteo's daily budget: \(after)")
        #expect(after.placeRequests(for: "paris") == 1 && after.weatherRequests == 1, "\(after)")

        let statuses = try await daemon.providerStatuses()
        let openMeteo = try #require(statuses.first)
        #expect(openMeteo["name"] == "open-meteo" && openMeteo["usable"] == .bool(false), "\(openMeteo.serialized)")
        #expect(openMeteo["error"] == "request budget of 2 a day is spent", "\(openMeteo.serialized)")
        #expect(openMeteo["used_day"] == .integer(2), "\(openMeteo.serialized)")
        let until = try #require(rfc3339UTC(openMeteo["blocked_until"]?.stringValue), "when a request frees: \(openMeteo.serialized)")
        #expect(until.timeIntervalSinceNow > 86_000 && until.timeIntervalSinceNow <= 86_400, "\(openMeteo.serialized)")
        #expect(statuses.last?["usable"] == .bool(true) && statuses.last?["used_minute"] == .integer(2), "\(statuses)")
    }

    @Test("not_found is final: an unknown name on the first provider is -32001, the second is never asked", arguments: Provider.allCases)
    func notFoundIsFinal(_ first: Provider) async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [first, first.other]))
        let error = try await remoteError { try await daemon.call("search", ["city": "Atlantis"]) }
        #expect(
            error.code == -32001 && error.name == "not_found" && error.message == "city not found: Atlantis", "\(error.json.serialized)")
        let stats = try await replay.stats()
        #expect(stats.requests(to: first) == 1, "\(stats)")
        #expect(stats.requests(to: first.other) == 0, "the second provider was asked: \(stats)")
        let statuses = try await daemon.providerStatuses()
        #expect(statuses.allSatisfy { $0["usable"] == .bool(true) && $0["error"] == .null }, "not_found is no failure: \(statuses)")
    }

    @Test("both failing: the error is the last provider's, its code, message and data.provider", arguments: Provider.allCases)
    func bothFailing(_ first: Provider) async throws {
        let replay = try await ReplayServer.start()
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: try TemporaryDirectory(), replay: replay, providers: [first, first.other]))
        // Each fails differently, so the error tells whose it is.
        try await replay.setFault(.openWeatherMap, "401")
        try await replay.setFault(.openMeteo, "503")
        let error = try await remoteError { try await daemon.call("search", ["city": "London"]) }
        switch first.other {
        case .openMeteo:
            #expect(error.code == -32004 && error.name == "upstream_unavailable", "\(error.json.serialized)")
            #expect(error.message == "Open-Meteo is unavailable: Open-Meteo answered HTTP 503", "\(error.json.serialized)")
        case .openWeatherMap:
            #expect(error.code == -32002 && error.name == "unauthorized", "\(error.json.serialized)")
            #expect(error.message == "OpenWeatherMap rejected the API key", "\(error.json.serialized)")
        }
        #expect(error.json["data"]?["provider"] == .string(first.other.rawValue), "\(error.json.serialized)")
        let stats = try await replay.stats()
        #expect(stats.requests == 1 && stats.openMeteoRequests == 1, "each asked once: \(stats)")
        let state = try await daemon.call("state")
        #expect(state["phase"] == "error" && state["error"]?["code"] == .integer(Int64(error.code)), "\(state.serialized)")
        #expect(state["providers"]?.arrayValue?.allSatisfy { $0["usable"] == .bool(false) } == true, "\(state.serialized)")
    }
}
