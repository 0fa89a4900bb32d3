import Foundation
import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import WeatherSessions

/// A watching client as the protocol describes it: it keeps the collection it was sent, replaces
/// it on `overlays` and applies each `overlays.diff` to it.
private final class DiffClient {
    let name: String
    let outbox = Outbox()
    /// How likely it reads at each step (1: every step; small: a slow reader).
    let readChance: Double
    var seq: Int?
    var focus: JSONValue = .null
    var features: [String: JSONValue] = [:]
    var fullCount = 0
    var diffCount = 0

    init(_ name: String, readChance: Double) {
        self.name = name
        self.readChance = readChance
    }

    /// Reads everything waiting and checks each collection it arrives at against what was published.
    func read(published: [Int: Overlays], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var overlaysLines = 0
        while let line = outbox.next() {
            let message = try JSONValue.parse(Array(line.utf8))
            let params = try #require(message["params"], sourceLocation: sourceLocation)
            switch message["method"]?.stringValue {
            case "overlays":
                overlaysLines += 1
                fullCount += 1
                let next = try #require(params["seq"]?.intValue)
                if let seq { #expect(next > seq, "\(name): seq went back from \(seq) to \(next)", sourceLocation: sourceLocation) }
                let expected = try #require(published[next])
                #expect(
                    line == RPCMessage.notification(method: "overlays", params: expected.json),
                    "\(name): the full line is the one `overlays` encodes", sourceLocation: sourceLocation)
                seq = next
                focus = params["focus"] ?? .null
                features = [:]
                for feature in params["features"]?.arrayValue ?? [] { features[feature["id"]?.stringValue ?? ""] = feature }
            case "overlays.diff":
                overlaysLines += 1
                diffCount += 1
                let base = try #require(params["base"]?.intValue)
                let next = try #require(params["seq"]?.intValue)
                #expect(
                    base == seq, "\(name): a diff from \(base) but the client has \(String(describing: seq))",
                    sourceLocation: sourceLocation)
                #expect(next > base)
                let expected = try #require(published[next])
                #expect(
                    line.utf8.count < RPCMessage.notification(method: "overlays", params: expected.json).utf8.count,
                    "\(name): a diff is sent only when shorter than the full collection", sourceLocation: sourceLocation)
                for id in params["removed"]?.arrayValue ?? [] {
                    let id = try #require(id.stringValue)
                    #expect(
                        features.removeValue(forKey: id) != nil, "\(name): removed \(id), which it did not have",
                        sourceLocation: sourceLocation)
                }
                for feature in params["changed"]?.arrayValue ?? [] {
                    let id = try #require(feature["id"]?.stringValue)
                    #expect(features[id] != nil, "\(name): changed \(id), which it did not have", sourceLocation: sourceLocation)
                    features[id] = feature
                }
                for feature in params["added"]?.arrayValue ?? [] {
                    let id = try #require(feature["id"]?.stringValue)
                    #expect(features[id] == nil, "\(name): added \(id), which it had", sourceLocation: sourceLocation)
                    features[id] = feature
                }
                seq = next
                focus = params["focus"] ?? .null
            default:
                continue  // state
            }
            let expected = try #require(published[seq ?? -1])
            #expect(
                matches(expected), "\(name): after seq \(seq ?? -1) the collection differs from `overlays`", sourceLocation: sourceLocation)
        }
        #expect(overlaysLines <= 1, "\(name): a backlog of \(overlaysLines) overlays notifications", sourceLocation: sourceLocation)
    }

    /// Compared as JSON text (a parsed 7 is the integer 7, the collection's 7.0 a double).
    func matches(_ overlays: Overlays) -> Bool {
        let json = overlays.json
        var expected: [String: String] = [:]
        for feature in json["features"]?.arrayValue ?? [] { expected[feature["id"]?.stringValue ?? ""] = feature.serialized }
        return seq == overlays.seq && focus.serialized == (json["focus"] ?? .null).serialized
            && features.mapValues(\.serialized) == expected
    }
}

