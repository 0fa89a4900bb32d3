import Synchronization
import Testing

@testable import TestSupport
@testable import WeatherCore

/// The alert service beside a stream of searches: each search that changes the focus changes the
/// places on the map, and the service takes them in at most once per `AlertService.stepInterval`.
@Suite("The alert service's steps", .timeLimit(.minutes(1)))
struct AlertServiceStepTests {
    @Test("places that change within 100 ms of a step are taken in by one step 100 ms after it (a place gone by then is never asked)")
    func placesCoalesced() async throws {
        let h = try EngineHarness(cities: [])
        let provider = RecordingAlertProvider()
        let service = AlertService(
            providers: [provider], settings: .init(refresh: .seconds(600), requestsPerMinute: 100, zoneTTL: .seconds(3600)),
            clock: DaemonClock(h.clock), logger: silentLogger)
        let (a, b, c) = (Coordinate(lat: 10, lon: 10), Coordinate(lat: 20, lon: 20), Coordinate(lat: 30, lon: 30))
        service.publisher.publish(overlays: try Self.overlays(at: [a]))
        let run = Task { try await service.run(engine: h.engine) }
        defer { run.cancel() }
        var asked = provider.calls.makeAsyncIterator()
        #expect(await asked.next() == a)  // the first step, which a's answer waits for

        // Woken at once by a's change, within 100 ms of that step: the service waits out the rest.
        try await h.clock.waitForSleeper(until: AlertService.stepInterval)
        service.publisher.publish(overlays: try Self.overlays(at: [a, b]))
        service.publisher.publish(overlays: try Self.overlays(at: [a, c]))
        provider.answerFirst()
        h.clock.advance(by: AlertService.stepInterval)
        #expect(await asked.next() == c)
        #expect(provider.asked == [a, c])
    }

    static func overlays(at points: [Coordinate]) throws -> Overlays {
        let features = try points.map { point in
            var feature = WeatherFeature(observation: try Fixture.londonObservation(), source: .city)
            feature.coordinate = point
            return feature
        }
        return Overlays(seq: 1, focus: points.last, features: features)
    }
}

/// An alert provider covering the whole world, with no alerts anywhere, recording each cell it is
/// asked; the first answer waits for `answerFirst()`.
private final class RecordingAlertProvider: AlertProvider {
    let name = AlertProviderName.nws
    private let record = Mutex<[Coordinate]>([])
    private let continuation: AsyncStream<Coordinate>.Continuation
    private let first = Wakeup()
    /// Each cell asked, as it is asked.
    let calls: AsyncStream<Coordinate>

    init() { (calls, continuation) = AsyncStream.makeStream() }

    var asked: [Coordinate] { record.withLock { $0 } }

    func answerFirst() { first.wake() }

    func covers(_ point: Coordinate) -> Bool { true }

    func alerts(at cell: Coordinate) async throws -> [Alert] {
        let isFirst = record.withLock { record in
            record.append(cell)
            return record.count == 1
        }
        continuation.yield(cell)
        if isFirst { _ = await first.wait() }
        return []
    }

    func zoneArea(_ zone: String) async throws -> AlertArea? { nil }
}
