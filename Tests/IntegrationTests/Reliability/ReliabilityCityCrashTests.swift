import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The durability of watched cities (docs/protocol.md, "Durability of watched cities") under
/// SIGKILL: round after round the daemon gets a `cities.add` or `cities.remove` and is killed at a
/// random moment — as soon as the request is sent, at a random point while it is being carried
/// out, or right after its reply — and is restarted on the same state directory. The list it comes
/// back with must be the last acknowledged one, or that list with the change in flight applied
/// (and the applied one whenever the reply had arrived); `cities.json` must always hold a complete
/// city list matching one of the two, and no temporary files may pile up beside it.
@Suite("Reliability: SIGKILL during cities.add and cities.remove", .serialized)
struct ReliabilityCityCrashTests {
    static let suite = "city crash"
    static let baseRounds = 20
    static let configured = ["London", "Paris"]
    /// Cities owm-replay knows (demo/owm), so an add is looked up and stored.
    static let pool = ["London", "Paris", "Berlin", "Tokyo", "Seoul", "Reykjavik", "Zocca", "Minsk", "New York", "Hamilton"]

    enum KillMoment: String, CaseIterable {
        /// Right after the request was written.
        case atOnce = "at once"
        /// After a random delay within the time a change usually takes.
        case meanwhile
        /// As soon as the reply arrived.
        case afterReply = "after the reply"
    }

