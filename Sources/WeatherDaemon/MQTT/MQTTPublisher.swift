import CMosquitto
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import WeatherCore
import WeatherSessions

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a connection to the MQTT broker and publishes to it (contract: "MQTT"): `P/D/status`
/// (`online`; `offline` at shutdown and as the Last Will), the latest overlays and state
/// (retained, QoS 1), Home Assistant discovery when asked, and replies to the JSON-RPC requests
/// received on `P/D/request`, which go through the same `RequestHandler` as the socket's, in the
/// order they arrive (access ``ClientAccess/broker``: the broker's own access control decides who
/// may send).
///
/// The daemon never waits on the broker: the engine hands its changes to ``MQTTLatest``, which
/// keeps only the latest per topic; libmosquitto runs on one thread of this publisher's own, which
/// alone touches it. A lost connection is made again with backoff (1 s doubling to at most 30 s),
/// by a new libmosquitto client, so what was queued on the old one is never sent: only the latest.
public final class MQTTPublisher: Service, CustomStringConvertible {
    /// What the publisher needs of the `[mqtt]` table (and of `weather.units`).
    public struct Settings: Sendable {
        public var broker: BrokerAddress
        public var clientID: String
        public var username: String
        public var password: Secret?
        public var keepalive: Duration
        public var homeAssistant: Bool
        public var discoveryPrefix: String
        public var units: Units
        /// The index of the air quality sensor (`air-quality.scale`); nil while air quality is disabled.
        public var airQualityScale: AirQualityScale?
        /// `owntracks.mqtt_topics` and the service their payloads go to; nil: none.
        var ownTracks: OwnTracksSubscription?

        public init(_ config: DaemonConfig, broker: BrokerAddress, clientID: String, ownTracks: OwnTracksService? = nil) {
            self.broker = broker
            self.clientID = clientID
            username = config.mqtt.username
            password = config.mqtt.password
            keepalive = config.mqtt.keepalive
            homeAssistant = config.mqtt.homeAssistant
            discoveryPrefix = config.mqtt.discoveryPrefix
            units = config.weather.units
            airQualityScale = config.airQuality.enabled ? config.airQuality.scale : nil
            if let ownTracks, !config.ownTracks.mqttTopics.isEmpty {
                self.ownTracks = OwnTracksSubscription(topics: config.ownTracks.mqttTopics, service: ownTracks)
            }
        }
    }

    /// The longest a connection attempt may take, until the broker accepts it (also bounded by the keepalive).
    static let maxConnectTime = Duration.seconds(10)
    /// MQTT requests handled at once; more wait for one to finish.
    static let maxRequestsInFlight = 16
    /// Requests received and not yet handled; more are dropped (with a log line).
    static let maxQueuedRequests = 64
    /// How long a clean shutdown waits for the broker to acknowledge `offline`.
    static let offlineGrace = Duration.milliseconds(500)

    private let settings: Settings
    private let latest: MQTTLatest
    private let handler: RequestHandler
    private let clock: DaemonClock
    private let logger: Logger
    private let wakeup = WakeFD()
    private let stopped = Wakeup()
    private let stopping = Atomic<Bool>(false)
    /// Ends the wait of `runUnlessStopped` (at most one at a time) when the publisher stops.
    private let abandonWait = Mutex<(@Sendable () -> Void)?>(nil)
    private let requests: AsyncStream<MQTTRequest>
    private let requestInput: AsyncStream<MQTTRequest>.Continuation
    private let discovery: DiscoveryState?

