import Foundation

@testable import WeatherCore

/// A LocationService over an EngineHarness (scripted upstream, recording publisher, manual clock,
/// no watched cities). The service waits on the harness's manual clock, so a waiting `locate` is
/// one sleeper on it.
struct LocationHarness {
    let engine: EngineHarness
    let service: LocationService

    var clock: ManualClock { engine.clock }
    var upstream: ScriptedUpstream { engine.upstream }
    var publisher: RecordingPublisher { engine.publisher }

    init(
        enabled: Bool = true, maxHorizontalError: Double = 100, locateTimeout: Duration = .seconds(30),
        follow: Bool = false, followDistance: Double = 1000, geoclue: GeoClueConfig = GeoClueConfig()
    ) throws {
        engine = try EngineHarness(cities: [], gps: GPSStatus(enabled: enabled))
        service = LocationService(
            settings: .init(
                enabled: enabled, maxHorizontalError: maxHorizontalError, locateTimeout: locateTimeout,
                follow: follow, followDistance: followDistance, geoclue: geoclue),
            engine: engine.engine, clock: DaemonClock(engine.clock), wallClock: { EngineHarness.startTime },
            logger: silentLogger)
    }

    /// Scripts the weather at `coordinate` (looked up to 0.01°): a station named `name` at
    /// `station` (the fix itself when nil). Returns what the upstream will answer.
    @discardableResult
    func scriptWeather(at coordinate: Coordinate, name: String, id: Int, station: Coordinate? = nil) -> WeatherObservation {
        let place = station ?? coordinate
        let observation = sampleObservation(name, id: id, lat: place.lat, lon: place.lon)
        upstream.script(.coordinate(coordinate), .success(observation))
        return observation
    }

    /// Starts a `locate` in its own task.
    func startLocate(timeout: Duration? = nil) -> Task<WeatherFeature, any Error> {
        Task { [service] in try await service.locate(timeout: timeout) }
    }

    /// Returns once `count` locates wait for a fix (each sleeps on the clock until its deadline).
    func waitForLocates(_ count: Int) async {
        await untilCancelled { [clock] in await clock.waitForSleepers(count) }
    }

    /// Returns once `count` overlays have been published in all (the engine publishes seq 0 at start).
    func waitForOverlays(_ count: Int) async {
        await untilCancelled { [publisher] in await publisher.waitForOverlays(count) }
    }
}

/// Waits for `wait` to return, or for the current task to be cancelled (a test's time limit),
/// whichever comes first: a wait that never ends then fails the test instead of hanging the run.
func untilCancelled(_ wait: @escaping @Sendable () async -> Void) async {
    let (done, signal) = AsyncStream<Void>.makeStream()
    let waiter = Task {
        await wait()
        signal.finish()
    }
    for await _ in done {}
    waiter.cancel()
}

extension Task where Failure == any Error {
    /// The task's result, or `CancellationError` when the task that waits for it is cancelled
    /// first (a test's time limit; the task is then cancelled too): a task that never ends fails
    /// the test instead of hanging the run.
    var outcome: Result<Success, any Error> {
        get async {
            let (results, send) = AsyncStream<Result<Success, any Error>>.makeStream()
            let forward = Task<Void, Never> {
                send.yield(await result)
                send.finish()
            }
            for await result in results { return result }
            forward.cancel()
            cancel()
            return .failure(Swift.CancellationError())
        }
    }
}

/// A gpsd TPV report: by default a good 3D fix (eph 20 m).
func tpv(_ lat: Double, _ lon: Double, eph: Double? = 20, mode: Int = 3) -> GPSReport {
    GPSReport(mode: mode, coordinate: Coordinate(lat: lat, lon: lon), horizontalError: eph)
}
