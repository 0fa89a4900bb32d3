import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// Map regions end to end: `region` events from clients, the debounce, the grid of lookups against
/// owm-replay, and the one search stream in which the latest input wins.
///
/// The regions lie over open ocean (far from every recorded city), so each grid point is answered
/// with a synthesized point of its own (`id` 0, feature id `pt:…`).
@Suite("region", .processTimeLimit)
struct RegionTests {
    @Test("a drag of 100 region events (notifications and requests) costs one grid: 9 lookups, one overlays change")
    func dragCostsOneGrid() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        // No watched cities: nothing but the grid goes upstream. The defaults: 250 ms, around 1.
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay, cities: []))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.awaitStartUpRound()
        let before = try await replay.stats()
        #expect(before.requests == 0, "\(before)")

        // 100 events, the centre 0.02° further each time; even ones are notifications (no id), odd
        // ones requests. All in one write, so the daemon reads them back to back.
        let start = (lat: -30.0, lon: -140.0)
        let centres = (0..<100).map { (lat: start.lat + 0.02 * Double($0), lon: start.lon + 0.02 * Double($0)) }
        let lines = centres.enumerated().map { index, centre in
            let params = #""params":{"center":{"lat":\#(centre.lat),"lon":\#(centre.lon)}}"#
            return index.isMultiple(of: 2)
                ? #"{"jsonrpc":"2.0","method":"region",\#(params)}"#
                : #"{"jsonrpc":"2.0","id":\#(index),"method":"region",\#(params)}"#
        }
        let socket = try RawSocket(path: daemon.socketPath)
        try socket.send(lines.joined(separator: "\n"))
        // The requests are answered at once (in any order: the daemon runs a connection's requests
        // concurrently); the notifications are not answered at all.
        var replied: [Int] = []
        for _ in 0..<50 {
            let line = try #require(try await socket.readLine(), "the daemon closed the connection")
            let reply = try JSONValue.parse(Array(line.utf8))
            #expect(reply["result"] == JSONValue.object(["accepted": .bool(true)]), "\(line)")
            replied.append(reply["id"]?.intValue ?? -1)
        }
        #expect(replied.sorted() == Array(stride(from: 1, to: 100, by: 2)), "replies: \(replied)")
        try socket.send(#"{"jsonrpc":"2.0","id":"after","method":"version"}"#)
        let afterLine = try #require(try await socket.readLine())
        #expect(try JSONValue.parse(Array(afterLine.utf8))["id"] == "after", "a notification was answered: \(afterLine)")

        // One grid runs, once the drag has been quiet for the debounce.
        let (settled, skipped) = try await watcher.next("the grid to settle") {
            isSettledState($0) && $0.params?["input"]?["kind"] == "region"
        }
        #expect(settled.params?["phase"] == "populated", "\(settled.serialized)")
        #expect(settled.params?["pending"]?.intValue == 0)
        let searched = try #require(
            centres.last { isRegionInput(settled.params?["input"], lat: $0.lat, lon: $0.lon) },
            "the grid is for none of the drag's centres: \(settled.serialized)")
        let runningStates = skipped.filter { $0.isStateNotification && $0.params?["running"]?.boolValue == true }
        #expect(
            runningStates.allSatisfy { isRegionInput($0.params?["input"], lat: searched.lat, lon: searched.lon) },
            "one grid, for one centre: \(describe(runningStates))")
        // The spec: inputs are merged in arrival order, so the drag's last centre is the one searched.
        let last = centres.last!
        #expect(searched == last, "searched \(searched), the drag ended at \(last)")
        let overlaysChanges = skipped.filter { $0.isOverlaysNotification }
        #expect(overlaysChanges.count == 1, "one overlays change for the whole drag: \(describe(overlaysChanges))")
        let overlays = try #require(overlaysChanges.last?.params)
        #expect(overlays["focus"] == JSONValue.null, "a region never moves the map")
        expectGrid(overlays, centre: searched)

        let after = try await replay.stats()
        #expect(after.requests - before.requests == 9, "one grid of 9 lookups: \(after)")
        let queries = newQueries(before, after)
        #expect(queries.count == 9, "\(queries)")
        #expect(queries.contains { isQuery($0, lat: searched.lat, lon: searched.lon) }, "the centre was looked up: \(queries)")

        // The features are the grid's points, each at its own position and pt: id, each asked upstream
        // as its 0.01° cell: the cells asked are the features' cells.
        let ids = overlays.featureIDs
        let featureCells = overlays.features.compactMap { $0["geometry"]?["coordinates"]?.position.map { cell(lat: $0[1], lon: $0[0]) } }
        #expect(Set(featureCells) == Set(queries.compactMap(cell(ofQuery:))), "features \(ids) vs the cells asked \(queries)")
        #expect(
            overlays.features.allSatisfy { feature in
                feature["geometry"]?["coordinates"]?.position.map {
                    feature["id"]?.stringValue == "pt:\(decimal4($0[1])),\(decimal4($0[0]))"
                }
                    ?? false
            }, "each ocean point's id is its own position: \(ids)")
        #expect(ids.count == 9, "nine distinct ocean points: \(ids)")

        // Nothing else follows: the watcher saw only this grid's changes, and no region event is
        // still being handled on the drag's connection (a later reply would come first).
        #expect(try await daemon.call("overlays")["seq"] == overlays["seq"])
        try socket.send(#"{"jsonrpc":"2.0","id":"settled","method":"version"}"#)
        let settledLine = try #require(try await socket.readLine())
        #expect(try JSONValue.parse(Array(settledLine.utf8))["id"] == "settled", "\(settledLine)")
        let final = try await replay.stats()
        #expect(final.requests == after.requests, "nothing asked since the grid: \(final)")
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }

    @Test("a region search runs (running, input region, pending > 0) and settles (not running, populated)")
    func stateRunsAndSettles() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)

        let accepted = try await daemon.call("region", region(-20, -120, span: (2, 2)))
        #expect(accepted == JSONValue.object(["accepted": .bool(true)]))

        let (running, _) = try await watcher.next("a running region state") {
            $0.isStateNotification && $0.params?["running"]?.boolValue == true
        }
        let state = try #require(running.params)
        #expect(isRegionInput(state["input"], lat: -20, lon: -120), "\(state.serialized)")
        #expect(
            state["input"]?["span"]?["lat"]?.doubleValue == 2 && state["input"]?["span"]?["lon"]?.doubleValue == 2,
            "\(state.serialized)")
        #expect((state["pending"]?.intValue ?? 0) > 0, "\(state.serialized)")
        #expect(state["phase"] == "loading")

        let (settled, _) = try await watcher.next("the region search to settle", where: isSettledState)
        #expect(settled.params?["running"]?.boolValue == false)
        #expect(settled.params?["phase"] == "populated", "\(settled.serialized)")
        #expect(settled.params?["pending"]?.intValue == 0)
        #expect(settled.params?["error"] == JSONValue.null)
        #expect(isRegionInput(settled.params?["input"], lat: -20, lon: -120), "\(settled.serialized)")
        // Every state in between is running (pending > 0) until the settled one.
        let states = watcher.messages.filter(\.isStateNotification)
        let between = states.drop { $0 != running }.dropFirst().prefix { $0 != settled }
        #expect(
            between.allSatisfy { $0.params?["running"]?.boolValue == true && ($0.params?["pending"]?.intValue ?? 0) > 0 },
            "\(describe(Array(between)))")
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }

    @Test("a slow earlier search never replaces a faster later one; its requester still gets its answer")
    func slowEarlierSearchLoses() async throws {
        let replay = try await ReplayServer.start(["--delay", "London=1500"])
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)

        let london = try RawSocket(path: daemon.socketPath)
        try london.send(#"{"jsonrpc":"2.0","id":1,"method":"search","params":{"city":"London"}}"#)
        // London is in the stream before Paris is sent.
        try await watcher.next("London's search to start") {
            $0.isStateNotification && $0.params?["input"]?["city"] == "London" && $0.params?["running"]?.boolValue == true
        }
        let paris = try await daemon.call("search", ["city": "Paris"])
        #expect(paris["id"]?.stringValue == Fixtures.parisID)
        let (parisOverlays, _) = try await watcher.next("the overlays of Paris") {
            $0.isOverlaysNotification && $0.params?["focus"]?.position == Fixtures.parisPosition
        }
        #expect(parisOverlays.params?.featureIDs == [Fixtures.parisID])

        // London's requester gets London.
        let line = try #require(try await london.readLine(timeout: .seconds(10)), "the daemon closed London's connection")
        let londonReply = try JSONValue.parse(Array(line.utf8))
        #expect(londonReply["id"]?.intValue == 1)
        #expect(londonReply["result"]?["id"]?.stringValue == Fixtures.londonID, "\(line)")
        #expect(londonReply["result"]?["properties"]?["source"] == "text")

        // London settled before its reply; its settled state (pending 0) follows anything it published.
        let (settled, afterParis) = try await watcher.next("the state to settle after London") {
            isSettledState($0) && $0.params?["input"]?["city"] == "Paris"
        }
        #expect(settled.params?["phase"] == "populated")
        let landed = afterParis.filter {
            $0.isOverlaysNotification
                && ($0.params?.featureIDs.contains(Fixtures.londonID) == true || $0.params?["focus"]?.position == Fixtures.londonPosition)
        }
        #expect(landed.isEmpty, "London's late result landed: \(describe(landed))")
        #expect(afterParis.filter(\.isOverlaysNotification).isEmpty, "\(describe(afterParis))")

        let overlays = try await daemon.call("overlays")
        #expect(overlays["focus"]?.position == Fixtures.parisPosition, "\(overlays.serialized)")
        #expect(overlays.featureIDs == [Fixtures.parisID])
        let state = try await daemon.call("state")
        #expect(state["phase"] == "populated")
        #expect(state["input"] == JSONValue.object(["kind": "text", "city": "Paris"]), "\(state.serialized)")
        #expect(state["running"]?.boolValue == false)
        await watcher.close()
    }

    @Test("a text search during a slow grid wins; the grid's queued lookups are never sent, its answers never land")
    func textSearchBeatsSlowGrid() async throws {
        // Every lookup hangs until the test lets them go, so the grid is surely still running (4
        // lookups in flight, 5 queued) when Tokyo's search supersedes it, however slow the machine.
        let replay = try await ReplayServer.start()
        _ = try await replay.setFault(city: "*", "hang")
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.regionLines = ["concurrency = 4"]
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)

        let before = try await replay.stats()
        _ = try await daemon.call("region", region(-45, -100, span: (2, 2)))
        try await watcher.next("the grid to run") {
            $0.isStateNotification && $0.params?["running"]?.boolValue == true && isRegionInput($0.params?["input"], lat: -45, lon: -100)
        }
        try await replay.waitForHanging(4, timeout: nil)
        // Tokyo's search supersedes the grid as it is entered (its lookup waits for a free slot).
        let search = Task { try await daemon.call("search", ["city": "Tokyo"]) }
        try await watcher.next("Tokyo's search to be entered") {
            $0.isStateNotification && $0.params?["input"] == JSONValue.object(["kind": "text", "city": "Tokyo"])
        }
        _ = try await replay.clearFaults()  // the grid's 4 lookups in flight and Tokyo's are answered now
        let tokyo = try await search.value
        #expect(tokyo["id"]?.stringValue == Fixtures.tokyoID)
        let (tokyoOverlays, _) = try await watcher.next("the overlays of Tokyo") {
            $0.isOverlaysNotification && $0.params?["focus"]?.position == Fixtures.tokyoPosition
        }
        #expect(tokyoOverlays.params?.featureIDs == [Fixtures.tokyoID])

        // The grid's lookups in flight were answered; then nothing is pending any more.
        let (settled, afterTokyo) = try await watcher.next("the grid's lookups in flight to settle") {
            isSettledState($0)
        }
        #expect(settled.params?["input"] == JSONValue.object(["kind": "text", "city": "Tokyo"]), "\(settled.serialized)")
        #expect(settled.params?["phase"] == "populated")
        #expect(settled.params?["pending"]?.intValue == 0)
        let lateGrid = afterTokyo.filter { $0.isOverlaysNotification }
        #expect(lateGrid.isEmpty, "the superseded grid published overlays: \(describe(lateGrid))")

        let stats = try await replay.stats()
        // Tokyo's own: its places and its weather.
        let gridRequests = stats.requests - before.requests - 2
        #expect(gridRequests == 4, "the grid's queued lookups were sent (or not its `concurrency` first): \(stats)")
        #expect(stats.placeRequests(for: "tokyo") == 1)

        let overlays = try await daemon.call("overlays")
        #expect(overlays["focus"]?.position == Fixtures.tokyoPosition)
        #expect(overlays.featureIDs == [Fixtures.tokyoID], "\(overlays.serialized)")
        let state = try await daemon.call("state")
        #expect(state["input"] == JSONValue.object(["kind": "text", "city": "Tokyo"]))
        #expect(state["pending"]?.intValue == 0)
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }

    @Test("a region moved less than a tenth of its span from the last searched one starts no search; one moved further does")
    func negligibleMoveIsIgnored() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        // The ignored event leaves nothing to observe but the daemon's debug line saying so.
        let daemon = try await DaemonProcess.start(
            DaemonSetup(directory: directory, replay: replay), extraArguments: ["--log-level", "debug"])
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.next("the replayed state", where: isSettledState)

        _ = try await daemon.call("region", region(-40, -110, span: (2, 2)))
        let (_, first) = try await watcher.next("the first region to settle") {
            isSettledState($0) && isRegionInput($0.params?["input"], lat: -40, lon: -110)
        }
        let firstOverlays = try #require(first.last(where: \.isOverlaysNotification)?.params)
        expectGrid(firstOverlays, centre: (-40, -110))
        let searched = try await replay.stats()
        #expect(searched.requests == 9, "\(searched)")

        // 0.1° on both axes, a twentieth of the 2° span: ignored.
        _ = try await daemon.call("region", region(-40.1, -109.9, span: (2, 2)))
        _ = try await daemon.process.waitForLine(containing: "moved less than a tenth", on: \.stderr)
        let ignored = try await replay.stats()
        #expect(ignored.requests == searched.requests, "the near region went upstream: \(ignored)")
        let state = try await daemon.call("state")
        #expect(isRegionInput(state["input"], lat: -40, lon: -110), "\(state.serialized)")
        #expect(state["running"]?.boolValue == false)
        #expect(try await daemon.call("overlays")["seq"] == firstOverlays["seq"])

        // 0.5° in latitude, a quarter of the span: searched.
        _ = try await daemon.call("region", region(-40.5, -110, span: (2, 2)))
        let (_, second) = try await watcher.next("the moved region to settle") {
            isSettledState($0) && isRegionInput($0.params?["input"], lat: -40.5, lon: -110)
        }
        let ignoredNotifications = second.filter { $0.params?["input"].map { isRegionInput($0, lat: -40.1, lon: -109.9) } == true }
        #expect(ignoredNotifications.isEmpty, "\(describe(ignoredNotifications))")
        let changes = second.filter(\.isOverlaysNotification)
        #expect(changes.count == 1, "\(describe(changes))")
        if let overlays = changes.last?.params {
            #expect(overlays["seq"]?.intValue == (firstOverlays["seq"]?.intValue ?? 0) + 1)
            expectGrid(overlays, centre: (-40.5, -110))
        }
        let moved = try await replay.stats()
        #expect(moved.requests == searched.requests + 9, "\(moved)")
        #expect(newQueries(ignored, moved).filter { isQuery($0, lat: -40.5, lon: -110) }.count == 1, "\(moved)")
        await watcher.close()
    }

    @Test("invalid regions are invalid_params (-32602); weatherctl region takes negative numbers")
    func invalidParams() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: replay))

        let invalid: [(String, JSONObject)] = [
            ("lat 91", region(91, 0)),
            ("lat -90.5", region(-90.5, 0)),
            ("lon -181", region(0, -181)),
            ("lon 180.01", region(0, 180.01)),
            ("span 0", region(0, 0, span: (0, 0))),
            ("span lat 0", region(0, 0, span: (0, 1))),
            ("span -1", region(0, 0, span: (-1, 1))),
            ("span 200", region(0, 0, span: (200, 200))),
            ("span lon 180.5", region(0, 0, span: (1, 180.5))),
            ("missing center", [:]),
            ("span without center", ["span": .object(["lat": .integer(1), "lon": .integer(1)])]),
            ("center without lon", ["center": .object(["lat": .integer(1)])]),
            ("center as text", ["center": "1,2"]),
        ]
        for (label, params) in invalid {
            let error = try await remoteError { try await daemon.call("region", params) }
            #expect(error.code == -32602, "\(label): \(error.json.serialized)")
            #expect(error.name == "invalid_params", "\(label): \(error.json.serialized)")
        }
        // The edges are valid.
        for params in [region(90, 180), region(-90, -180, span: (180, 180)), region(0, 0, span: (0.001, 0.001))] {
            #expect(try await daemon.call("region", params) == JSONValue.object(["accepted": .bool(true)]), "\(params)")
        }

        let outOfRange = try await daemon.weatherctl(["region", "91", "0"])
        #expect(outOfRange.status == 1, "\(outOfRange)")
        #expect(outOfRange.stderr.hasPrefix("weatherctl: "), "\(outOfRange)")
        #expect(outOfRange.stdout.isEmpty, "\(outOfRange)")

        let negative = try await daemon.weatherctl(["region", "-37.7", "175.3", "--span", "2", "2"])
        #expect(negative.status == 0, "\(negative)")
        #expect(negative.stdout == "accepted\n", "\(negative)")
        let bothNegative = try await daemon.weatherctl(["region", "-37.7", "-175.3"])
        #expect(bothNegative.status == 0, "\(bothNegative)")
        #expect(bothNegative.stdout == "accepted\n", "\(bothNegative)")
    }

    @Test("a slow grid superseded by a newer region: the newer one lands, the older one never does")
    func newerRegionSupersedesSlowGrid() async throws {
        // Every lookup hangs until the test lets them go, so the older grid is surely still running
        // (4 lookups in flight, 5 queued) when the newer region supersedes it, however slow the machine.
        let replay = try await ReplayServer.start()
        _ = try await replay.setFault(city: "*", "hang")
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.regionLines = ["concurrency = 4"]
        let daemon = try await DaemonProcess.start(setup)
        let watcher = try await Watcher.start(socketPath: daemon.socketPath)
        try await watcher.awaitStartUpRound()

        _ = try await daemon.call("region", region(-50, -90, span: (2, 2)))
        try await watcher.next("the older grid to run") {
            $0.isStateNotification && $0.params?["running"]?.boolValue == true && isRegionInput($0.params?["input"], lat: -50, lon: -90)
        }
        try await replay.waitForHanging(4)
        _ = try await daemon.call("region", region(-50, -80, span: (2, 2)))
        try await watcher.next("the newer grid to run") {
            $0.isStateNotification && $0.params?["running"]?.boolValue == true && isRegionInput($0.params?["input"], lat: -50, lon: -80)
        }
        _ = try await replay.clearFaults()  // the older grid's 4 lookups in flight are answered now
        let (settled, after) = try await watcher.next("the newer grid to settle") {
            isSettledState($0) && isRegionInput($0.params?["input"], lat: -50, lon: -80)
        }
        #expect(settled.params?["phase"] == "populated", "\(settled.serialized)")
        let changes = after.filter(\.isOverlaysNotification)
        #expect(changes.count == 1, "only the newer grid lands: \(describe(changes))")
        let overlays = try #require(changes.last?.params)
        #expect(overlays["focus"] == JSONValue.null)
        expectGrid(overlays, centre: (-50, -80))
        // Nothing of the older grid ever landed.
        let older = after.filter {
            $0.isOverlaysNotification && ($0.params?["features"]?.arrayValue ?? []).contains { isNear($0, lon: -90) }
        }
        #expect(older.isEmpty, "\(describe(older))")
        #expect(try await daemon.call("overlays") == overlays)

        let stats = try await replay.stats()
        let queries = newQueries(nil, stats)
        let olderQueries = queries.filter { longitude(ofQuery: $0).map { abs($0 - -90) <= 1.5 } ?? false }
        let newerQueries = queries.filter { !olderQueries.contains($0) }
        #expect(olderQueries.count == 4, "only the older grid's lookups in flight were sent, none of its queued ones: \(stats)")
        #expect(newerQueries.count == 9, "\(stats)")
        #expect(stats.requests == olderQueries.count + 9, "\(stats)")
        expectNoIdleLoadingState(watcher.messages)
        await watcher.close()
    }
}