    @Test(
        "SIGKILL at random moments of cities.add/cities.remove: the restarted daemon has the last acknowledged list or the change in flight, cities.json is never torn"
    )
    func killDuringChanges() async throws {
        let run = ReliabilityRun.current
        run.announce(Self.suite)
        let started = ContinuousClock.now
        var random = run.generator(for: Self.suite)

        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        let setup = DaemonSetup(directory: directory, replay: replay, cities: Self.configured)

        var acknowledged = Self.configured
        // The change whose reply was not seen before the kill: its list with and without it.
        var inFlight: (applied: [String], replied: Bool)?
        var latencies: [Duration] = []
        var figures: [String: Int] = [:]
        let rounds = run.count(Self.baseRounds)

        for round in 0...rounds {
            // The state left behind by the kill, before anything reads it.
            let allowed = [acknowledged] + (inFlight.map { $0.replied ? [$0.applied] : [acknowledged, $0.applied] } ?? [])
            let mustBe = inFlight?.replied == true ? [inFlight!.applied] : allowed
            try checkStateDirectory(setup.stateDirectory, allowed: mustBe, round: round, figures: &figures)

            let daemon = try await DaemonProcess.start(setup)
            let listed = try await daemon.call("cities")["cities"]?.arrayValue?.compactMap(\.stringValue)
            let cities = try #require(listed, "round \(round): cities")
            #expect(mustBe.contains(cities), "round \(round): after the restart the daemon watches \(cities), expected one of \(mustBe)")
            if let inFlight, !inFlight.replied {
                figures[cities == inFlight.applied ? "unacknowledged change kept" : "unacknowledged change lost", default: 0] += 1
            }
            acknowledged = cities
            inFlight = nil
            guard round < rounds else {
                let ended = try await daemon.terminate()
                #expect(ended.status == 0, "\(daemon.stderrText.suffix(2000))")
                break
            }

            // One change, killed at a random moment.
            let removable = acknowledged
            let addable = Self.pool.filter { city in !acknowledged.contains { $0.lowercased() == city.lowercased() } }
            let remove = !removable.isEmpty && (addable.isEmpty || random.chance(0.5))
            let city = remove ? random.pick(removable) : random.pick(addable)
            let method = remove ? "cities.remove" : "cities.add"
            let applied = remove ? acknowledged.filter { $0.lowercased() != city.lowercased() } : Self.apply(adding: city, to: acknowledged)
            let moment = random.pick(KillMoment.allCases)
            figures["\(method), killed \(moment.rawValue)", default: 0] += 1

            let socket = try RawSocket(path: daemon.socketPath)
            let request = Array(RPCMessage.request(id: round, method: method, params: ["city": .string(city)]).utf8) + [UInt8(ascii: "\n")]
            let sent = ContinuousClock.now
            let exchange = Task { try await socket.exchange(request, timeout: .seconds(20)) }
            switch moment {
            case .atOnce:
                break
            case .meanwhile:
                // A random moment, not a condition to wait for: somewhere within the time a change
                // has taken so far (or 50 ms before any was measured).
                let typical = latencies.isEmpty ? Duration.milliseconds(50) : latencies.sorted()[latencies.count / 2]
                let delay = typical * random.double(0, 1.5)
                try await Task.sleep(for: delay)
            case .afterReply:
                _ = try await exchange.value  // the daemon closes our half-closed connection once it replied
                latencies.append(ContinuousClock.now - sent)
            }
            try await daemon.kill()
            let received = ReceivedLines(try await exchange.value)
            #expect(received.problems.isEmpty, "round \(round): \(received.problems)")
            if let reply = received.replies.first {
                #expect(received.replyCount == 1 && reply["id"] == .integer(Int64(round)), "round \(round): \(received.replies)")
                let result = reply["result"]?["cities"]?.arrayValue?.compactMap(\.stringValue)
                #expect(result == applied, "round \(round): \(method) \(city) on \(acknowledged) answered \(reply.serialized)")
                figures["replied before the kill", default: 0] += 1
            } else {
                #expect(moment != .afterReply, "round \(round): no reply though it was awaited")
            }
            inFlight = (applied, !received.replies.isEmpty)
        }

        let typical = latencies.isEmpty ? "none measured" : "\(latencies.sorted()[latencies.count / 2])"
        ReliabilityRun.figure(
            Self.suite, "rounds \(rounds), crashes by SIGKILL \(rounds), typical change time \(typical), final list \(acknowledged)")
        ReliabilityRun.figure(Self.suite, figures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        ReliabilityRun.figure(Self.suite, "time \(ContinuousClock.now - started)")
    }

    /// The effective list after `cities.add`: a city removed from the configuration comes back at
    /// its configured place; any other is added at the end.
    static func apply(adding city: String, to list: [String]) -> [String] {
        let key = city.lowercased()
        guard let index = configured.firstIndex(where: { $0.lowercased() == key }) else { return list + [city] }
        // Configured cities keep their order, before the added ones.
        let configuredBefore = configured[..<index].map { $0.lowercased() }
        let insertAt = list.lastIndex { configuredBefore.contains($0.lowercased()) }.map { $0 + 1 } ?? 0
        var result = list
        result.insert(configured[index], at: insertAt)
        return result
    }

    /// `cities.json` is absent or a complete city list whose effective list is one of `allowed`;
    /// nothing was moved aside as corrupt; at most one temporary file lies beside it.
    private func checkStateDirectory(_ path: String, allowed: [[String]], round: Int, figures: inout [String: Int]) throws {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        // The city list's files (places.json, the places of names, is another file).
        let others = entries.filter { $0.hasPrefix("cities.json") && $0 != "cities.json" }
        #expect(!others.contains { $0.contains("corrupt") }, "round \(round): a city list was moved aside: \(entries)")
        #expect(others.count <= 1, "round \(round): temporary files pile up: \(entries)")
        if !others.isEmpty { figures["temporary file left by a kill", default: 0] += 1 }
        guard let data = FileManager.default.contents(atPath: path + "/cities.json") else {
            #expect(allowed.contains(Self.configured), "round \(round): no cities.json, though a change was acknowledged: \(allowed)")
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let json = try? JSONValue.parse(Array(data)),
            let added = json["added"]?.arrayValue, let removed = json["removed"]?.arrayValue,
            json.objectValue?.keys.count == 2
        else {
            Issue.record("round \(round): cities.json is not a complete city list: \(text)")
            return
        }
        let addedNames = added.compactMap(\.stringValue)
        let removedNames = removed.compactMap(\.stringValue)
        #expect(addedNames.count == added.count && removedNames.count == removed.count, "round \(round): \(text)")
        // Effective = configured minus removed, then added (docs/protocol.md).
        let removedKeys = Set(removedNames.map { $0.lowercased() })
        let effective = Self.configured.filter { !removedKeys.contains($0.lowercased()) } + addedNames
        #expect(allowed.contains(effective), "round \(round): cities.json holds \(text), i.e. \(effective); expected one of \(allowed)")
    }
}
