import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Locations end to end: a real gpsd fed by gpsfake from NMEA logs, weatherd reading it through
/// libgps, owm-replay as OpenWeatherMap. Serialized: each test runs gpsd instances and daemons of
/// its own, and some wait on reconnect backoff, which a loaded machine would stretch.
@Suite("gpsd", .serialized)
struct GPSDTests {
    /// Where bu353s4.log's fix is, and the recorded city within 25 km of it.
    static let hamiltonFix = (lat: -37.7848, lon: 175.3149)
    static let hamiltonID = "owm:2190324"
    static let minskID = "owm:625144"

    @Test("a good fix: locate answers Hamilton's feature at the fix, the map focuses on it, weatherctl locate prints it")
    func goodFix() async throws {
        let gps = try await GPSFake.start(NMEALog.bu353s4)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: gps.port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)

        let feature = try await locate(daemon, timeout: 30)
        #expect(feature["type"] == "Feature")
        #expect(feature["id"]?.stringValue == Self.hamiltonID, "\(feature.serialized)")
        let properties = feature["properties"]
        #expect(properties?["source"] == "location")
        #expect(properties?["name"] == "Hamilton")
        #expect(properties?["country"] == "NZ")
        let fix = try #require(properties?["fix"], "\(feature.serialized)")
        expectFix(fix, near: Self.hamiltonFix, maxError: 100)
        // At the fix (whose 0.01° cell was asked), not at the station that answered.
        let position = try #require(feature["geometry"]?["coordinates"]?.position)
        #expect(position == [fix["lon"]?.doubleValue, fix["lat"]?.doubleValue].compactMap { $0 }, "\(feature.serialized)")

        let (overlays, _) = try await watcher.next("overlays focused on Hamilton") {
            $0.isOverlaysNotification && $0.params?["focus"]?.position == position
        }
        #expect(overlays.params?.featureIDs.contains(Self.hamiltonID) == true)
        let located = overlays.params?["features"]?.arrayValue?.first { $0["id"]?.stringValue == Self.hamiltonID }
        #expect(located?["properties"]?["source"] == "location")
        let (input, _) = try await watcher.next("a state with a location input") {
            $0.isStateNotification && $0.params?["input"]?["kind"] == "location"
        }
        expectNear(input.params?["input"]?["lat"]?.doubleValue, Self.hamiltonFix.lat, "input.lat")
        expectNear(input.params?["input"]?["lon"]?.doubleValue, Self.hamiltonFix.lon, "input.lon")

        let state = try await daemon.call("state")
        #expect(state["input"]?["kind"] == "location", "\(state.serialized)")
        #expect(state["gps"]?["enabled"]?.boolValue == true)
        #expect(state["gps"]?["connected"]?.boolValue == true)
        let lastFix = try #require(state["gps"]?["last_fix"], "\(state.serialized)")
        expectFix(lastFix, near: Self.hamiltonFix, maxError: 100)
        #expect(lastFix["at"]?.stringValue != nil, "\(lastFix.serialized)")
        #expect(try await daemon.call("overlays")["focus"]?.position == position)

