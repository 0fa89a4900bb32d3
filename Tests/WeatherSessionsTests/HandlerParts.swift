@testable import TestSupport
@testable import WeatherCore

/// The location service a handler under test gets: on the harness's engine and manual clock, with
/// gpsd `enabled` or not and `locateTimeout` as the config's `locate_timeout`.
func locationService(
    on engine: EngineHarness, enabled: Bool = false, locateTimeout: Duration = .seconds(30)
) -> LocationService {
    LocationService(
        settings: .init(
            enabled: enabled, maxHorizontalError: 100, locateTimeout: locateTimeout, follow: false, followDistance: 1000),
        engine: engine.engine, clock: DaemonClock(engine.clock), logger: silentLogger)
}

/// The region searches a handler under test gets: the config's defaults, on the harness's engine
/// and manual clock.
func regionSearches(on engine: EngineHarness) -> RegionSearches {
    RegionSearches(
        settings: .init(debounce: .milliseconds(250), around: 1, concurrency: 4), engine: engine.engine,
        clock: DaemonClock(engine.clock), logger: silentLogger)
}
