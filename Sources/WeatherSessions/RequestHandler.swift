import Logging
import WeatherCore

/// Answers the socket protocol: one handler serves all connections; each connection brings its
/// own `Outbox`. Pure logic over the engine and the hub, so it is tested without a socket.
public struct RequestHandler: Sendable {
    private let engine: SearchEngine
    private let location: LocationService
    private let regions: RegionSearches
    private let hub: NotificationHub
    private let reloads: ReloadRequests?
    private let alerts: AlertService?
    private let logger: Logger

    /// - Parameters:
    ///   - reloads: where the `reload` method sends its requests; nil: `reload` is -32601.
    ///   - alerts: what the `alerts` method asks; nil: every point is outside every alert provider's area.
    public init(
        engine: SearchEngine, location: LocationService, regions: RegionSearches, hub: NotificationHub,
        reloads: ReloadRequests? = nil, alerts: AlertService? = nil, logger: Logger
    ) {
        self.alerts = alerts
        self.engine = engine
        self.location = location
        self.regions = regions
        self.hub = hub
        self.reloads = reloads
        self.logger = logger
    }

    /// What a request changes in its client's subscription, done before its reply is queued
    /// (`Outbox.send(reply:after:)`).
    enum Effect: Sendable {
        case watch(Set<Outbox.Topic>, replay: Bool, diff: Bool)
        case unwatch
    }

    /// What a request succeeded with: a value, or a feature, written from the text of the same
    /// feature when it was written before (`FeatureTexts`: a cached search answers with the same
    /// feature each time; encoding it was a fifth of a cached search's CPU).
    enum Answer: Sendable {
        case value(JSONValue)
        case feature(WeatherFeature)
        /// A collection: its text is the hub's (``NotificationHub/text(of:)``).
        case overlays(Overlays)
        /// The state: its text is made again only when it changed (``NotificationHub/stateTexts``).
        case state(DaemonState)
    }

    private struct Outcome: Sendable {
        /// The reply's JSON text.
        var reply: String?
        var effect: Effect?
    }

