import WeatherRPC

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules of `weatherctl bar`, as a plain state machine: which place the bar shows, what it asks
/// the daemon, when it reconnects. Events in (the connection's messages, clicks, time), actions out
/// (requests to send, what to show); it does no I/O and reads no clock (`now` comes with each event).
///
/// The place is chosen again at each change, first found: a watched city a click pinned; the place of
/// `--city` (a watched city by its name, else asked with `forecast` by name); the weather at the
/// fused location (asked with `forecast` at that point, again once it moved `followDistance`); the
/// latest text or location search's feature (a region search keeps it); the first watched city.
struct BarMachine: Sendable {
    /// `--city` and `--location`.
    struct Options: Sendable, Equatable {
        /// A place to show instead of the default: a watched city by its name, else looked up.
        var city: String?
        /// Only the weather at the fused location (nothing while there is none).
        var locationOnly = false
        /// How far the location moves before its weather is asked again (`location.follow_distance`'s default).
        var followDistance = 1000.0
        /// How long the weather at a point or of a looked-up name is kept before it is asked again
        /// (the overlays' features are refreshed by the daemon).
        var refreshInterval: TimeInterval = 600
        /// The `hours` of each `forecast` request.
        var forecastHours = 12
    }

    enum Action: Sendable, Equatable {
        /// Send this request line (no newline).
        case send(String)
        /// Show this (the output writes it only when it differs from what is shown).
        case show(BarContent)
    }

    /// The connection to the daemon.
    enum Link: Sendable, Equatable {
        /// Connect now.
        case idle
        /// Connected: `watch` sent.
        case connected
        /// Unreachable: connect again at this time.
        case waiting(until: Date)
    }

    /// A `forecast` request: for a feature of the overlays (again when it was refreshed), at a point,
    /// or by name (again each `generation`).
    enum Ask: Sendable, Equatable {
        case feature(id: String, fetchedAt: String?, at: Coordinate)
        case point(Coordinate, generation: Int)
        case named(String, generation: Int)

        /// What the answer is the weather of: a feature id, a point or a name.
        var place: String {
            switch self {
            case .feature(let id, _, _): "feature:" + id
            case .point(let point, _): "point:\(point.lat),\(point.lon)"
            case .named(let name, _): "name:" + name
            }
        }

        var params: JSONObject {
            switch self {
            case .feature(_, _, let point), .point(let point, _): ["lat": .double(point.lat), "lon": .double(point.lon)]
            case .named(let name, _): ["city": .string(name)]
            }
        }
    }

    /// The last answer to an `Ask` of one kind: the place it is of, the Feature (nil when the
    /// first ask failed), whether the latest ask failed, and when it was answered.
    struct Answer: Sendable, Equatable {
        var place: String
        var feature: JSONValue?
        var failed: Bool
        var at: Date
    }

    /// What the bar shows now, chosen at each change.
    enum Target: Sendable, Equatable {
        case feature(JSONValue)
        case point(Coordinate)
        case named(String)
        case none
    }

    let options: Options
    private(set) var link: Link = .idle
    /// Failed connections in a row (the wait before the next grows up to `maxBackoff`).
    private var failures = 0
    static let maxBackoff: TimeInterval = 5

    private var nextID = 1
    private var watchID: Int?
    private var inFlight: (id: Int, ask: Ask)?
    /// The last ask of each kind sent on this connection (the same one is not sent again).
    private var askedFeature: Ask?
    private var askedPoint: Ask?
    private var askedNamed: Ask?

    /// Whether the overlays arrived on this connection: until then nothing is shown (the state's
    /// replay may come first, and the bar would show nothing for a moment).
    private var overlaysKnown = false
    /// The watched cities' features, in the overlays' order.
    private(set) var watched: [JSONValue] = []
    /// The latest text or location search's feature (kept while a region search is the latest).
    private(set) var lastSearch: JSONValue?
    /// Where the fused location is (nil: none).
    private(set) var location: Coordinate?
    /// The point the weather at the location was last asked at.
    private var anchor: Coordinate?
    private var generation = 0
    /// A watched city's id a click pinned (button 3 unpins).
    private(set) var clickPin: String?

    private var featureAnswer: Answer?
    private var pointAnswer: Answer?
    private var namedAnswer: Answer?

    init(options: Options = Options()) {
        self.options = options
    }

    /// The next time something is due without any input: a reconnection, or asking a point or name again.
    var wakeAt: Date? {
        switch link {
        case .waiting(let until): return until
        case .idle: return nil
        case .connected:
            guard inFlight == nil else { return nil }
            var due: [Date] = []
            if wantsPoint, let anchor, let answer = pointAnswer, answer.place == Ask.point(anchor, generation: 0).place {
                due.append(answer.at.addingTimeInterval(options.refreshInterval))
            }
            if case .named(let name) = target, let answer = namedAnswer, answer.place == "name:" + name {
                due.append(answer.at.addingTimeInterval(options.refreshInterval))
            }
            return due.min()
        }
    }

    // MARK: - Events

