import CMosquitto
import COnDemand
import Logging
import WeatherCore

#if canImport(Glibc)
    import Glibc
#endif

/// A JSON-RPC request received on `P/D/request`, and where its reply goes.
struct MQTTRequest: Sendable {
    var payload: [UInt8]
    /// The MQTT 5 response topic; nil: `P/D/reply`.
    var responseTopic: String?
    /// The MQTT 5 correlation data, echoed with the reply.
    var correlation: [UInt8]?
}

/// The OwnTracks topics to subscribe to, and where their payloads go.
struct OwnTracksSubscription: Sendable {
    var topics: [String]
    var service: OwnTracksService
}

/// One connection attempt to the broker: a libmosquitto handle, used only on the publisher's thread
/// (libmosquitto's callbacks run there too, inside `step`). A new attempt is a new session, so
/// nothing libmosquitto queued on a lost connection is ever sent later: after a reconnect only the
/// latest payloads go out.
final class MosquittoSession: @unchecked Sendable {
    struct Settings: Sendable {
        var broker: BrokerAddress
        var clientID: String
        var username: String
        var password: Secret?
        var keepaliveSeconds: Int32
        var topics: MQTTTopics
        /// The OwnTracks subscriptions (`owntracks.mqtt_topics`); made again on every connection.
        var ownTracks: OwnTracksSubscription?
    }

    /// libmosquitto, loaded on first use and initialised once: nil, else why it is not there.
    private static let libraryProblem: String? = {
        if let problem = LibraryOnDemand.load(weatherd_load_mosquitto) { return problem }
        mosquitto_lib_init()
        return nil
    }()

    let settings: Settings
    let version5: Bool
    private let handle: OpaquePointer
    private let latest: MQTTLatest
    private let discovery: DiscoveryState?
    private let receive: @Sendable (MQTTRequest) -> Void
    private let logger: Logger

    /// The broker accepted the connection (CONNACK 0) and it is not lost since.
    private(set) var connected = false
    /// Whether it was ever accepted.
    private(set) var wasConnected = false
    /// The broker refused the connection: its reason code.
    private(set) var refusal: Int32?
    /// The broker ended the connection because another client connected with the same client id
    /// (MQTT 5 reason code 0x8E, session taken over).
    private(set) var takenOver = false
    /// Messages in flight: the store's topic and version by message id.
    private var inFlight: [Int32: (topic: String, version: Int)] = [:]
    /// The message id of the OwnTracks subscriptions, until the broker answers them.
    private var ownTracksSubscription: Int32?
    /// The message id of `offline` at shutdown, and whether the broker acknowledged it.
    private var offlineID: Int32?
    private(set) var offlineAcknowledged = false

    init(
        settings: Settings, version5: Bool, latest: MQTTLatest, discovery: DiscoveryState?,
        logger: Logger, receive: @escaping @Sendable (MQTTRequest) -> Void
    ) throws(MQTTError) {
        if let problem = Self.libraryProblem { throw MQTTError("cannot load libmosquitto: \(problem)") }
        guard let handle = mosquitto_new(settings.clientID, true, nil) else {
            throw MQTTError("cannot create an MQTT client (out of memory or an invalid client id)")
        }
        self.handle = handle
        self.settings = settings
        self.version5 = version5
        self.latest = latest
        self.discovery = discovery
        self.logger = logger
        self.receive = receive
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try configure()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private static func session(_ object: UnsafeMutableRawPointer?) -> MosquittoSession? {
        object.map { Unmanaged<MosquittoSession>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError("\(what): \(String(cString: mosquitto_strerror(rc)))")
        }
    }

    private func configure() throws(MQTTError) {
        try check(
            mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311),
            "MQTT protocol version")
        let offline = MQTTTopics.offline
        try check(mosquitto_will_set_v5(handle, settings.topics.status, Int32(offline.utf8.count), offline, 1, true, nil), "Last Will")
        if !settings.username.isEmpty {
            try check(mosquitto_username_pw_set(handle, settings.username, settings.password?.revealed), "user name")
        }
        if settings.broker.tls {
            // The broker's certificate is checked against the system's CA store, and its name
            // against the broker's host name.
            try check(mosquitto_tls_set(handle, nil, "/etc/ssl/certs", nil, nil, nil), "TLS")
            try check(mosquitto_tls_opts_set(handle, 1, nil, nil), "TLS options")
            try check(mosquitto_tls_insecure_set(handle, false), "TLS host name check")
        }
        mosquitto_connect_v5_callback_set(handle) { _, object, rc, _, _ in
            MosquittoSession.session(object)?.didConnect(rc)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, object, reason, _ in
            MosquittoSession.session(object)?.didDisconnect(reason)
        }
        mosquitto_publish_v5_callback_set(handle) { _, object, mid, _, _ in
            MosquittoSession.session(object)?.didPublish(mid)
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, object, mid, count, granted, _ in
            MosquittoSession.session(object)?.didSubscribe(mid, granted: Array(UnsafeBufferPointer(start: granted, count: Int(count))))
        }
        mosquitto_message_v5_callback_set(handle) { _, object, message, properties in
            guard let message else { return }
            MosquittoSession.session(object)?.didReceive(message.pointee, properties)
        }
    }

