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
    private let logger: Logger

    /// - Parameter reloads: where the `reload` method sends its requests; nil: `reload` is -32601.
    public init(
        engine: SearchEngine, location: LocationService, regions: RegionSearches, hub: NotificationHub,
        reloads: ReloadRequests? = nil, logger: Logger
    ) {
        self.engine = engine
        self.location = location
        self.regions = regions
        self.hub = hub
        self.reloads = reloads
        self.logger = logger
    }

    /// What to do after a reply is queued: watch changes must follow their reply.
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
    }

    private struct Outcome: Sendable {
        /// The reply's JSON text.
        var reply: String?
        var effect: Effect?
    }

    /// Handles one message from a client and queues its reply (if any) in `outbox`. `admitted` is
    /// called once the request has entered the search stream (a search has begun, a region is
    /// queued, a locate waits for its fix), or else when the request is done. The elements of a
    /// batch enter the stream one after another in array order; their lookups run concurrently.
    public func handle(
        line: [UInt8], outbox: Outbox, access: ClientAccess = .full, admitted: @escaping @Sendable () -> Void = {}
    ) async {
        defer { admitted() }
        let json: JSONValue
        do {
            json = try JSONValue.parse(line)
        } catch {
            outbox.send(reply: RPCMessage.error(id: .null, WeatherError(.parseError, "parse error: \(error)")).serialized)
            return
        }
        guard case .array(let batch) = json else {
            let outcome = await process(json, access: access, admitted: admitted)
            if let reply = outcome.reply { outbox.send(reply: reply) }
            if let effect = outcome.effect { apply(effect, to: outbox) }
            return
        }
        guard !batch.isEmpty else {
            outbox.send(reply: RPCMessage.error(id: .null, WeatherError(.invalidRequest, "invalid request: empty batch")).serialized)
            return
        }
        let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, element) in batch.enumerated() {
                let entered = Wakeup()
                group.addTask { (index, await process(element, access: access, admitted: entered.wake)) }
                guard await entered.wait() else { break }  // cancelled: the client is gone
            }
            admitted()
            var outcomes = [Outcome?](repeating: nil, count: batch.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        let replies = outcomes.compactMap(\.reply)
        // The same text as JSONValue.array(replies).serialized.
        if !replies.isEmpty { outbox.send(reply: "[" + replies.joined(separator: ",") + "]") }
        for effect in outcomes.compactMap(\.effect) { apply(effect, to: outbox) }
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

    /// Carries out one request; `admitted` is called once it has entered the stream, at the latest
    /// when it is done.
    private func process(_ message: JSONValue, access: ClientAccess, admitted: @escaping @Sendable () -> Void) async -> Outcome {
        defer { admitted() }
        guard let object = message.objectValue else {
            return Outcome(
                reply: Self.errorText(id: .null, WeatherError(.invalidRequest, "invalid request: expected a JSON-RPC request object")))
        }
        let id = object["id"]
        let replyID: JSONValue
        switch id {
        case nil, .null?, .string?, .integer?, .double?, .numberText?: replyID = id ?? .null
        default:
            return Outcome(
                reply: Self.errorText(id: .null, WeatherError(.invalidRequest, "invalid request: id must be a string, a number or null")))
        }
        guard object["jsonrpc"] == "2.0" else {
            return Outcome(reply: Self.errorText(id: replyID, WeatherError(.invalidRequest, #"invalid request: "jsonrpc" must be "2.0""#)))
        }
        guard let method = object["method"]?.stringValue else {
            return Outcome(
                reply: Self.errorText(id: replyID, WeatherError(.invalidRequest, #"invalid request: "method" must be a string"#)))
        }
        let params: JSONObject
        switch object["params"] {
        case nil, .null?: params = [:]
        case .object(let given)?: params = given
        default:
            return respond(id, .failure(.invalidParams("invalid params: params must be an object of named params")))
        }
        if !access.allows(method) {
            return respond(id, .failure(WeatherError(.methodNotFound, "method not found: \(method) (not available on this connection)")))
        }
        let (result, effect) = await call(method, params, admitted: admitted)
        var outcome = respond(id, result)
        if case .success = result { outcome.effect = effect }
        return outcome
    }

    /// A request without `id` is a notification: it is carried out but gets no reply.
    private func respond(_ id: JSONValue?, _ result: Result<Answer, WeatherError>) -> Outcome {
        guard let id else { return Outcome() }
        switch result {
        case .success(.value(let value)): return Outcome(reply: RPCMessage.result(id: id, value).serialized)
        case .success(.feature(let feature)): return Outcome(reply: RPCMessage.result(id: id, text: hub.featureTexts.text(of: feature)))
        case .failure(let error): return Outcome(reply: Self.errorText(id: id, error))
        }
    }

    private static func errorText(id: JSONValue, _ error: WeatherError) -> String {
        RPCMessage.error(id: id, error).serialized
    }

    /// Runs `method` from ``RPCMethod/all`` with `params`: its result, and the effect of a success.
    private func call(_ method: String, _ params: JSONObject, admitted: @escaping @Sendable () -> Void) async -> (
        Result<Answer, WeatherError>, Effect?
    ) {
        guard let entry = RPCMethod.byName[method] else {
            return (.failure(WeatherError(.methodNotFound, "method not found: \(method)")), nil)
        }
        let context = RPCMethod.Context(engine: engine, location: location, regions: regions, reloads: reloads, admitted: admitted)
        do {
            let outcome = try await entry.run(context, try Params(params, allowed: entry.params))
            return (.success(outcome.answer), outcome.effect)
        } catch let error as WeatherError {
            return (.failure(error), nil)
        } catch is CancellationError {
            return (.failure(WeatherError(.internalError, "cancelled: the daemon is shutting down")), nil)
        } catch {
            logger.error("\(method) failed: \(error)")
            return (.failure(WeatherError(.internalError, "internal error")), nil)
        }
    }
}

/// Named params of one request, checked.
struct Params {
    let object: JSONObject

    init(_ object: JSONObject, allowed: Set<String>) throws(WeatherError) {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw .invalidParams("invalid params: unknown param \"\(unknown)\"")
        }
        self.object = object
    }

    /// `city` (or another key holding a name): a non-empty name of at most 200 characters without
    /// control characters.
    func city(_ key: String = "city") throws(WeatherError) -> String {
        guard let raw = object[key]?.stringValue else {
            throw .invalidParams("invalid params: \"\(key)\" must be a string")
        }
        guard let city = Self.asciiCity(raw) ?? Self.unicodeCity(raw) else {
            throw .invalidParams("invalid params: \"\(key)\" must be a city name (1 to 200 characters)")
        }
        return city
    }

    /// `place`: a Place object as `places` answers it (`name`, `lat`, `lon`; `state`, `country` and
    /// `provider` optional); nil when absent. It goes without `city`.
    func place() throws(WeatherError) -> Place? {
        guard let value = object["place"], !value.isNull else { return nil }
        if object["city"] != nil {
            throw .invalidParams("invalid params: give \"city\" or \"place\", not both")
        }
        guard let place = Place(json: value) else {
            throw .invalidParams(
                "invalid params: \"place\" must be a place: {\"name\": string, \"lat\": number within [-90, 90], "
                    + "\"lon\": number within [-180, 180], \"state\"?, \"country\"?, \"provider\"?}")
        }
        return place
    }

    /// The city of `raw`: runs of white space collapsed to one space, the ends trimmed; nil unless
    /// it then has 1 to 200 characters and no control character.
    static func unicodeCity(_ raw: String) -> String? {
        let city = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !city.isEmpty, city.count <= 200, !city.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return nil
        }
        return city
    }

    /// `unicodeCity` for ASCII text, byte by byte: `.some(nil)` is a name it refuses, nil text that
    /// is not ASCII. In ASCII, white space (`Character.isWhitespace`) is tab, line feed, vertical
    /// tab, form feed, carriage return and space; the other bytes below 0x20 and 0x7F are control
    /// characters; every other byte is one character.
    static func asciiCity(_ raw: String) -> String?? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.utf8.count)
        var space = false
        for byte in raw.utf8 {
            switch byte {
            case 0x80...: return nil
            case 0x09...0x0D, 0x20: space = !out.isEmpty
            case 0x00..<0x20, 0x7F: return .some(nil)
            default:
                if space {
                    out.append(0x20)
                    space = false
                }
                out.append(byte)
            }
        }
        guard !out.isEmpty, out.count <= 200 else { return .some(nil) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where: `city`, or `lat` and `lon` (one or the other).
    func cityOrPoint() throws(WeatherError) -> LookupQuery {
        let hasCity = object["city"].map { !$0.isNull } ?? false
        let hasPoint = object["lat"].map { !$0.isNull } ?? false || object["lon"].map { !$0.isNull } ?? false
        switch (hasCity, hasPoint) {
        case (true, false):
            return .city(try city())
        case (false, true):
            guard let lat = object["lat"]?.doubleValue, lat.isFinite, (-90...90).contains(lat) else {
                throw .invalidParams("invalid params: \"lat\" must be a number within [-90, 90]")
            }
            guard let lon = object["lon"]?.doubleValue, lon.isFinite, (-180...180).contains(lon) else {
                throw .invalidParams("invalid params: \"lon\" must be a number within [-180, 180]")
            }
            return .coordinate(Coordinate(lat: lat, lon: lon))
        case (true, true):
            throw .invalidParams("invalid params: give \"city\" or \"lat\" and \"lon\", not both")
        case (false, false):
            throw .invalidParams("invalid params: \"city\" or \"lat\" and \"lon\" is required")
        }
    }

    /// A whole number within `range`; nil when absent.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(WeatherError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.doubleValue, number.rounded() == number, Double(range.lowerBound) <= number,
            number <= Double(range.upperBound)
        else {
            throw .invalidParams("invalid params: \"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// `{"lat": number, "lon": number}`.
    func coordinate(_ key: String) throws(WeatherError) -> Coordinate {
        guard let value = try optionalCoordinate(key) else {
            throw .invalidParams("invalid params: \"\(key)\" is required: {\"lat\": number, \"lon\": number}")
        }
        return value
    }

    func optionalCoordinate(_ key: String) throws(WeatherError) -> Coordinate? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let members = value.objectValue, Set(members.keys) == ["lat", "lon"],
            let lat = members["lat"]?.doubleValue, let lon = members["lon"]?.doubleValue
        else {
            throw .invalidParams("invalid params: \"\(key)\" must be {\"lat\": number, \"lon\": number}")
        }
        return Coordinate(lat: lat, lon: lon)
    }

    /// A number of seconds within `range`, as a Duration; nil when absent.
    func seconds(_ key: String, in range: ClosedRange<Double>) throws(WeatherError) -> Duration? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let seconds = value.doubleValue, range.contains(seconds) else {
            throw .invalidParams(
                "invalid params: \"\(key)\" must be a number of seconds from \(range.lowerBound) to \(Int(range.upperBound))")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    func bool(_ key: String) throws(WeatherError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw .invalidParams("invalid params: \"\(key)\" must be true or false") }
        return bool
    }

    func topics() throws(WeatherError) -> [Outbox.Topic]? {
        guard let value = object["topics"], !value.isNull else { return nil }
        guard let array = value.arrayValue else {
            throw .invalidParams(#"invalid params: "topics" must be an array of "overlays" and "state""#)
        }
        var topics: [Outbox.Topic] = []
        for element in array {
            guard let name = element.stringValue, let topic = Outbox.Topic(rawValue: name) else {
                throw .invalidParams("invalid params: unknown topic \(element.serialized); topics are \"overlays\" and \"state\"")
            }
            if !topics.contains(topic) { topics.append(topic) }
        }
        return topics
    }
}
