import CoreMetrics
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The OwnTracks input: payloads from the app, received over MQTT (``submit(_:topic:)``) or HTTP
/// mode (``receive(_:user:device:via:)``). A payload is read by ``OwnTracksPayload`` (an encrypted
/// one opened with the configured key); `owntracks.follow`'s device's fixes go to the fused
/// location; with `owntracks.devices` every device is a feature with the weather where it is
/// (``DeviceTracker``), looked up through the same lookups as every search (the 2-decimal cell, the
/// cache, the budget), and the overlays change at most once a second for them. A payload that
/// cannot be read is dropped, counted, and warned about at most once a minute per transport.
public actor OwnTracksService {
    public struct Settings: Sendable, Equatable {
        /// `owntracks.follow`: `USER/DEVICE`, or "".
        public var follow: String
        /// `owntracks.devices`.
        public var devices: Bool
        public var tracker: DeviceTracker.Settings
        /// The app's encryption key; nil: encrypted payloads are dropped.
        public var secret: Secret?
        /// HTTP mode is on (`owntracks.http`, with the web listener).
        public var http: Bool

        public init(follow: String = "", devices: Bool = true, tracker: DeviceTracker.Settings, secret: Secret? = nil, http: Bool = false) {
            self.follow = follow
            self.devices = devices
            self.tracker = tracker
            self.secret = secret
            self.http = http
        }

        public init(_ config: DaemonConfig) {
            let ownTracks = config.ownTracks
            self.init(
                follow: ownTracks.follow, devices: ownTracks.devices,
                tracker: .init(distance: ownTracks.deviceDistance, ttl: ownTracks.deviceTTL), secret: ownTracks.secret,
                http: ownTracks.http && !config.web.listen.isEmpty)
        }
    }

    /// How a payload came.
    public enum Transport: String, Sendable, Hashable {
        case mqtt = "MQTT"
        case http = "HTTP"
    }

    /// What became of a payload.
    public enum Outcome: Sendable, Equatable {
        /// A location, taken (by the fused location, as a device, or both).
        case location
        /// A location of a device that is neither followed nor shown (`devices = false`), or too old.
        case unused
        /// Another `_type`, ignored.
        case ignored
        case dropped(OwnTracksDropReason)
    }

    /// The longest time the overlays wait for the devices' changes: they change at most this often for them.
    public static let publishInterval = Duration.seconds(1)
    /// Device lookups in flight at once.
    public static let lookupConcurrency = 4
    /// MQTT payloads waiting to be read; beyond it the oldest are dropped (a newer position replaces them).
    public static let maxQueued = 4096

    private var settings: Settings
    private let location: LocationService
    private let engine: SearchEngine
    private let lookUp: @Sendable (Coordinate) async throws -> WeatherObservation
    private let makeOpener: @Sendable (Secret) -> any OwnTracksOpener
    private let clock: DaemonClock
    private let wallClock: @Sendable () -> Date
    private let logger: Logger
    private var opener: (any OwnTracksOpener)?
    private var tracker: DeviceTracker
    private var warnings = DropWarnings<Transport>()
    private var subscribed = false
    /// The devices' features changed since they were last handed to the engine.
    private var dirty = false
    private var publishedAt: DaemonClock.Instant?
    private let changed = Wakeup()
    /// What the MQTT connection hands over, in order.
    private enum Inbound: Sendable {
        case payload([UInt8], topic: String)
        case subscribed(Bool)
    }

    private let inbox: AsyncStream<Inbound>
    private let inboxInput: AsyncStream<Inbound>.Continuation
    private let lookupRequests: AsyncStream<(id: String, point: Coordinate)>
    private let lookupInput: AsyncStream<(id: String, point: Coordinate)>.Continuation

    /// - Parameters:
    ///   - lookUp: the weather at a point, through the daemon's lookups (cell, cache, budget).
    ///   - makeOpener: the opener of encrypted payloads for a key (libsodium, at the edge).
    public init(
        settings: Settings, location: LocationService, engine: SearchEngine,
        lookUp: @escaping @Sendable (Coordinate) async throws -> WeatherObservation,
        makeOpener: @escaping @Sendable (Secret) -> any OwnTracksOpener, clock: DaemonClock,
        wallClock: @escaping @Sendable () -> Date = Date.init, logger: Logger
    ) {
        self.settings = settings
        self.location = location
        self.engine = engine
        self.lookUp = lookUp
        self.makeOpener = makeOpener
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
        self.opener = settings.secret.map(makeOpener)
        self.tracker = DeviceTracker(settings: settings.tracker)
        (inbox, inboxInput) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.maxQueued))
        (lookupRequests, lookupInput) = AsyncStream.makeStream()
    }

    /// `USER/DEVICE` of a topic: its last two levels; nil for a topic of fewer levels or an empty one.
    public static func sender(ofTopic topic: String) -> (user: String, device: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 2, let device = levels.last, !device.isEmpty, !levels[levels.count - 2].isEmpty else { return nil }
        return (String(levels[levels.count - 2]), String(device))
    }

    /// The devices known now (for the tests and the state).
    public var deviceCount: Int { tracker.devices.count }

    // MARK: Receiving

    /// A payload received on an OwnTracks topic (from the MQTT thread; never waits): read by ``run()``.
    public nonisolated func submit(_ payload: [UInt8], topic: String) {
        inboxInput.yield(.payload(payload, topic: topic))
    }

    /// The broker granted the subscriptions (true) or the connection was lost (false); from the
    /// MQTT thread, never waits.
    public nonisolated func submit(subscribed: Bool) {
        inboxInput.yield(.subscribed(subscribed))
    }

    /// The subscriptions were made (true) or the connection lost (false).
    public func setSubscribed(_ subscribed: Bool) async {
        self.subscribed = subscribed
        await location.setOwnTracksConnected(subscribed || settings.http)
    }

    /// One payload of `USER/DEVICE`.
    @discardableResult
    public func receive(_ payload: [UInt8], user: String, device: String, via transport: Transport) async -> Outcome {
        switch OwnTracksPayload.parse(payload, opener: opener) {
        case .failure(let reason):
            drop(reason, from: "\(user)/\(device)", via: transport)
            return .dropped(reason)
        case .success(.ignored):
            return .ignored
        case .success(.location(let fix)):
            return await take(fix, user: user, device: device)
        }
    }

    private func drop(_ reason: OwnTracksDropReason, from sender: String, via transport: Transport) {
        Counter(label: "weatherd_location_fixes_total", dimensions: [("source", "owntracks"), ("accepted", "false")]).increment()
        switch warnings.dropped(from: transport, now: clock.now) {
        case .warn(let suppressed):
            let since = suppressed > 0 ? " (and \(suppressed) more dropped since the last warning)" : ""
            logger.warning(
                "OwnTracks: dropped a payload from \(Self.printable(sender)) over \(transport.rawValue): \(reason)\(since); at most one such warning a minute"
            )
        case .quiet:
            break
        }
    }

    /// A sender's name as a log line may show it: control characters replaced, at most 64 characters.
    static func printable(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        return cleaned.count > 64 ? String(cleaned.prefix(64)) + "…" : cleaned
    }

    private func take(_ fix: OwnTracksLocation, user: String, device: String) async -> Outcome {
        let name = "\(user)/\(device)"
        var taken = false
        if !settings.follow.isEmpty, name == settings.follow {
            // An unknown accuracy is no accuracy: the fused location takes only fixes within its limit.
            await location.receive(
                ownTracks: LocationFix(
                    coordinate: fix.coordinate, horizontalError: fix.accuracy ?? .infinity, at: fix.at, source: .owntracks, device: name))
            taken = true
        }
        guard settings.devices else { return taken ? .location : .unused }
        switch tracker.receive(user: user, device: device, fix, now: wallClock()) {
        case .tooOld:
            if !taken {
                Counter(label: "weatherd_location_fixes_total", dimensions: [("source", "owntracks"), ("accepted", "false")]).increment()
            }
            return taken ? .location : .unused
        case .lookUp(let point):
            lookupInput.yield(("device:\(name)", point))
        case .moved:
            break
        }
        if !taken {
            Counter(label: "weatherd_location_fixes_total", dimensions: [("source", "owntracks"), ("accepted", "true")]).increment()
        }
        markChanged()
        return .location
    }

    private func markChanged() {
        guard !dirty else { return }
        dirty = true
        changed.wake()
    }

    // MARK: Running

    /// Reads the MQTT payloads, runs the devices' lookups, hands the devices' features to the
    /// engine at most once a second and drops the devices that reached `device_ttl`, until cancelled.
    public nonisolated func run() async {
        await announceConnected()
        await withTaskGroup(of: Void.self) { parts in
            parts.addTask { await self.readInbox() }
            parts.addTask { await self.runLookups() }
            parts.addTask { await self.runPublishing() }
            await parts.next()
            parts.cancelAll()
        }
    }

    private func announceConnected() async {
        await location.setOwnTracksConnected(subscribed || settings.http)
    }

    private nonisolated func readInbox() async {
        for await inbound in inbox {
            switch inbound {
            case .payload(let payload, let topic):
                guard let sender = Self.sender(ofTopic: topic) else { continue }
                await receive(payload, user: sender.user, device: sender.device, via: .mqtt)
            case .subscribed(let subscribed):
                await setSubscribed(subscribed)
            }
        }
    }

    private nonisolated func runLookups() async {
        await withDiscardingTaskGroup { group in
            var inFlight = 0
            var iterator = lookupRequests.makeAsyncIterator()
            // At most `lookupConcurrency` at once: each finished lookup hands its slot back through `done`.
            let (done, doneInput) = AsyncStream.makeStream(of: Void.self)
            var doneIterator = done.makeAsyncIterator()
            while !Task.isCancelled {
                if inFlight == Self.lookupConcurrency {
                    guard await doneIterator.next() != nil else { return }
                    inFlight -= 1
                }
                guard let request = await iterator.next() else { return }
                inFlight += 1
                group.addTask {
                    await self.lookUpDevice(request.id, at: request.point)
                    doneInput.yield()
                }
            }
        }
    }

    private func lookUpDevice(_ id: String, at point: Coordinate) async {
        do {
            let observation = try await lookUp(point)
            if tracker.answered(id, at: point, observation) { markChanged() }
        } catch {
            tracker.failed(id, at: point)
            if !(error is CancellationError) { logger.debug("OwnTracks: the weather for \(Self.printable(id)) failed: \(error)") }
        }
    }

    private nonisolated func runPublishing() async {
        await changed.actWhenDue(on: clock, due: { await self.nextDue }) { await self.publishIfDue() }
    }

    /// When the next publication or expiry is due.
    private var nextDue: DaemonClock.Instant? {
        let now = clock.now
        var due: DaemonClock.Instant?
        if dirty { due = publishedAt.map { max($0.advanced(by: Self.publishInterval), now) } ?? now }
        if let expiry = tracker.nextExpiry {
            let at = now.advanced(by: .seconds(max(expiry.timeIntervalSince(wallClock()), 0)))
            due = due.map { min($0, at) } ?? at
        }
        return due
    }

    private func publishIfDue() async {
        if !tracker.expire(now: wallClock()).isEmpty { dirty = true }
        let now = clock.now
        guard dirty, publishedAt.map({ !(now < $0.advanced(by: Self.publishInterval)) }) ?? true else { return }
        dirty = false
        publishedAt = now
        await engine.setDeviceFeatures(tracker.features)
    }

    // MARK: Reload

    /// New `[owntracks]` settings (a reload); the key too.
    public func update(_ settings: Settings) async {
        guard settings != self.settings else { return }
        let wasShowing = self.settings.devices
        self.settings = settings
        opener = settings.secret.map(makeOpener)
        tracker.settings = settings.tracker
        if wasShowing, !settings.devices {
            tracker = DeviceTracker(settings: settings.tracker)
            dirty = true
        }
        await location.setOwnTracksConnected(subscribed || settings.http)
        changed.wake()
    }
}

extension OwnTracksService: Reconfigurable {
    public func apply(_ change: ConfigChange) async {
        await update(Settings(change.new))
    }
}