    /// The connection is up: watch the overlays and the state (they are replayed at once).
    mutating func connected(now: Date) -> [Action] {
        link = .connected
        overlaysKnown = false
        nextID = 1
        forgetAsks()
        let id = takeID()
        watchID = id
        let params: JSONObject = ["replay": .bool(true), "topics": .array(["overlays", "state"])]
        return [.send(RPCMessage.request(id: id, method: "watch", params: params))]
    }

    /// The connection could not be made, or ended: show so, and connect again after a wait that
    /// grows with each failure in a row (0.5 s, 1 s, 2 s, 4 s, then 5 s).
    mutating func disconnected(reason: String, now: Date) -> [Action] {
        let wait = min(Self.maxBackoff, 0.5 * Double(1 << min(failures, 8)))
        failures += 1
        link = .waiting(until: now.addingTimeInterval(wait))
        forgetAsks()
        watchID = nil
        return [.show(.unavailable(reason: reason))]
    }

    /// A message from the daemon: a notification, or a reply to `watch` or a `forecast`.
    mutating func received(_ message: JSONValue, now: Date) -> [Action] {
        switch message["method"]?.stringValue {
        case "overlays"?:
            guard let params = message["params"] else { return [] }
            readOverlays(params)
            overlaysKnown = true
            return update(now: now)
        case "state"?:
            guard let params = message["params"] else { return [] }
            location = Self.location(in: params)
            return update(now: now)
        case .some: return []
        case nil: break
        }
        guard let id = message["id"]?.intValue else { return [] }
        if id == watchID {
            if message["result"] != nil { failures = 0 }
            return []
        }
        guard let asked = inFlight, asked.id == id else { return [] }
        inFlight = nil
        let result = message["result"].flatMap { $0.isNull ? nil : $0 }
        record(asked.ask, answer: result, now: now)
        return update(now: now)
    }

    /// A click on the block (i3bar), or its signal: button 1 steps to the next watched city, button 3
    /// goes back to the default place.
    mutating func clicked(_ click: BarClick, now: Date) -> [Action] {
        switch click.button {
        case 1:
            let ids = watched.compactMap { $0["id"]?.stringValue }
            guard !ids.isEmpty else { return [] }
            let shown: String? = if case .feature(let feature) = target { feature["id"]?.stringValue } else { nil }
            let current = clickPin ?? shown
            let next = current.flatMap { ids.firstIndex(of: $0) }.map { ids.index(after: $0) } ?? ids.startIndex
            clickPin = ids[next == ids.endIndex ? ids.startIndex : next]
        case 3:
            guard clickPin != nil else { return [] }
            clickPin = nil
        default: return []
        }
        return update(now: now)
    }

    /// Time passed: ask a point or a name again once its answer is `refreshInterval` old.
    mutating func tick(now: Date) -> [Action] {
        guard case .connected = link, let due = wakeAt, now >= due else { return [] }
        generation += 1
        return update(now: now)
    }

    // MARK: - Choosing

    /// Whether the weather at the location is wanted: there is one, and neither a click nor `--city`
    /// pinned a place.
    private var wantsPoint: Bool {
        anchor != nil && options.city == nil && !(clickPin.map { id in watched.contains { $0["id"]?.stringValue == id } } ?? false)
    }

    /// The place to show, by the rules above.
    var target: Target {
        if let clickPin, let feature = watched.first(where: { $0["id"]?.stringValue == clickPin }) { return .feature(feature) }
        if let city = options.city {
            if let feature = watched.first(where: { Self.matches($0, name: city) }) { return .feature(feature) }
            return .named(city)
        }
        if let anchor {
            // The location's weather, unless asking it failed (then the next choice; it is asked again later).
            let place = Ask.point(anchor, generation: 0).place
            let failed = pointAnswer.map { $0.place == place && $0.failed && $0.feature == nil } ?? false
            if options.locationOnly || !failed { return .point(anchor) }
        }
        if options.locationOnly { return .none }
        return fallback
    }

    /// The target with what is known of it, for a target still waiting for its first answer the
    /// place after it.
    private func content(for target: Target, now: Date) -> BarContent {
        switch target {
        case .none: return .nothing
        case .feature(let feature):
            let id = feature["id"]?.stringValue ?? ""
            let forecast = featureAnswer.flatMap { $0.place == "feature:" + id ? $0.feature : nil }
            return .weather(BarWeather(feature: feature, forecast: forecast))
        case .point(let point):
            // While a new point is asked, the last one's weather stays (the bar does not flicker as it moves).
            if let answer = pointAnswer, let feature = answer.feature {
                let outdated = answer.failed && answer.place == Ask.point(point, generation: 0).place
                return .weather(BarWeather(feature: feature, forecast: feature, outdated: outdated))
            }
            if options.locationOnly { return .nothing }
            return content(for: fallback, now: now)
        case .named(let name):
            if let answer = namedAnswer, answer.place == "name:" + name, let feature = answer.feature {
                return .weather(BarWeather(feature: feature, forecast: feature, outdated: answer.failed))
            }
            return .nothing
        }
    }

    /// What is shown while the location's weather is asked for the first time.
    private var fallback: Target {
        if let lastSearch { return .feature(lastSearch) }
        if let first = watched.first { return .feature(first) }
        return .none
    }

