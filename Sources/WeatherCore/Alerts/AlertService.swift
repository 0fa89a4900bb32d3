import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the alerts of every place on the map: a service of its own, beside the searches and never
/// on their path. Each change of the overlays tells it the places (through ``publisher``), which it
/// takes in at most once per ``stepInterval`` (so a stream of searches, each changing the focus,
/// does not wake it for each one, on another thread); it asks
/// each alert provider for the cells it covers when ``AlertRefreshState`` says so (at once for a new
/// cell, then every `alerts.refresh`), and hands what it knows to the engine, which puts the alerts
/// into the features and the alert areas into the overlays (at most one such change a second); its
/// health shows in `state.services` (``ServiceStatusReporting``).
public actor AlertService {
    /// One provider and its refresh rules.
    private struct Lane {
        let provider: any AlertProvider
        var machine: AlertRefreshState
    }

    private let clock: DaemonClock
    private let wallClock: @Sendable () -> Date
    private let logger: Logger
    private var lanes: [Lane] {
        didSet { health.withLock { $0 = Self.providerHealth(of: lanes) } }
    }
    /// Each provider's name and health, as `lanes` last had them: ``serviceStatusesNow`` reads them outside the actor.
    private let health: Mutex<[(name: String, health: ProviderHealth)]>
    private let places: PlacesOnMap
    private let wakeup = Wakeup()
    /// When the engine last got the view, and the view and services it got.
    private var lastPush: DaemonClock.Instant?
    private var pushed = AlertView()
    private var pushedServices: [ServiceStatus]?
    /// At most one overlays change a second for alerts alone.
    static let pushInterval = Duration.seconds(1)
    /// At most one step per this time: a stream of searches changes the places with each reply, and
    /// each change would otherwise wake this service on another thread.
    static let stepInterval = Duration.milliseconds(100)

    public init(
        providers: [any AlertProvider], settings: AlertRefreshState.Settings, clock: DaemonClock,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        let lanes = providers.map { Lane(provider: $0, machine: AlertRefreshState(settings: settings)) }
        self.lanes = lanes
        self.health = Mutex(Self.providerHealth(of: lanes))
        self.places = PlacesOnMap(wakeup: wakeup)
    }

    /// The engine's publisher of this service: each overlays change tells it the places on the map.
    public nonisolated var publisher: any ChangePublisher { places }

    /// Refreshes the alerts until cancelled, handing what is known to `engine`; the requests of one
    /// moment run side by side.
    public func run(engine: SearchEngine) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            while true {
                try Task.checkCancellation()
                let stepped = clock.now
                for request in step() {
                    group.addTask { await self.send(request.request, lane: request.lane) }
                }
                await push(to: engine)
                let woken = try await wakeup.sleep(until: nextWake(), on: clock)
                let next = stepped.advanced(by: Self.stepInterval)
                if woken, clock.now < next {
                    // Woken again soon (new places, an answer, new settings): what else comes
                    // meanwhile is kept by the wake-up and taken in by one step.
                    try await clock.sleep(until: next)
                }
            }
        }
    }

    /// The alerts at `point` now, most severe first, for the `alerts` method: what the refreshes
    /// know of its cell, else asked at once (spending the budget). nil outside every provider's area.
    /// - Throws: `WeatherError` (`rate_limited`, `upstream_unavailable`) with `data.provider`.
    public func alerts(at point: Coordinate) async throws -> [Alert]? {
        guard let index = lanes.firstIndex(where: { $0.provider.covers(point) }) else { return nil }
        let cell = AlertCell(point)
        let provider = lanes[index].provider
        let name = provider.name.rawValue
        if lanes[index].machine.isOutside(cell) { return nil }
        let wallNow = wallClock()
        if let known = lanes[index].machine.alerts(at: cell)?.alerts { return known.filter { !$0.isOver(at: wallNow) } }
        if let refusal = lanes[index].machine.admitOne(now: clock.now) {
            let wait = refusal.retryAfter?.secondsRoundedUp ?? 0
            throw WeatherError(
                .rateLimited, "the \(name.uppercased()) alerts are not asked now; retry in \(wait) s",
                details: ["retry_after": .integer(Int64(wait)), "provider": .string(name)])
        }
        do {
            let alerts = try await provider.alerts(at: cell.coordinate)
            _ = lanes[index].machine.answered(cell, alerts: alerts, now: clock.now, wallNow: wallClock())
            return Alert.ordered(alerts.filter { !$0.isOver(at: wallClock()) })
        } catch let error as UpstreamError {
            _ = lanes[index].machine.failed(cell, error, now: clock.now, wallNow: wallClock())
            wakeup.wake()
            switch error {
            case .notFound: return nil
            case .rateLimited(let retryAfter):
                let wait = (retryAfter ?? ProviderHealth.defaultRetryAfter).secondsRoundedUp
                throw WeatherError(
                    .rateLimited, "the \(name.uppercased()) rate limit is reached; retry in \(wait) s",
                    details: ["retry_after": .integer(Int64(wait)), "provider": .string(name)])
            case .unauthorized, .unavailable:
                throw WeatherError(
                    .upstreamUnavailable, "the \(name.uppercased()) alerts are unavailable: \(error.reason)",
                    details: ["provider": .string(name)])
            }
        }
    }

    // MARK: Steps

    /// Takes in the places, drops what is over, and says which requests to send now.
    private func step() -> [(lane: Int, request: AlertRefreshState.Request)] {
        let points = places.current
        let now = clock.now
        var requests: [(Int, AlertRefreshState.Request)] = []
        for index in lanes.indices {
            let provider = lanes[index].provider
            lanes[index].machine.track(Set(points.filter(provider.covers).map(AlertCell.init)), now: now)
            _ = lanes[index].machine.expire(wallNow: wallClock())
            requests += lanes[index].machine.requests(now: now).map { (index, $0) }
        }
        return requests
    }

    private func send(_ request: AlertRefreshState.Request, lane index: Int) async {
        let provider = lanes[index].provider
        switch request {
        case .cell(let cell):
            do {
                let alerts = try await provider.alerts(at: cell.coordinate)
                _ = lanes[index].machine.answered(cell, alerts: alerts, now: clock.now, wallNow: wallClock())
            } catch let error as UpstreamError {
                if case .notFound = error {
                    logger.info("\(provider.name.rawValue): \(cell) is outside its area; not asked again for a while")
                } else {
                    logger.warning("\(provider.name.rawValue) alerts at \(cell): \(error.reason); the last ones are kept")
                }
                _ = lanes[index].machine.failed(cell, error, now: clock.now, wallNow: wallClock())
            } catch {
                return  // cancelled: shutting down
            }
        case .zone(let zone):
            do {
                let area = try await provider.zoneArea(zone)
                _ = lanes[index].machine.zoneAnswered(zone, area: area, now: clock.now)
            } catch let error as UpstreamError {
                logger.warning("\(provider.name.rawValue) zone \(zone): \(error.reason)")
                lanes[index].machine.zoneFailed(zone, error, now: clock.now, wallNow: wallClock())
            } catch {
                return
            }
        }
        wakeup.wake()
    }

    /// Hands the engine what is known, when it changed and a second has passed since the last time.
    private func push(to engine: SearchEngine) async {
        let now = clock.now
        let wallNow = wallClock()
        let services = statuses(now: now, wallNow: wallNow)
        if services != pushedServices {
            pushedServices = services
            await engine.refreshBudget()  // it reads them through ServiceStatusReporting
        }
        let view = currentView
        guard view != pushed else { return }
        if let lastPush, now < lastPush.advanced(by: Self.pushInterval) { return }
        pushed = view
        lastPush = now
        await engine.updateAlerts(view)
    }

    /// Every lane's cells and areas, as the engine shows them.
    private var currentView: AlertView {
        var view = AlertView()
        for lane in lanes {
            for cell in places.current.map(AlertCell.init) {
                if let known = lane.machine.alerts(at: cell) { view.cells[cell] = known }
            }
            view.areas += lane.machine.areas.map { AlertAreaFeature(alert: $0.alert, area: $0.area) }
        }
        return view
    }

    private func nextWake() -> DaemonClock.Instant? {
        let now = clock.now
        var moments = lanes.compactMap { $0.machine.nextWake(now: now, wallNow: wallClock()) }
        if currentView != pushed, let lastPush { moments.append(lastPush.advanced(by: Self.pushInterval)) }
        return moments.min()
    }
}