@Suite("Diff overlays: a client that applies every diff it gets has the collection `overlays` gives")
struct OverlaysDiffTests {
    /// One random change of the collection: features come, go and change; focus moves or clears.
    private static func change(_ overlays: Overlays, _ random: inout SplitMix64) -> Overlays {
        var features = overlays.features
        let sources: [FeatureSource] = [.city, .text, .location, .region, .around]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3 where features.count < 40:
                let id = Int.random(in: 1...60, using: &random)
                guard !features.contains(where: { $0.id == "owm:\(id)" }) else { continue }
                let observation = sampleObservation(
                    "City \(id)", id: id, lat: Double(id) / 2, lon: Double(id),
                    temperature: Double(Int.random(in: -20...40, using: &random)))
                let feature = WeatherFeature(observation: observation, source: sources.randomElement(using: &random)!)
                features.insert(feature, at: Int.random(in: 0...features.count, using: &random))
            case 3..<5 where !features.isEmpty:
                features.remove(at: Int.random(in: 0..<features.count, using: &random))
            case 5..<8 where !features.isEmpty:
                let index = Int.random(in: 0..<features.count, using: &random)
                features[index].stale.toggle()
            case 8 where Bool.random(using: &random):
                features.removeAll()  // a new interactive input replaced everything
            default:
                features.shuffle(using: &random)
            }
        }
        let focus = Bool.random(using: &random) ? nil : Coordinate(lat: Double.random(in: -90...90, using: &random).rounded(), lon: 7)
        return Overlays(seq: overlays.seq + 1, focus: focus, features: features)
    }

    @Test(
        "random seeded sequences, fast and slow readers, a late watcher and one that watches again",
        arguments: 1...25)
    func randomSequences(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let hub = NotificationHub()
        var current = Overlays(seq: 0, focus: nil, features: [])
        var published = [0: current]
        hub.publish(overlays: current)
        let clients = [
            DiffClient("fast", readChance: 1), DiffClient("medium", readChance: 0.4),
            DiffClient("slow", readChance: 0.05), DiffClient("late", readChance: 0.5),
            DiffClient("rewatching", readChance: 0.6),
        ]
        let full = Outbox()
        hub.watch(full, topics: [.overlays], replay: true)
        for client in clients where client.name != "late" {
            hub.watch(client.outbox, topics: [.overlays, .state], replay: true, diff: true)
        }
        for step in 1...150 {
            current = Self.change(current, &random)
            published[current.seq] = current
            hub.publish(overlays: current)
            if step == 40 { hub.watch(clients[3].outbox, topics: [.overlays], replay: Bool.random(using: &random), diff: true) }
            if step == 90 {
                let client = clients[4]
                hub.watch(client.outbox, topics: [.overlays], replay: true, diff: true)
                let before = client.fullCount
                try client.read(published: published)
                #expect(client.fullCount == before + 1, "the first overlays after a new watch is full")
            }
            for client in clients where Double.random(in: 0..<1, using: &random) < client.readChance {
                try client.read(published: published)
            }
            while let line = full.next() {
                #expect(line.hasPrefix(#"{"jsonrpc":"2.0","method":"overlays","#), "a watcher without diff gets full collections")
            }
        }
        for client in clients {
            try client.read(published: published)
            #expect(client.matches(current), "\(client.name) ends with the latest collection")
            // A slow reader may always be so far behind that the whole collection is shorter.
            if client.readChance >= 0.4 { #expect(client.diffCount > 0, "\(client.name) got diffs") }
        }
    }

    @Test("a watcher that fell behind gets one diff from what it last received, not the steps between")
    func fellBehind() throws {
        let hub = NotificationHub()
        let a = WeatherFeature(observation: sampleObservation("A", id: 1), source: .city)
        let b = WeatherFeature(observation: sampleObservation("B", id: 2), source: .city)
        let c = WeatherFeature(observation: sampleObservation("C", id: 3), source: .text)
        var changedA = a
        changedA.stale = true
        // Features that stay as they are: the diff is shorter than the whole collection.
        let rest = (10...15).map { WeatherFeature(observation: sampleObservation("R\($0)", id: $0), source: .city) }
        hub.publish(overlays: Overlays(seq: 1, focus: nil, features: rest + [a, b]))
        let client = DiffClient("behind", readChance: 0)
        hub.watch(client.outbox, topics: [.overlays], replay: true, diff: true)
        let first = try #require(client.outbox.next())
        #expect(first == RPCMessage.notification(method: "overlays", params: Overlays(seq: 1, focus: nil, features: rest + [a, b]).json))
        hub.publish(overlays: Overlays(seq: 2, focus: nil, features: rest + [a, b, c]))
        hub.publish(overlays: Overlays(seq: 3, focus: nil, features: rest + [b, c]))
        hub.publish(overlays: Overlays(seq: 4, focus: Coordinate(lat: 1, lon: 2), features: rest + [changedA, c]))
        let line = try #require(client.outbox.next())
        #expect(client.outbox.next() == nil, "one notification, not a backlog")
        let params = try #require(try JSONValue.parse(Array(line.utf8))["params"])
        #expect(params["seq"] == .integer(4) && params["base"] == .integer(1))
        #expect(params["focus"]?.serialized == "[2,1]")
        #expect(params["added"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["owm:3"])
        #expect(params["changed"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["owm:1"])
        #expect(params["removed"]?.serialized == #"["owm:2"]"#)
        #expect(line.hasPrefix(#"{"jsonrpc":"2.0","method":"overlays.diff","params":{"seq":4,"base":1,"focus":[2,1],"added":["#))
    }

    @Test("a full collection instead of a diff when that is shorter; without diff, always full")
    func fullWhenShorter() throws {
        let hub = NotificationHub()
        let many = (1...20).map { WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around) }
        let one = WeatherFeature(observation: sampleObservation("Seoul", id: 99), source: .text)
        hub.publish(overlays: Overlays(seq: 1, focus: nil, features: many))
        let diffWatcher = Outbox()
        let plain = Outbox()
        hub.watch(diffWatcher, topics: [.overlays], replay: true, diff: true)
        hub.watch(plain, topics: [.overlays], replay: true)
        _ = diffWatcher.next()
        _ = plain.next()
        // Everything replaced: the diff would carry the new features and 20 removed ids.
        let others = (31...35).map { WeatherFeature(observation: sampleObservation("Q\($0)", id: $0), source: .around) }
        let replaced = Overlays(seq: 2, focus: one.coordinate, features: [one] + others)
        hub.publish(overlays: replaced)
        #expect(diffWatcher.next() == RPCMessage.notification(method: "overlays", params: replaced.json))
        // One feature changes: a diff.
        var changed = one
        changed.stale = true
        let third = Overlays(seq: 3, focus: nil, features: [changed] + others)
        hub.publish(overlays: third)
        #expect(diffWatcher.next()?.hasPrefix(#"{"jsonrpc":"2.0","method":"overlays.diff","params":{"seq":3,"base":2,"#) == true)
        #expect(plain.next() == RPCMessage.notification(method: "overlays", params: third.json))
        #expect(plain.next() == nil, "the plain watcher had not read seq 2 yet: it gets seq 3 alone")
    }

    @Test("1,000 diff watchers that got the same collection share one encoded diff")
    func sharedEncoding() throws {
        let features = (1...30).map { WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around) }
        let before = OverlaysEdition(Overlays(seq: 1, focus: nil, features: features))
        var changed = features
        changed[3].stale = true
        let after = OverlaysEdition(Overlays(seq: 2, focus: nil, features: changed))
        let lines = (0..<1000).map { _ in after.line(after: before.overlays) }
        #expect(Set(lines).count == 1)
        // The same storage: the cached line itself, not 1,000 equal copies.
        let first = lines[0].utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(lines.allSatisfy { $0.utf8.withContiguousStorageIfAvailable { $0.baseAddress } == first })
    }

    @Test(
        "a collection made after an encoded one reuses the texts of the features that did not change, and writes the same lines as one made alone"
    )
    func reusedFeatureTexts() throws {
        let features = (1...30).map { WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around) }
        let first = OverlaysEdition(Overlays(seq: 1, focus: nil, features: features))
        _ = first.fullLine  // encoded, as a watcher's writer does
        var changed = features
        changed[3].stale = true
        changed.remove(at: 7)
        changed.append(WeatherFeature(observation: sampleObservation("New", id: 99), source: .around))
        let next = Overlays(seq: 2, focus: nil, features: changed)

        let reusing = OverlaysEdition(next, after: first)
        let alone = OverlaysEdition(next)

        #expect(reusing.fullLine == alone.fullLine)
        #expect(reusing.fullLine == RPCMessage.notification(method: "overlays", params: next.json))
        #expect(reusing.line(after: first.overlays) == alone.line(after: first.overlays))
    }

    @Test(
        "a collection takes the texts of features written lately (a search's reply) and writes the same lines as one made alone; a feature that changed since is written anew"
    )
    func keptFeatureTexts() throws {
        let features = (1...30).map { WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around) }
        let texts = FeatureTexts()
        var changed = features[5]
        _ = texts.text(of: features[4])
        _ = texts.text(of: changed)
        changed.stale = true  // the same id, another feature: its kept text is not its text
        var published = features
        published[5] = changed
        let overlays = Overlays(seq: 1, focus: changed.coordinate, features: published)
        #expect(OverlaysEdition(overlays, texts: texts).fullLine == OverlaysEdition(overlays).fullLine)
        #expect(OverlaysEdition(overlays, texts: texts).fullLine == RPCMessage.notification(method: "overlays", params: overlays.json))
        #expect(texts.text(of: changed) == changed.json.serialized)
        #expect(OverlaysEdition(overlays, texts: texts).collectionText == overlays.json.serialized)
    }

    @Test("the text of the latest value: made once while the value stays equal, made again when it changes")
    func latestText() throws {
        let made = Mutex(0)
        let texts = LatestText<DaemonState> { state in
            made.withLock { $0 += 1 }
            return state.json.serialized
        }
        var state = DaemonState(
            pending: 1, phase: .loading, input: .text(city: "Seoul"), gps: GPSStatus(enabled: true),
            updatedAt: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(texts.text(of: state) == state.json.serialized)
        #expect(texts.text(of: state) == state.json.serialized)
        #expect(made.withLock { $0 } == 1)
        state.budget = BudgetStatus(requestsPerMinute: 60, used: 12)
        #expect(texts.text(of: state) == state.json.serialized)
        #expect(made.withLock { $0 } == 2)
    }

    @Test(
        "an overlays request's result is the latest published collection's text when it asks for that one, and the collection's own text otherwise"
    )
    func overlaysRequestText() throws {
        let hub = NotificationHub()
        let features = (1...5).map { WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around) }
        let published = Overlays(seq: 4, focus: features[2].coordinate, features: features)
        hub.publish(overlays: published)
        let text = hub.text(of: published)
        #expect(text == published.json.serialized)
        // Made once: the same storage for the next request.
        let again = hub.text(of: published)
        #expect(
            again.utf8.withContiguousStorageIfAvailable { $0.baseAddress } == text.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        var other = published
        other.features.removeLast()
        #expect(hub.text(of: other) == other.json.serialized)
        #expect(hub.text(of: Overlays(seq: 0, focus: nil, features: [])) == Overlays(seq: 0, focus: nil, features: []).json.serialized)
    }

    @Test("kept feature texts stay right when more features than they keep are written")
    func featureTextsCapacity() throws {
        let texts = FeatureTexts()
        let features = (1...(FeatureTexts.capacity * 2 + 7)).map {
            WeatherFeature(observation: sampleObservation("P\($0)", id: $0), source: .around)
        }
        for _ in 0..<2 {
            for feature in features { #expect(texts.text(of: feature) == feature.json.serialized) }
        }
    }
}
