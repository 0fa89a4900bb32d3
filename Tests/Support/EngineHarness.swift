import Foundation
import Testing

@testable import WeatherCore

/// A SearchEngine over a scripted upstream (through a real LookupService on a manual clock),
/// publishing into a recorder, with cities stored in memory.
struct EngineHarness {
    static let startTime = Date(timeIntervalSince1970: 1_795_000_000)

    let clock = ManualClock()
    let upstream = ScriptedUpstream()
    let publisher = RecordingPublisher()
    let store: MemoryCityStore
    let lookups: LookupService
    let engine: SearchEngine

    /// - Parameter cacheTTL: zero by default, so every round and search reaches the upstream.
    /// - Parameter gps: what the engine knows of gpsd at start (disabled by default).
    init(
        cities: [String], stored: CityChanges = CityChanges(), cacheTTL: Duration = .zero, publisher: (any ChangePublisher)? = nil,
        gps: GPSStatus = GPSStatus(enabled: false)
    ) throws {
        store = MemoryCityStore(stored)
        lookups = LookupService(
            upstream: upstream, limits: .init(cacheTTL: cacheTTL, requestsPerMinute: 1000),
            clock: DaemonClock(clock), logger: silentLogger)
        engine = SearchEngine(
            cities: try WatchedCities(configured: cities, store: store), gps: gps,
            lookups: lookups, publisher: publisher ?? self.publisher, budget: BudgetStatus(requestsPerMinute: 1000),
            wallClock: { EngineHarness.startTime }, clock: DaemonClock(clock), logger: silentLogger)
    }

    /// Scripts the fixtures: London (`London`, `London,GB`) and Zocca (`Zocca`, `Zocca,IT`).
    func scriptFixtures() throws {
        let london = try Fixture.londonObservation()
        let zocca = try Fixture.zoccaObservation()
        upstream.answer("London", with: london)
        upstream.answer("London,GB", with: london)
        upstream.answer("Zocca", with: zocca)
        upstream.answer("Zocca,IT", with: zocca)
    }

    /// Checks what every published change must satisfy: `running` == (`pending` > 0) in the
    /// JSON, a loading phase only while running, each state a change of its fields, and `seq`
    /// growing by one per overlays change.
    func checkInvariants(sourceLocation: SourceLocation = #_sourceLocation) {
        let states = publisher.states
        for state in states {
            let json = state.json
            let pending = json["pending"]?.intValue ?? -1
            #expect(
                json["running"]?.boolValue == (pending > 0), "running must equal pending > 0 in \(json.serialized)",
                sourceLocation: sourceLocation)
            if state.phase == .loading {
                #expect(state.running, "loading but not running: \(json.serialized)", sourceLocation: sourceLocation)
            }
            #expect(
                (state.error != nil) == (state.phase == .error), "error set exactly in phase error: \(json.serialized)",
                sourceLocation: sourceLocation)
        }
        for (previous, next) in zip(states, states.dropFirst()) {
            #expect(
                !previous.sameFields(as: next), "a state notification without a change: \(next.json.serialized)",
                sourceLocation: sourceLocation)
        }
        let seqs = publisher.overlays.map(\.seq)
        #expect(
            zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "seq grows by one per change: \(seqs)", sourceLocation: sourceLocation)
    }
}

extension Overlays {
    var ids: [String] { features.map(\.id) }
}