        let human = try await daemon.weatherctl(["locate", "--timeout", "10"])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.hasPrefix("Hamilton, NZ"), "\(human)")
        let lines = human.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(human)")
        #expect(lines.last?.hasPrefix("from gpsd  ±") == true, "the source of the fix: \(human)")
        let json = try await daemon.weatherctl(["locate", "--timeout", "10", "--json"])
        #expect(json.status == 0, "\(json)")
        let printed = try JSONValue.parse(Array(json.stdout.trimmingCharacters(in: .newlines).utf8))
        #expect(printed["type"] == "Feature")
        #expect(printed["id"]?.stringValue == Self.hamiltonID)
        #expect(printed["properties"]?["source"] == "location")
        if let printedFix = printed["properties"]?["fix"] { expectFix(printedFix, near: Self.hamiltonFix, maxError: 100) }
        #expect(printed["properties"]?["fix"] != nil, "\(json)")

        await watcher.close()
        try await gps.stop()
    }

    @Test(
        "a receiver that stays (a fix every 0.05 s, all within 88 m): a watcher of state gets gps.last_fix every 10 s, not every second; each held one comes with the latest fix"
    )
    func stayingReceiver() async throws {
        let gps = try await GPSFake.start(NMEALog.staying, cycle: 0.025)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay)
        setup.gpsd = GPSDSettings(port: gps.port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(
            socketPath: daemon.socketPath, params: ["topics": .array([.string("state")]), "replay": .bool(false)])
        @Sendable func fixNumber(_ message: JSONValue) -> Int? {
            guard message.isStateNotification, let lon = message.params?["gps"]?["last_fix"]?["lon"]?.doubleValue else { return nil }
            return NMEALog.stayingFixNumber(longitude: lon)
        }
        // gpsfake paces the fixes, one every 0.05 s at most: between two notifications of the fix
        // alone, 10 s apart, the receiver sent about 200 fixes (at a notice a second, about 20).
        // Awaited as they come; 40 leaves room for a gpsfake five times slower than its pace.
        let (first, _) = try await watcher.next("a state notification with a fix", timeout: .seconds(30)) { fixNumber($0) != nil }
        let (second, skipped) = try await watcher.next("the next one", timeout: .seconds(30)) { fixNumber($0) != nil }
        #expect(skipped.isEmpty, "\(skipped)")
        let numbers = [first, second].compactMap(fixNumber)
        #expect(numbers.count == 2 && numbers[1] - numbers[0] >= 40, "fixes notified: \(numbers)")
        // Each held one is the latest fix at its time: the state then answers none older.
        let latest = try await daemon.call("state")["gps"]?["last_fix"]?["lon"]?.doubleValue
        #expect(latest.map(NMEALog.stayingFixNumber(longitude:)) ?? -1 >= numbers.last ?? 0)
        await watcher.close()
        try await gps.stop()
    }

    @Test("no fix: a receiver without a fix makes locate fail with no_fix (-32005) after its timeout")
    func noFix() async throws {
        let gps = try await GPSFake.start(NMEALog.tn200)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: gps.port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await awaitConnected(watcher, true)

        let started = ContinuousClock.now
        let error = try await remoteError {
            try await withTimeout(safetyDeadline, "locate to answer") {
                try await daemon.call("locate", ["timeout": .integer(2)])
            }
        }
        let elapsed = ContinuousClock.now - started
        #expect(error.code == -32005, "\(error.json.serialized)")
        #expect(error.name == "no_fix")
        // Not before its timeout; how long after is for a busy machine to say (withTimeout ends a hang).
        #expect(elapsed >= .milliseconds(1900), "locate answered after \(elapsed)")

        let state = try await daemon.call("state")
        #expect(state["gps"]?["connected"]?.boolValue == true, "\(state.serialized)")
        #expect(state["gps"]?["last_fix"] == JSONValue.null, "\(state.serialized)")
        #expect(state["input"]?["kind"] != "location")
        #expect(try await replay.stats().requests == 0, "no fix, no lookup")

        let ctl = try await daemon.weatherctl(["locate", "--timeout", "0.5"])
        #expect(ctl.status == 1, "\(ctl)")
        #expect(ctl.stderr.hasPrefix("weatherctl: "), "\(ctl)")
        #expect(ctl.stdout.isEmpty, "\(ctl)")

        await watcher.close()
        try await gps.stop()
    }

    @Test("poor accuracy: a fix with eph ≈ 329 m is ignored at max_horizontal_error 100, used at 500 (Minsk)")
    func poorAccuracy() async throws {
        let gps = try await GPSFake.start(NMEALog.venus634lp)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()

        // The default maximum (100 m): every fix of this log is too poor.
        let strictDirectory = try TemporaryDirectory()
        var strict = DaemonSetup(directory: strictDirectory, replay: replay)
        strict.gpsd = GPSDSettings(port: gps.port)
        let strictDaemon = try await DaemonProcess.start(strict)
        let watcher = try await Watcher.start(socketPath: strictDaemon.socketPath)
        try await awaitConnected(watcher, true)
        let error = try await remoteError { try await locate(strictDaemon, timeout: 2) }
        #expect(error.code == -32005, "\(error.json.serialized)")
        #expect(error.name == "no_fix")
        let strictState = try await strictDaemon.call("state")
        #expect(strictState["gps"]?["last_fix"] == JSONValue.null, "a rejected fix is not the last fix: \(strictState.serialized)")
        await watcher.close()

        // The same gpsd with max_horizontal_error = 500.
        let lenientDirectory = try TemporaryDirectory()
        var lenient = DaemonSetup(directory: lenientDirectory, replay: replay)
        lenient.gpsd = GPSDSettings(port: gps.port)
        lenient.gpsd?.maxHorizontalError = 500
        let lenientDaemon = try await DaemonProcess.start(lenient)
        let feature = try await locate(lenientDaemon, timeout: 30)
        let id = feature["id"]?.stringValue ?? ""
        #expect(id == Self.minskID || id.hasPrefix("pt:"), "\(feature.serialized)")
        #expect(feature["properties"]?["source"] == "location")
        let fix = try #require(feature["properties"]?["fix"], "\(feature.serialized)")
        expectFix(fix, near: (53.9196, 27.5008), maxError: 500)
        let eph = fix["horizontal_error"]?.doubleValue ?? 0
        #expect(eph > 100, "the log's eph is about 329 m: \(fix.serialized)")

        try await gps.stop()
    }

    @Test("gpsd absent at start: the daemon serves, locate has no fix; once gpsd appears it connects and locate works")
    func gpsdAbsentAtStart() async throws {
        let port = try freeTCPPort()  // nothing listens there yet
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        let (replayed, _) = try await watcher.next("the replayed state") { $0.isStateNotification }
        #expect(replayed.params?["gps"]?["enabled"]?.boolValue == true)
        #expect(replayed.params?["gps"]?["connected"]?.boolValue == false, "\(replayed.serialized)")

        #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
        #expect(try await daemon.call("state")["gps"]?["connected"]?.boolValue == false)
        let error = try await remoteError {
            try await withTimeout(safetyDeadline, "locate to answer") {
                try await daemon.call("locate", ["timeout": .integer(1)])
            }
        }
        #expect(error.code == -32005, "\(error.json.serialized)")
        #expect(error.name == "no_fix")

        let gps = try await GPSFake.start(NMEALog.bu353s4, port: port)
        defer { gps.kill() }
        try await awaitConnected(watcher, true, timeout: .seconds(15))
        let feature = try await locate(daemon, timeout: 30)
        #expect(feature["id"]?.stringValue == Self.hamiltonID, "\(feature.serialized)")
        #expect(feature["properties"]?["source"] == "location")

        await watcher.close()
        try await gps.stop()
    }

    @Test("gpsd killed and restarted: the daemon reports the loss, keeps serving, reconnects and locates again")
    func gpsdRestarted() async throws {
        var gps = try await GPSFake.start(NMEALog.bu353s4)
        let port = gps.port
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: port)
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        do {
            try await awaitConnected(watcher, true)
            #expect(try await locate(daemon, timeout: 30)["id"]?.stringValue == Self.hamiltonID)

            try await gps.stop()
            try await awaitConnected(watcher, false)
            #expect(try await daemon.call("state")["gps"]?["connected"]?.boolValue == false)
            #expect(try await daemon.call("search", ["city": "London"])["id"]?.stringValue == Fixtures.londonID)
            #expect(daemon.process.isRunning)

            gps = try await GPSFake.start(NMEALog.bu353s4, port: port)
            try await awaitConnected(watcher, true, timeout: .seconds(15))
            let feature = try await locate(daemon, timeout: 30)
            #expect(feature["id"]?.stringValue == Self.hamiltonID, "\(feature.serialized)")
            #expect(feature["properties"]?["source"] == "location")
            try await gps.stop()
        } catch {
            gps.kill()
            throw error
        }
        await watcher.close()
    }

    @Test("gpsd disabled: locate is gps_disabled (-32006) and weatherctl locate exits 1")
    func gpsdDisabled() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: try freeTCPPort(), enabled: false)
        let daemon = try await DaemonProcess.start(setup)

        let error = try await remoteError { try await locate(daemon, timeout: 1) }
        #expect(error.code == -32006, "\(error.json.serialized)")
        #expect(error.name == "gps_disabled")
        let state = try await daemon.call("state")
        #expect(state["gps"]?["enabled"]?.boolValue == false, "\(state.serialized)")
        #expect(state["gps"]?["connected"]?.boolValue == false)

        let ctl = try await daemon.weatherctl(["locate"])
        #expect(ctl.status == 1, "\(ctl)")
        #expect(ctl.stderr.hasPrefix("weatherctl: ") && ctl.stderr.contains("disabled"), "\(ctl)")
        #expect(ctl.stdout.isEmpty, "\(ctl)")
    }

    @Test("a client's coarser report while gpsd's fix is younger than location.hold: held; locate with max_age answers gpsd's")
    func reportHeldByGPSD() async throws {
        let gps = try await GPSFake.start(NMEALog.bu353s4)
        defer { gps.kill() }
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.gpsd = GPSDSettings(port: gps.port)
        let daemon = try await DaemonProcess.start(setup)

        // gpsd's fix is the fused location once a locate has it (the receiver keeps it fresh).
        _ = try await locate(daemon, timeout: 30)
        let report: JSONObject = [
            "lat": .double(Self.hamiltonFix.lat + 0.01), "lon": .double(Self.hamiltonFix.lon), "horizontal_error": .double(4000),
            "source": "browser",
        ]
        #expect(try await daemon.call("location.report", report) == .object(["accepted": .bool(false), "reason": "held"]))
        #expect(try await daemon.call("state")["location"]?["source"] == "gpsd")
        let feature = try await daemon.call("locate", ["max_age": .integer(600), "timeout": .integer(5)])
        #expect(feature["properties"]?["fix"]?["source"] == "gpsd", "\(feature.serialized)")
        try await gps.stop()
    }

    @Test("follow mode searches accepted fixes that moved at least follow_distance; without it nothing is searched")
    func followMode() async throws {
        // 3 sentences per position, 0.2 s apart: a new position (556 m further north) every 0.6 s.
        let gps = try await GPSFake.start(NMEALog.movingNorth, once: true, cycle: 0.2)
        defer { gps.kill() }

        let followReplay = try await ReplayServer.start()
        let followDirectory = try TemporaryDirectory()
        var following = DaemonSetup(directory: followDirectory, replay: followReplay)
        following.gpsd = GPSDSettings(port: gps.port)
        following.gpsd?.follow = true
        following.gpsd?.followDistance = 1000
        // The same gpsd, read by a daemon that does not follow.
        let stillReplay = try await ReplayServer.start()
        let stillDirectory = try TemporaryDirectory()
        var still = DaemonSetup(directory: stillDirectory, replay: stillReplay)
        still.gpsd = GPSDSettings(port: gps.port)
        still.gpsd?.follow = false

        let followDaemon = try await DaemonProcess.start(following)
        let stillDaemon = try await DaemonProcess.start(still)
        let followWatcher = try await Watcher.start(socketPath: followDaemon.socketPath)
        let stillWatcher = try await Watcher.start(socketPath: stillDaemon.socketPath)

        // Several searches, started by the daemon itself.
        let searched = 4
        _ = try await followWatcher.inbox.wait(
            for: "\(searched) location searches and their focused overlays; received: \(describe(followWatcher.messages.suffix(20)))",
            timeout: .seconds(20)
        ) { inbox -> Bool? in
            let points = searchedPoints(inbox.messages)
            let focused = inbox.messages.filter(isFocusedOverlays).count
            return points.count >= searched && focused >= searched - 1 ? true : nil
        }
        let messages = followWatcher.messages
        let points = searchedPoints(messages)
        for (before, after) in zip(points, points.dropFirst()) {
            #expect(after.lat > before.lat, "the track goes north: \(points)")
            let distance = metres(from: before, to: after)
            #expect(distance >= 1000, "searched points \(before) and \(after) are only \(Int(distance)) m apart: \(points)")
        }
        #expect(points.allSatisfy { abs($0.lon - 175.30) < 0.001 && $0.lat >= -37.7901 && $0.lat <= -37.49 }, "\(points)")
        let focused = messages.filter(isFocusedOverlays)
        #expect(focused.count >= searched - 1)
        for overlays in focused {
            let sources = overlays.params?["features"]?.arrayValue?.compactMap { $0["properties"]?["source"]?.stringValue } ?? []
            #expect(sources.contains("location"), "\(overlays.serialized)")
        }
        // Upstream saw one lookup per searched point at most (fewer if one came from the cache), not
        // one per fix: each lookup's point shows up in a state (which may arrive after the lookup).
        let lookups = try await followReplay.stats().requests
        #expect(lookups >= 1)
        let allPoints = try await followWatcher.inbox.wait(
            for: "a searched point in the states for each of the \(lookups) lookups"
        ) { inbox in
            let points = searchedPoints(inbox.messages)
            return points.count >= lookups ? points : nil
        }
        for (before, after) in zip(allPoints, allPoints.dropFirst()) {
            #expect(metres(from: before, to: after) >= 1000, "\(allPoints)")
        }

        // Meanwhile the other daemon saw the same fixes move over more than follow_distance and
        // searched nothing.
        _ = try await stillWatcher.inbox.wait(
            for: "fixes spanning over 1000 m at the daemon without follow; received: \(describe(stillWatcher.messages.suffix(20)))",
            timeout: .seconds(10)
        ) { inbox -> Bool? in
            let lats = inbox.messages.compactMap { lastFixLat($0) }
            guard let first = lats.first, let last = lats.last else { return nil }
            return (last - first) * 111_195 > 1100 ? true : nil
        }
        let stillMessages = stillWatcher.messages
        #expect(searchedPoints(stillMessages).isEmpty, "\(describe(stillMessages.filter { $0.params?["input"]?["kind"] == "location" }))")
        #expect(stillMessages.filter(isFocusedOverlays).isEmpty)
        #expect(try await stillDaemon.call("state")["input"] == JSONValue.null)
        #expect(try await stillReplay.stats().requests == 0)

        await followWatcher.close()
        await stillWatcher.close()
        try await gps.stop()
    }
}