    /// The ask the target needs, if any.
    private func ask(for target: Target) -> Ask? {
        switch target {
        case .none: return nil
        case .feature(let feature):
            guard let id = feature["id"]?.stringValue, let point = Self.point(of: feature) else { return nil }
            return .feature(id: id, fetchedAt: feature["properties"]?["fetched_at"]?.stringValue, at: point)
        case .point(let point): return .point(point, generation: generation)
        case .named(let name): return .named(name, generation: generation)
        }
    }

    /// Chooses again: asks what the target needs (one request at a time) and shows it.
    private mutating func update(now: Date) -> [Action] {
        guard case .connected = link, overlaysKnown else { return [] }
        if let location {
            if anchor == nil || anchor!.distance(to: location) >= options.followDistance { anchor = location }
        } else {
            anchor = nil
        }
        var actions: [Action] = []
        let target = self.target
        if inFlight == nil, let ask = nextAsk(for: target) {
            var params = ask.params
            params["hours"] = .integer(Int64(options.forecastHours))
            let id = takeID()
            inFlight = (id, ask)
            switch ask {
            case .feature: askedFeature = ask
            case .point: askedPoint = ask
            case .named: askedNamed = ask
            }
            actions.append(.send(RPCMessage.request(id: id, method: "forecast", params: params)))
        }
        actions.append(.show(content(for: target, now: now)))
        return actions
    }

    /// The ask to send next, if any: the location's weather first (even while the place after it is
    /// shown), then the target's.
    private func nextAsk(for target: Target) -> Ask? {
        if wantsPoint, let anchor, askedPoint != .point(anchor, generation: generation) {
            return .point(anchor, generation: generation)
        }
        guard let ask = ask(for: target) else { return nil }
        switch ask {
        case .feature: return ask == askedFeature ? nil : ask
        case .point: return ask == askedPoint ? nil : ask
        case .named: return ask == askedNamed ? nil : ask
        }
    }

    private mutating func forgetAsks() {
        inFlight = nil
        askedFeature = nil
        askedPoint = nil
        askedNamed = nil
    }

    private mutating func record(_ ask: Ask, answer: JSONValue?, now: Date) {
        func updated(_ old: Answer?) -> Answer {
            if let answer { return Answer(place: ask.place, feature: answer, failed: false, at: now) }
            // A failed ask keeps the last answer for the same place, marked old.
            let kept = old.flatMap { $0.place == ask.place ? $0.feature : nil }
            return Answer(place: ask.place, feature: kept, failed: true, at: now)
        }
        switch ask {
        case .feature: featureAnswer = updated(featureAnswer)
        case .point: pointAnswer = updated(pointAnswer)
        case .named: namedAnswer = updated(namedAnswer)
        }
    }

    private mutating func readOverlays(_ collection: JSONValue) {
        let features = collection["features"]?.arrayValue ?? []
        watched = features.filter { $0["properties"]?["source"]?.stringValue == "city" }
        if let search = features.first(where: {
            let source = $0["properties"]?["source"]?.stringValue
            return source == "text" || source == "location"
        }) {
            lastSearch = search
        }
        if let clickPin, !watched.contains(where: { $0["id"]?.stringValue == clickPin }) { self.clickPin = nil }
    }

    private mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: - Reading the protocol's objects

    /// The fused location of a state: `location`; from a daemon whose state has no `location` member,
    /// gpsd's last fix while gpsd is connected.
    static func location(in state: JSONValue) -> Coordinate? {
        if let location = state["location"] { return coordinate(location) }
        guard state["gps"]?["connected"]?.boolValue == true, let fix = state["gps"]?["last_fix"] else { return nil }
        return coordinate(fix)
    }

    private static func coordinate(_ json: JSONValue) -> Coordinate? {
        guard let lat = json["lat"]?.doubleValue, let lon = json["lon"]?.doubleValue else { return nil }
        let point = Coordinate(lat: lat, lon: lon)
        return point.isValid ? point : nil
    }

    /// A Feature's point (GeoJSON `[lon, lat]`).
    static func point(of feature: JSONValue) -> Coordinate? {
        guard let position = feature["geometry"]?["coordinates"]?.arrayValue, position.count >= 2,
            let lon = position[0].doubleValue, let lat = position[1].doubleValue
        else { return nil }
        return Coordinate(lat: lat, lon: lon)
    }

    /// Whether `name` (as `--city` gives it: `London`, `London,GB`, `Springfield, MO, US`) names the
    /// feature's place, case- and space-insensitively.
    static func matches(_ feature: JSONValue, name: String) -> Bool {
        func folded(_ text: String) -> String { text.lowercased().filter { !$0.isWhitespace } }
        let p = feature["properties"] ?? .null
        guard let placeName = p["name"]?.stringValue else { return false }
        let country = p["country"]?.stringValue
        let state = p["state"]?.stringValue
        let wanted = folded(name)
        let parts: [[String?]] = [[placeName], [placeName, country], [placeName, state, country]]
        let forms = parts.map { parts in
            folded(parts.compactMap { $0 }.joined(separator: ","))
        }
        return forms.contains(wanted)
    }
}