// MARK: - Helpers

extension Fixtures {
    static let parisID = "owm:2988507"
    static let parisPosition = [2.3488, 48.8534]
    static let tokyoID = "owm:1850147"
    static let tokyoPosition = [139.6917, 35.6895]
}

/// `region` params: a centre and, optionally, a span.
private func region(_ lat: Double, _ lon: Double, span: (lat: Double, lon: Double)? = nil) -> JSONObject {
    var params: JSONObject = ["center": .object(["lat": .double(lat), "lon": .double(lon)])]
    if let span { params["span"] = .object(["lat": .double(span.lat), "lon": .double(span.lon)]) }
    return params
}

/// Whether `input` is a region input centred at lat/lon.
private func isRegionInput(_ input: JSONValue?, lat: Double, lon: Double) -> Bool {
    guard let input, input["kind"] == "region", let centre = input["center"],
        let centreLat = centre["lat"]?.doubleValue, let centreLon = centre["lon"]?.doubleValue
    else { return false }
    return abs(centreLat - lat) < 1e-6 && abs(centreLon - lon) < 1e-6
}

/// Whether a feature's longitude is within a degree and a half of `lon` (inside a grid around it).
private func isNear(_ feature: JSONValue, lon: Double) -> Bool {
    guard let position = feature["geometry"]?["coordinates"]?.position, position.count == 2 else { return false }
    return abs(position[0] - lon) <= 1.5
}