    /// Starts connecting (the TCP connection and CONNECT go on in `step`).
    func start() throws(MQTTError) {
        let rc = mosquitto_connect_async(handle, settings.broker.host, Int32(settings.broker.port), settings.keepaliveSeconds)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(Self.describe(rc)) }
    }

    /// Waits up to `timeout` milliseconds for the broker or the wakeup, does the network work due,
    /// then publishes what waits. Returns false once the connection is lost or refused.
    func step(wakeup: Int32, timeout: Int32, replies: () -> [MQTTReply]) -> Bool {
        let rc = weatherd_mqtt_step(handle, wakeup, timeout)
        guard rc == MOSQ_ERR_SUCCESS.rawValue, refusal == nil else {
            if rc != MOSQ_ERR_SUCCESS.rawValue { failure = Self.describe(rc) }
            connected = false
            return false
        }
        if connected { publishPending(replies: replies()) }
        let flushed = weatherd_mqtt_flush(handle)
        if flushed != MOSQ_ERR_SUCCESS.rawValue {
            failure = Self.describe(flushed)
            connected = false
            return false
        }
        return true
    }

    /// Why the connection ended, when libmosquitto said so.
    private(set) var failure: String?

    /// libmosquitto's error code in words (the system's for `MOSQ_ERR_ERRNO`).
    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue, errno != 0 { return String(cString: strerror(errno)) }
        if rc == MOSQ_ERR_KEEPALIVE.rawValue { return "no answer from the broker within the keep-alive interval" }
        if rc == MOSQ_ERR_TLS.rawValue {
            return "TLS failed (is the broker's certificate trusted by the system's CA store, and for its host name?)"
        }
        return String(cString: mosquitto_strerror(rc))
    }

    /// Publishes `offline` (retained); `offlineAcknowledged` tells when the broker has it.
    func publishOffline() {
        guard connected else { return }
        var mid: Int32 = 0
        if publish(settings.topics.status, MQTTTopics.offline, retained: true, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
            offlineID = mid
        }
        _ = weatherd_mqtt_flush(handle)
    }

    /// Says goodbye to the broker (its Last Will is not sent then).
    func disconnect() {
        if connected {
            mosquitto_disconnect_v5(handle, 0, nil)
            _ = weatherd_mqtt_flush(handle)
        }
        connected = false
    }

    private func publish(_ topic: String, _ payload: String, retained: Bool, correlation: [UInt8]? = nil, mid: inout Int32) -> Int32 {
        var bytes = Array(payload.utf8)
        let length = Int32(bytes.count)
        return bytes.withUnsafeMutableBytes { body in
            if let correlation, version5 {
                return correlation.withUnsafeBytes { data in
                    weatherd_mqtt_publish(
                        handle, &mid, topic, body.baseAddress, length, retained ? 1 : 0, data.baseAddress, UInt16(data.count))
                }
            }
            return weatherd_mqtt_publish(handle, &mid, topic, body.baseAddress, length, retained ? 1 : 0, nil, 0)
        }
    }

    /// The latest payload of each topic not in flight, then the replies. A payload that cannot be
    /// published (larger than the broker takes, say) is logged once and left until it is replaced;
    /// the other topics and the replies still go out.
    private func publishPending(replies: [MQTTReply]) {
        while let pending = latest.next() {
            if case .overlays(let overlays) = pending.payload, let discovery {
                for message in discovery.value.update(overlays) { latest.set(message) }
            }
            var mid: Int32 = 0
            let payload = pending.payload.encoded
            let rc = publish(pending.topic, payload, retained: true, mid: &mid)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                let problem =
                    "MQTT: cannot publish \(pending.topic) (\(payload.utf8.count) bytes): \(String(cString: mosquitto_strerror(rc)))"
                if latest.failed(pending.topic, version: pending.version) {
                    logger.warning("\(problem); it waits for the next change")
                } else {
                    logger.debug("\(problem) (again)")
                }
                continue
            }
            inFlight[mid] = (pending.topic, pending.version)
        }
        for reply in replies {
            var mid: Int32 = 0
            let rc = publish(reply.topic, reply.payload, retained: false, correlation: reply.correlation, mid: &mid)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("MQTT: cannot publish a reply on \(reply.topic): \(String(cString: mosquitto_strerror(rc)))")
            }
        }
    }

    // MARK: - libmosquitto's callbacks (on this session's thread, inside `step`)

    private func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            refusal = rc
            return
        }
        connected = true
        wasConnected = true
        var mid: Int32 = 0
        _ = publish(settings.topics.status, MQTTTopics.online, retained: true, mid: &mid)
        let subscribed = mosquitto_subscribe_v5(handle, nil, settings.topics.request, 1, 0, nil)
        if subscribed != MOSQ_ERR_SUCCESS.rawValue {
            logger.warning("MQTT: cannot subscribe to \(settings.topics.request): \(String(cString: mosquitto_strerror(subscribed)))")
        }
        if let ownTracks = settings.ownTracks { subscribe(ownTracks.topics) }
    }

    /// Subscribes to the OwnTracks topics (QoS 1), in one SUBSCRIBE.
    private func subscribe(_ topics: [String]) {
        let pointers: [UnsafeMutablePointer<CChar>?] = topics.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var mid: Int32 = 0
        let rc = pointers.withUnsafeBufferPointer { list in
            mosquitto_subscribe_multiple(handle, &mid, Int32(topics.count), list.baseAddress, 1, 0, nil)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue {
            ownTracksSubscription = mid
        } else {
            logger.warning("MQTT: cannot subscribe to the OwnTracks topics \(topics): \(String(cString: mosquitto_strerror(rc)))")
        }
    }

    private func didSubscribe(_ mid: Int32, granted: [Int32]) {
        guard mid == ownTracksSubscription, let ownTracks = settings.ownTracks else { return }
        ownTracksSubscription = nil
        let refused = zip(ownTracks.topics, granted).filter { $0.1 >= 0x80 }.map(\.0)
        if refused.isEmpty {
            logger.info("MQTT: subscribed to the OwnTracks topics \(ownTracks.topics)")
            ownTracks.service.submit(subscribed: true)
        } else {
            logger.warning("MQTT: the broker refused the subscription to \(refused) (its access control?); no OwnTracks fixes from there")
            ownTracks.service.submit(subscribed: refused.count < ownTracks.topics.count)
        }
    }

    /// `reason`: the broker's reason code when it sent DISCONNECT (MQTT 5), else libmosquitto's error.
    private func didDisconnect(_ reason: Int32) {
        connected = false
        if version5, reason == Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue) { takenOver = true }
    }

    private func didPublish(_ mid: Int32) {
        if mid == offlineID {
            offlineAcknowledged = true
        } else if let entry = inFlight.removeValue(forKey: mid) {
            latest.published(entry.topic, version: entry.version)
        }
    }

    private func didReceive(_ message: mosquitto_message, _ properties: OpaquePointer?) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        if topic != settings.topics.request, let ownTracks = settings.ownTracks {
            guard ownTracks.topics.contains(where: { MQTTTopicFilter.matches(topic, filter: $0) }) else { return }
            // A payload larger than the parser takes is cut one byte past the limit: it is dropped as too large.
            let length = min(Int(message.payloadlen), OwnTracksPayload.maxBytes + 1)
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            ownTracks.service.submit(payload, topic: topic)
            return
        }
        guard topic == settings.topics.request else { return }
        let length = Int(message.payloadlen)
        if length > RPCMessage.maxLineBytes {
            logger.warning("MQTT: dropped a request of \(length) bytes on \(topic): over the limit of \(RPCMessage.maxLineBytes) bytes")
            return
        }
        if message.retain {
            logger.warning("MQTT: ignored a retained request on \(topic) (a request is answered once, when it is sent)")
            return
        }
        let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        var responseTopic: UnsafeMutablePointer<CChar>?
        var correlation: UnsafeMutableRawPointer?
        var correlationLength: UInt16 = 0
        weatherd_mqtt_response_info(properties, &responseTopic, &correlation, &correlationLength)
        defer {
            free(responseTopic)
            free(correlation)
        }
        let request = MQTTRequest(
            payload: payload,
            responseTopic: responseTopic.map { String(cString: $0) },
            correlation: correlation.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(correlationLength))) })
        receive(request)
    }

    /// libmosquitto's text for a refusal reason code.
    static func refusalText(_ code: Int32, version5: Bool) -> String {
        String(cString: version5 ? mosquitto_reason_string(code) : mosquitto_connack_string(code))
    }
}

/// Home Assistant discovery's memory of what it published, kept from one connection to the next
/// (so a city removed while the broker was away still has its entities removed). Used only on the
/// publisher's thread.
final class DiscoveryState: @unchecked Sendable {
    var value: HomeAssistantDiscovery

    init(_ value: HomeAssistantDiscovery) {
        self.value = value
    }
}

/// A problem with the MQTT connection, said in words.
struct MQTTError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