extension AlertService: ServiceStatusReporting {
    /// Each alert provider's entry of `state.services` (`nws`), in `alerts.providers` order.
    public var serviceStatuses: [ServiceStatus] { statuses(now: clock.now, wallNow: wallClock()) }

    /// Each alert provider's entry (``serviceStatuses``), read in the caller's thread.
    public nonisolated var serviceStatusesNow: [ServiceStatus]? {
        let (now, wallNow) = (clock.now, wallClock())
        return health.withLock { $0 }.map { AlertRefreshState.status($0.name, of: $0.health, now: now, wallNow: wallNow) }
    }

    private static func providerHealth(of lanes: [Lane]) -> [(name: String, health: ProviderHealth)] {
        lanes.map { ($0.provider.name.rawValue, $0.machine.providerHealth) }
    }

    private func statuses(now: DaemonClock.Instant, wallNow: Date) -> [ServiceStatus] {
        lanes.map { $0.machine.status($0.provider.name.rawValue, now: now, wallNow: wallNow) }
    }
}

extension AlertService: Reconfigurable {
    /// New `alerts.refresh` and budget: the next waits use them.
    public func apply(_ change: ConfigChange) {
        for index in lanes.indices {
            var settings = lanes[index].machine.settings
            settings.refresh = change.new.alerts.refresh
            settings.requestsPerMinute = change.new.alerts.requestsPerMinute
            settings.zoneTTL = change.new.weather.geocodeTTL
            lanes[index].machine.apply(settings)
        }
        wakeup.wake()
    }
}

/// The places of the weather features on the map, from each overlays change: what the alert service
/// follows. Called under the engine's isolation, so it only keeps the points and wakes the service.
final class PlacesOnMap: ChangePublisher {
    private let points = Mutex<[Coordinate]>([])
    private let wakeup: Wakeup

    init(wakeup: Wakeup) { self.wakeup = wakeup }

    var current: [Coordinate] { points.withLock { $0 } }

    func publish(state: DaemonState) {}

    func publish(overlays: Overlays) {
        let next = overlays.features.map(\.coordinate)
        let changed = points.withLock { points in
            guard points != next else { return false }
            points = next
            return true
        }
        if changed { wakeup.wake() }
    }
}