/// A value of a `lat=…&lon=…` query as owm-replay counts it (`lat=-40.5&lon=-110`).
private func value(_ name: String, ofQuery query: String) -> Double? {
    query.split(separator: "&").first { $0.hasPrefix(name + "=") }.flatMap { Double($0.dropFirst(name.count + 1)) }
}

private func longitude(ofQuery query: String) -> Double? { value("lon", ofQuery: query) }

/// Whether `query` asked for the point lat/lon: for its 0.01° cell, which the daemon sends.
private func isQuery(_ query: String, lat: Double, lon: Double) -> Bool {
    cell(ofQuery: query) == cell(lat: lat, lon: lon)
}

/// The 0.01° cell of a point, in hundredths of a degree.
private func cell(lat: Double, lon: Double) -> [Int] { [Int((lat * 100).rounded()), Int((lon * 100).rounded())] }

/// The cell a `lat=…&lon=…` query asked for.
private func cell(ofQuery query: String) -> [Int]? {
    guard let lat = value("lat", ofQuery: query), let lon = value("lon", ofQuery: query) else { return nil }
    return cell(lat: lat, lon: lon)
}

private func decimal4(_ value: Double) -> String { String(format: "%.4f", value) }

/// The `lat=…&lon=…` queries owm-replay counted after `before` (all of them without one).
private func newQueries(_ before: ReplayStats?, _ after: ReplayStats) -> [String] {
    let keys = after.json["by_query"]?.objectValue?.keys ?? []
    return keys.filter { $0.hasPrefix("lat=") }.flatMap { key in
        Array(repeating: key, count: after.requests(for: key) - (before?.requests(for: key) ?? 0))
    }
}

