import Logging

/// Keeps each watched city's forecast for Home Assistant on the broker (``HomeAssistantForecastPlan``
/// decides when): after every change of the overlays it reads the watched cities, fetches the
/// forecasts due through the engine's `forecast` (the lookups' cache, single flight and request
/// budget, as any forecast), one at a time, and hands the payloads to ``MQTTLatest``.
public final class HomeAssistantForecastRefresher: Sendable {
    private let latest: MQTTLatest
    private let logger: Logger
    private let changed = Wakeup()

    public init(latest: MQTTLatest, logger: Logger) {
        self.latest = latest
        self.logger = logger
    }

    /// The engine's publisher of this refresher: each overlays change wakes it.
    public var publisher: any ChangePublisher { OverlaysWakeup(wakeup: changed) }

    /// Refreshes the forecasts until cancelled.
    public func run(engine: SearchEngine) async throws {
        var plan = HomeAssistantForecastPlan(topics: latest.topics)
        while true {
            try Task.checkCancellation()
            let actions = plan.citiesChanged(await engine.watchedCityFeatures)
            for message in actions.publish { latest.set(message) }
            for fetch in actions.fetch {
                do {
                    let forecast = try await engine.forecast(.city(fetch.city))
                    if let message = plan.fetched(fetch.key, forecast) { latest.set(message) }
                } catch let error as WeatherError {
                    logger.warning("the forecast of watched city \(fetch.city) for Home Assistant: \(error.message)")
                }
            }
            guard await changed.wait() else { throw CancellationError() }
        }
    }
}

/// Wakes a task at every change of the overlays (not of the state alone).
struct OverlaysWakeup: ChangePublisher {
    let wakeup: Wakeup

    func publish(state: DaemonState) {}

    func publish(overlays: Overlays) {
        wakeup.wake()
    }
}