    /// The device name for an empty `mqtt.client_id`: the host name, with `/`, `+` and `#` (which
    /// a topic level cannot hold) replaced by `_`.
    public static func defaultClientID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "weatherd"
        let cleaned = String(name.map { "/+#".contains($0) ? "_" : $0 })
        return cleaned.isEmpty ? "weatherd" : cleaned
    }

    public init(settings: Settings, latest: MQTTLatest, handler: RequestHandler, clock: DaemonClock, logger: Logger) {
        self.settings = settings
        self.latest = latest
        self.handler = handler
        self.clock = clock
        self.logger = logger
        (requests, requestInput) = AsyncStream.makeStream(of: MQTTRequest.self, bufferingPolicy: .bufferingOldest(Self.maxQueuedRequests))
        discovery =
            settings.homeAssistant
            ? DiscoveryState(
                HomeAssistantDiscovery(
                    topics: latest.topics, discoveryPrefix: settings.discoveryPrefix, units: settings.units,
                    airQualityScale: settings.airQualityScale, version: WeatherdVersion.current))
            : nil
        latest.onChange { [wakeup] in wakeup.signal() }
    }

    deinit {
        // The engine may still hand over changes: its closure holds the eventfd open until it is gone.
        latest.onChange {}
    }

    public var description: String { "MQTTPublisher" }

    private var sessionSettings: MosquittoSession.Settings {
        MosquittoSession.Settings(
            broker: settings.broker, clientID: settings.clientID, username: settings.username, password: settings.password,
            keepaliveSeconds: Int32(settings.keepalive.components.seconds), topics: latest.topics, ownTracks: settings.ownTracks)
    }

    /// Ends the connection loop: `offline` is published, then the connection closed.
    private func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.signal()
        stopped.wake()
        let abandon = abandonWait.withLock { abandon in
            defer { abandon = nil }
            return abandon
        }
        abandon?()
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    public func run() async throws {
        guard wakeup.isValid else { throw MQTTError("cannot create the MQTT publisher's eventfd (out of file descriptors?)") }
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        defer {
            latest.onChange {}
            // Not awaited: the thread may still be in work nobody waits for any more (the broker's
            // name resolving, see `serve`); it ends after that, and the daemon exits without it.
            thread.shutdownGracefully { _ in }
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withTaskGroup(of: Void.self) { parts in
                    parts.addTask { await self.serveRequests() }
                    await self.connect(on: thread)
                    requestInput.finish()
                    parts.cancelAll()
                }
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Connects, serves the connection until it is lost, and again, until stopped.
    private func connect(on thread: NIOThreadPool) async {
        var reconnect = MQTTReconnect()
        let broker = settings.broker
        let topics = latest.topics
        while !isStopping {
            let session: MosquittoSession
            do {
                session = try MosquittoSession(
                    settings: sessionSettings, version5: reconnect.version5, latest: latest, discovery: discovery, logger: logger,
                    receive: { [requestInput, logger] request in
                        if case .dropped = requestInput.yield(request) {
                            logger.warning("MQTT: dropped a request on \(topics.request): \(Self.maxQueuedRequests) requests wait already")
                        }
                    })
            } catch {
                // Nothing a retry would change (no memory, no TLS support): the daemon goes on without MQTT.
                logger.error("MQTT: \(error); not publishing to \(broker)")
                _ = try? await stopped.sleep(until: nil, on: clock)
                return
            }
            let ended = await serve(session, on: thread)
            let dropped = latest.connectionLost()
            settings.ownTracks?.service.submit(subscribed: false)
            if dropped > 0 { logger.info("MQTT: \(dropped) replies not sent: the connection to \(broker) is gone") }
            if isStopping { break }
            let refusedVersion = session.refusal.map {
                $0 == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue) || $0 == Int32(CONNACK_REFUSED_PROTOCOL_VERSION.rawValue)
            }
            let reason =
                session.refusal.map { "refused: " + MosquittoSession.refusalText($0, version5: reconnect.version5) } ?? ended.reason
                ?? "connection lost"
            switch reconnect.ended(upFor: ended.upFor, refusedVersion: refusedVersion ?? false) {
            case .retryWithVersion311:
                logger.notice("MQTT: \(broker) does not speak MQTT 5; using MQTT 3.1.1")
                continue
            case .wait(_, .lostAfterLasting):
                logger.warning("MQTT: the connection to \(broker) is lost (\(reason)); reconnecting")
            case .wait(let wait, .lostSoon(let upFor)):
                let takeover =
                    session.takenOver
                    ? "the broker gave the session to another client with the client id \(settings.clientID)"
                    : "is another client connected with the client id \(settings.clientID)? the broker drops the older of two"
                logger.warning(
                    "MQTT: the connection to \(broker) is lost (\(reason)) \(upFor.components.seconds) s after it was accepted (\(takeover)); reconnecting in \(wait)"
                )
            case .wait(_, .cannotConnect(first: true)):
                logger.warning("MQTT: cannot connect to \(broker) (\(reason)); retrying with backoff")
            case .wait(let wait, .cannotConnect(first: false)):
                logger.debug("MQTT: still cannot connect to \(broker) (\(reason)); next try in \(wait)")
            }
            do {
                _ = try await stopped.sleep(until: clock.now.advanced(by: reconnect.backoff.current), on: clock)
            } catch {
                break  // cancelled
            }
            reconnect.waited()
        }
        logger.info("MQTT: stopped")
    }

    /// How a session's connection ended.
    private struct Ended {
        /// Why, when known.
        var reason: String?
        /// How long it was up after the broker accepted it; nil: it never was.
        var upFor: Duration?
    }

    /// Serves one session until its connection is lost, the attempt takes too long, or the
    /// publisher stops (publishes `offline` first, when connected).
    private func serve(_ session: MosquittoSession, on thread: NIOThreadPool) async -> Ended {
        let broker = settings.broker
        let connectTime = min(settings.keepalive, Self.maxConnectTime)
        // libmosquitto resolves the broker's name in `start`, on the thread, and nothing interrupts
        // that: a stop does not wait for it (the closure keeps the session, which is destroyed on
        // the thread once `start` returns).
        switch await runUnlessStopped(on: thread, { try session.start() }) {
        case nil: return Ended()
        case .failure(let error)?: return Ended(reason: "\(error)")
        case .success?: break
        }
        let attemptEnds = clock.now.advanced(by: connectTime)
        var connectedAt: DaemonClock.Instant?
        let (wakeup, latest) = (self.wakeup, self.latest)
        while !isStopping {
            let alive =
                (try? await thread.runIfActive { session.step(wakeup: wakeup.fd, timeout: 1000, replies: latest.takeReplies) }) ?? false
            if session.connected, connectedAt == nil {
                connectedAt = clock.now
                logger.notice(
                    "MQTT: connected to the broker at \(broker) (MQTT \(session.version5 ? "5" : "3.1.1")) as \(settings.clientID); publishing under \(latest.topics.prefix)/\(latest.topics.device)"
                )
            }
            if !alive { return Ended(reason: session.failure, upFor: connectedAt.map { $0.duration(to: clock.now) }) }
            if connectedAt == nil, !(clock.now < attemptEnds) {
                return Ended(reason: "no answer from the broker within \(connectTime)")
            }
        }
        // Shutting down: `offline`, acknowledged or not within the grace, then goodbye.
        let deadline = clock.now.advanced(by: Self.offlineGrace)
        _ = try? await thread.runIfActive { session.publishOffline() }
        while session.connected, !session.offlineAcknowledged, clock.now < deadline {
            let alive = (try? await thread.runIfActive { session.step(wakeup: wakeup.fd, timeout: 50, replies: { [] }) }) ?? false
            if !alive { break }
        }
        _ = try? await thread.runIfActive { session.disconnect() }
        return Ended()
    }

    /// Runs `body` on `thread` and returns its outcome; or nil, at once, when the publisher stops or
    /// the task is cancelled first: then `body` goes on on the thread alone, and what it captured
    /// lives until it returns.
    private func runUnlessStopped<T: Sendable>(
        on thread: NIOThreadPool, _ body: @escaping @Sendable () throws -> T
    ) async -> Result<T, any Error>? {
        let outcome = FirstOutcome<Result<T, any Error>>()
        abandonWait.withLock { $0 = { outcome.settle(nil) } }
        defer { abandonWait.withLock { $0 = nil } }
        if isStopping { return nil }
        thread.submit { state in
            switch state {
            case .active: outcome.settle(Result(catching: body))
            case .cancelled: outcome.settle(.failure(CancellationError()))
            }
        }
        return await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.settle(nil)
        }
    }

    /// Handles the requests received until the stream ends, in the order they arrived, as the socket
    /// reads a connection: a request is started only once the one before it has entered the search
    /// stream (a search has begun, …; else once it is done), so `search London` then `search Paris`
    /// leaves Paris in the overlays. Their lookups run beside each other, at most
    /// `maxRequestsInFlight` at once.
    private func serveRequests() async {
        // The admission of a client session's requests (`ClientSession`): a slot, then the request
        // enters the stream before the next is started.
        let slots = RequestSlots(limit: Self.maxRequestsInFlight)
        await withDiscardingTaskGroup { group in
            for await request in requests {
                // Cancelled: stopping.
                guard await slots.admit(into: &group, { admission in await self.handle(request, admission: admission) }) else { return }
            }
        }
    }

    /// One request, through the same `RequestHandler` as the socket's, with an outbox of its own;
    /// `admission` opens once it has entered the search stream.
    private func handle(_ request: MQTTRequest, admission: Admission) async {
        let outbox = Outbox()
        await handler.handle(line: request.payload, outbox: outbox, access: .broker, admission: admission)
        handler.disconnected(outbox)
        outbox.finish()
        var written: [String] = []  // all queued by now: a request's reply is queued before it returns
        while case .line(let line) = outbox.take() { written.append(line) }
        guard !written.isEmpty else { return }
        let topic = request.responseTopic ?? latest.topics.reply
        for line in written { latest.queue(MQTTReply(topic: topic, payload: line, correlation: request.correlation)) }
    }
}

/// The first of the outcomes settled (the later ones are ignored), for one task to await.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var outcome: T??
        var waiter: CheckedContinuation<T?, Never>?
    }

    private let state = Mutex(State())

    func settle(_ outcome: T?) {
        let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(outcome)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the first outcome.
    var value: T? {
        get async {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                let settled = state.withLock { state -> T?? in
                    if let outcome = state.outcome { return .some(outcome) }
                    state.waiter = continuation
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        }
    }
}