// MARK: - Helpers

/// A fix object (`properties.fix` or `state.gps.last_fix`) near `position` with a plausible error and mode.
private func expectFix(
    _ fix: JSONValue, near position: (lat: Double, lon: Double), maxError: Double, sourceLocation: SourceLocation = #_sourceLocation
) {
    expectNear(fix["lat"]?.doubleValue, position.lat, "fix.lat in \(fix.serialized)", sourceLocation: sourceLocation)
    expectNear(fix["lon"]?.doubleValue, position.lon, "fix.lon in \(fix.serialized)", sourceLocation: sourceLocation)
    let error = fix["horizontal_error"]?.doubleValue
    #expect(error != nil && error! > 0 && error! <= maxError, "horizontal_error in \(fix.serialized)", sourceLocation: sourceLocation)
    let mode = fix["mode"]?.intValue
    #expect(mode == 2 || mode == 3, "mode in \(fix.serialized)", sourceLocation: sourceLocation)
}

private func expectNear(
    _ value: Double?, _ expected: Double, _ what: String, tolerance: Double = 0.001, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        value.map { abs($0 - expected) <= tolerance } == true, "\(what): \(value.map { "\($0)" } ?? "missing"), expected \(expected)",
        sourceLocation: sourceLocation)
}

/// The points of the location searches the state notifications show, in order, each once.
private func searchedPoints(_ messages: [JSONValue]) -> [(lat: Double, lon: Double)] {
    var points: [(lat: Double, lon: Double)] = []
    for message in messages where message.isStateNotification {
        guard let input = message.params?["input"], input["kind"] == "location",
            let lat = input["lat"]?.doubleValue, let lon = input["lon"]?.doubleValue
        else { continue }
        if let last = points.last, last.lat == lat, last.lon == lon { continue }
        points.append((lat, lon))
    }
    return points
}

private func isFocusedOverlays(_ message: JSONValue) -> Bool {
    message.isOverlaysNotification && message.params?["focus"]?.position?.count == 2
}

/// `gps.last_fix.lat` of a state notification.
private func lastFixLat(_ message: JSONValue) -> Double? {
    guard message.isStateNotification else { return nil }
    return message.params?["gps"]?["last_fix"]?["lat"]?.doubleValue
}

/// Great-circle distance in metres.
private func metres(from a: (lat: Double, lon: Double), to b: (lat: Double, lon: Double)) -> Double {
    let radians = Double.pi / 180
    let dLat = (b.lat - a.lat) * radians
    let dLon = (b.lon - a.lon) * radians
    let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.lat * radians) * cos(b.lat * radians) * sin(dLon / 2) * sin(dLon / 2)
    return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
}