    /// Handles one message from a client and queues its reply (if any) in `outbox`. `admission`
    /// opens once the message has entered the search stream (a search has begun, a locate waits
    /// for its fix), or else once it is done: the elements of a batch one after another, in array
    /// order; their lookups then run concurrently.
    public func handle(line: [UInt8], outbox: Outbox, access: ClientAccess = .full, admission: Admission? = nil) async {
        defer { admission?.open() }
        let json: JSONValue
        do {
            json = try JSONValue.parse(line)
        } catch {
            outbox.send(reply: RPCMessage.error(id: .null, WeatherError(.parseError, "parse error: \(error)")).serialized)
            return
        }
        guard case .array(let batch) = json else {
            let request = await start(json, access: access)
            admission?.open()
            let outcome = await finish(request)
            send(outcome.reply, effects: outcome.effect.map { [$0] } ?? [], to: outbox)
            return
        }
        guard !batch.isEmpty else {
            outbox.send(reply: RPCMessage.error(id: .null, WeatherError(.invalidRequest, "invalid request: empty batch")).serialized)
            return
        }
        var requests: [Request] = []
        requests.reserveCapacity(batch.count)
        for element in batch {
            guard !Task.isCancelled else { break }  // the client is gone
            requests.append(await start(element, access: access))
        }
        admission?.open()
        let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await finish(request)) }
            }
            var outcomes = [Outcome?](repeating: nil, count: requests.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        let replies = outcomes.compactMap(\.reply)
        // The same text as JSONValue.array(replies).serialized.
        send(replies.isEmpty ? nil : "[" + replies.joined(separator: ",") + "]", effects: outcomes.compactMap(\.effect), to: outbox)
    }

    /// Queues `reply` (if any) once `effects` are done, in order.
    private func send(_ reply: String?, effects: [Effect], to outbox: Outbox) {
        guard !effects.isEmpty else {
            if let reply { outbox.send(reply: reply) }
            return
        }
        outbox.send(reply: reply) {
            for effect in effects { apply(effect, to: outbox) }
        }
    }

    /// Answers one message from a client at once, in the caller's thread, when it can be answered so
    /// (a request of a method with ``RPCMethod/atOnce`` whose outcome is had without waiting: a cached
    /// `search`, `overlays`, `cities`): its reply is queued in `outbox` and true returned, with the
    /// same effects as ``handle(line:outbox:access:admission:)``. False, with nothing done, otherwise
    /// (a batch, a parse error, any other method or an answer not cached): `handle` it then. The
    /// caller must have nothing of the client's in flight, so that replies stay in request order.
    public func answerAtOnce(line: [UInt8], outbox: Outbox, access: ClientAccess = .full) -> Bool {
        guard let json = try? JSONValue.parse(line), case .call(let id, _, let entry, let params) = check(json, access: access),
            let atOnce = entry.atOnce
        else { return false }
        // A cached search changed the stream before its reply; the watchers are told after it.
        defer { engine.deliverChanges() }
        guard let outcome = atOnce(context, params) else { return false }
        let answer = respond(id, .success(outcome))
        send(answer.reply, effects: answer.effect.map { [$0] } ?? [], to: outbox)
        return true
    }

    /// The connection is gone: its subscription ends.
    public func disconnected(_ outbox: Outbox) {
        hub.unwatch(outbox)
    }

    private func apply(_ effect: Effect, to outbox: Outbox) {
        switch effect {
        case .watch(let topics, let replay, let diff): hub.watch(outbox, topics: topics, replay: replay, diff: diff)
        case .unwatch: hub.unwatch(outbox)
        }
    }

    /// One request of a message, as far as it got when it was started.
    private enum Request: Sendable {
        case done(Outcome)
        /// It has entered the stream; the rest (its lookup) is still to run.
        case entered(id: JSONValue?, method: String, rest: @Sendable () async throws -> RPCMethod.Outcome)
    }

    /// Checks one request and starts its method: done, or entered into the stream.
    private func start(_ message: JSONValue, access: ClientAccess) async -> Request {
        switch check(message, access: access) {
        case .answered(let outcome): return .done(outcome)
        case .call(let id, let method, let entry, let params):
            switch await outcome(of: method, { try await entry.start(context, params) }) {
            case .success(.done(let outcome)): return .done(respond(id, .success(outcome)))
            case .success(.entered(let rest)): return .entered(id: id, method: method, rest: rest)
            case .failure(let error): return .done(respond(id, .failure(error)))
            }
        }
    }

    private var context: RPCMethod.Context {
        RPCMethod.Context(engine: engine, location: location, regions: regions, reloads: reloads, alerts: alerts)
    }

    /// A request as its checks left it.
    private enum Checked {
        /// Answered already: it is not a valid request, or its method is not there.
        case answered(Outcome)
        /// A call of the method `entry` with `params`, to run.
        case call(id: JSONValue?, method: String, entry: RPCMethod, params: JSONObject)
    }

    /// Checks one request: what JSON-RPC asks of it, and that its method is there and allowed.
    private func check(_ message: JSONValue, access: ClientAccess) -> Checked {
        guard let object = message.objectValue else {
            return .answered(
                Outcome(
                    reply: Self.errorText(id: .null, WeatherError(.invalidRequest, "invalid request: expected a JSON-RPC request object"))))
        }
        let id = object["id"]
        let replyID: JSONValue
        switch id {
        case nil, .null?, .string?, .integer?, .double?, .numberText?: replyID = id ?? .null
        default:
            return .answered(
                Outcome(
                    reply: Self.errorText(
                        id: .null, WeatherError(.invalidRequest, "invalid request: id must be a string, a number or null"))))
        }
        guard object["jsonrpc"] == "2.0" else {
            return .answered(
                Outcome(reply: Self.errorText(id: replyID, WeatherError(.invalidRequest, #"invalid request: "jsonrpc" must be "2.0""#))))
        }
        guard let method = object["method"]?.stringValue else {
            return .answered(
                Outcome(reply: Self.errorText(id: replyID, WeatherError(.invalidRequest, #"invalid request: "method" must be a string"#))))
        }
        let params: JSONObject
        switch object["params"] {
        case nil, .null?: params = [:]
        case .object(let given)?: params = given
        default:
            return .answered(respond(id, .failure(.invalidParams("invalid params: params must be an object of named params"))))
        }
        if !access.allows(method) {
            return .answered(
                respond(id, .failure(WeatherError(.methodNotFound, "method not found: \(method) (not available on this connection)"))))
        }
        guard let entry = RPCMethod.byName[method] else {
            return .answered(respond(id, .failure(WeatherError(.methodNotFound, "method not found: \(method)"))))
        }
        return .call(id: id, method: method, entry: entry, params: params)
    }

    /// Runs the rest of a request that entered the stream.
    private func finish(_ request: Request) async -> Outcome {
        switch request {
        case .done(let outcome): return outcome
        case .entered(let id, let method, let rest): return respond(id, await outcome(of: method, rest))
        }
    }

    /// What `run` returned, or the error to answer: a `WeatherError` as it is, others as internal errors.
    private func outcome<T>(of method: String, _ run: () async throws -> T) async -> Result<T, WeatherError> {
        do {
            return .success(try await run())
        } catch let error as WeatherError {
            return .failure(error)
        } catch is CancellationError {
            return .failure(WeatherError(.internalError, "cancelled: the daemon is shutting down"))
        } catch {
            logger.error("\(method) failed: \(error)")
            return .failure(WeatherError(.internalError, "internal error"))
        }
    }

    /// A request without `id` is a notification: it is carried out but gets no reply.
    private func respond(_ id: JSONValue?, _ result: Result<RPCMethod.Outcome, WeatherError>) -> Outcome {
        guard let id else { return Outcome(effect: (try? result.get())?.effect) }
        switch result {
        case .success(let outcome):
            switch outcome.answer {
            case .value(let value): return Outcome(reply: RPCMessage.result(id: id, value).serialized, effect: outcome.effect)
            case .feature(let feature):
                return Outcome(reply: RPCMessage.result(id: id, text: hub.featureTexts.text(of: feature)), effect: outcome.effect)
            case .overlays(let overlays):
                return Outcome(reply: RPCMessage.result(id: id, text: hub.text(of: overlays)), effect: outcome.effect)
            case .state(let state):
                return Outcome(reply: RPCMessage.result(id: id, text: hub.stateTexts.text(of: state)), effect: outcome.effect)
            }
        case .failure(let error): return Outcome(reply: Self.errorText(id: id, error))
        }
    }

    private static func errorText(id: JSONValue, _ error: WeatherError) -> String {
        RPCMessage.error(id: id, error).serialized
    }
}