/// The overlays of a region grid over open ocean: the centre's feature (source `region`) at
/// `centre`, the others `around` it, one per id.
private func expectGrid(_ overlays: JSONValue, centre: (lat: Double, lon: Double), sourceLocation: SourceLocation = #_sourceLocation) {
    let features = overlays["features"]?.arrayValue ?? []
    let ids = overlays.featureIDs
    #expect(ids.count == features.count && Set(ids).count == ids.count, "features by id: \(ids)", sourceLocation: sourceLocation)
    #expect((1...9).contains(features.count), "\(features.count) features", sourceLocation: sourceLocation)
    let centres = features.filter { $0["properties"]?["source"] == "region" }
    #expect(centres.count == 1, "one centre feature: \(describe(centres))", sourceLocation: sourceLocation)
    if let position = centres.first?["geometry"]?["coordinates"]?.position, position.count == 2 {
        #expect(
            abs(position[0] - centre.lon) < 1e-4 && abs(position[1] - centre.lat) < 1e-4,
            "the centre feature at \(position), expected [\(centre.lon), \(centre.lat)]", sourceLocation: sourceLocation)
    }
    let others = features.filter { $0["properties"]?["source"] != "region" }
    #expect(others.allSatisfy { $0["properties"]?["source"] == "around" }, "\(describe(others))", sourceLocation: sourceLocation)
}
