import WeatherCore

/// One JSON-RPC method: its name, the params it takes, who may call it, and what it does. The table
/// ``RPCMethod/all`` is the protocol's method list; ``RequestHandler`` answers the socket, the web and
/// MQTT through it, and ``ClientAccess`` reads who may call what from it.
struct RPCMethod: Sendable {
    /// Who may call a method (``ClientAccess``).
    enum Kind: Sendable {
        /// It only reads: every client.
        case reading
        /// It searches (spending the request budget) or changes something: not a read-only web page.
        case changing
        /// The daemon's administration: the Unix socket only.
        case administrative
        /// It makes the connection a watcher: not an MQTT request, which gets one reply.
        case subscription
    }

    /// What a method needs besides its params.
    struct Context: Sendable {
        let engine: SearchEngine
        let location: LocationService
        let regions: RegionSearches
        let reloads: ReloadRequests?
        /// To call once the request has entered the search stream (a search has begun, a region is
        /// queued, a locate waits for its fix); the handler calls it anyway when the method is done.
        let admitted: @Sendable () -> Void
    }

    /// What a method answers: the reply's result, and what to do with the connection after the reply.
    struct Outcome: Sendable {
        var answer: RequestHandler.Answer
        var effect: RequestHandler.Effect?

        init(_ answer: RequestHandler.Answer, effect: RequestHandler.Effect? = nil) {
            self.answer = answer
            self.effect = effect
        }

        init(_ value: JSONValue, effect: RequestHandler.Effect? = nil) {
            self.init(.value(value), effect: effect)
        }
    }

    let name: String
    /// The params it takes; any other is invalid params.
    let params: Set<String>
    let kind: Kind
    let run: @Sendable (Context, Params) async throws -> Outcome

    /// Every method, by name.
    static let byName: [String: RPCMethod] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The methods of the protocol.
    static let all: [RPCMethod] = [
        RPCMethod(name: "search", params: ["city", "place"], kind: .changing) { c, p in
            if let place = try p.place() { return Outcome(.feature(try await c.engine.search(place: place, admitted: c.admitted))) }
            return Outcome(.feature(try await c.engine.search(city: try p.city(), admitted: c.admitted)))
        },
        RPCMethod(name: "places", params: ["name", "limit"], kind: .changing) { c, p in
            let name = try p.city("name")
            let limit = try p.integer("limit", in: Place.limitRange) ?? Place.defaultLimit
            let places = try await c.engine.places(named: name, limit: limit)
            return Outcome(.object(["places": .array(places.map(\.json))]))
        },
        RPCMethod(name: "locate", params: ["timeout"], kind: .changing) { c, p in
            let timeout = try p.seconds("timeout", in: 0.001...3600)
            return Outcome(try await c.location.locate(timeout: timeout, admitted: c.admitted).json)
        },
        RPCMethod(name: "region", params: ["center", "span"], kind: .changing) { c, p in
            let region = try MapRegion(center: p.coordinate("center"), span: p.optionalCoordinate("span")).validated()
            await c.regions.submit(region)
            return Outcome(.object(["accepted": .bool(true)]))
        },
        RPCMethod(name: "forecast", params: ["city", "lat", "lon", "hours"], kind: .changing) { c, p in
            let query = try p.cityOrPoint()
            let hours = try p.integer("hours", in: WeatherForecast.hoursRange) ?? WeatherForecast.defaultHours
            return Outcome(try await c.engine.forecast(query).feature(hours: hours))
        },
        RPCMethod(name: "overlays", params: [], kind: .reading) { c, _ in
            Outcome(await c.engine.currentOverlays.json)
        },
        RPCMethod(name: "state", params: [], kind: .reading) { c, _ in
            Outcome(await c.engine.freshState.json)
        },
        RPCMethod(name: "watch", params: ["replay", "topics", "diff"], kind: .subscription) { _, p in
            let replay = try p.bool("replay") ?? true
            let diff = try p.bool("diff") ?? false
            let topics = try p.topics() ?? Outbox.Topic.allCases
            return Outcome(
                .object(["topics": .array(topics.map { .string($0.rawValue) })]),
                effect: .watch(Set(topics), replay: replay, diff: diff))
        },
        RPCMethod(name: "unwatch", params: [], kind: .subscription) { _, _ in
            Outcome(.object(["topics": .array([])]), effect: .unwatch)
        },
        RPCMethod(name: "cities", params: [], kind: .reading) { c, _ in
            Outcome(citiesResult(await c.engine.watchedCities))
        },
        RPCMethod(name: "cities.add", params: ["city"], kind: .changing) { c, p in
            Outcome(citiesResult(try await c.engine.addCity(try p.city())))
        },
        RPCMethod(name: "cities.remove", params: ["city"], kind: .changing) { c, p in
            Outcome(citiesResult(try await c.engine.removeCity(try p.city())))
        },
        RPCMethod(name: "reload", params: [], kind: .administrative) { c, _ in
            guard let reloads = c.reloads else { throw WeatherError(.methodNotFound, "method not found: reload") }
            switch await reloads.reload() {
            case .applied(let changed, let restartNeeded)?:
                return Outcome(
                    .object([
                        "reloaded": .bool(true), "changed": .array(changed.map(JSONValue.string)),
                        "restart_needed": .array(restartNeeded.map(JSONValue.string)),
                    ]))
            case .rejected(let problems)?:
                throw WeatherError(
                    .internalError, "configuration error; the running configuration stays: " + problems.joined(separator: "; "),
                    details: ["problems": .array(problems.map(JSONValue.string))])
            case nil:
                throw CancellationError()
            }
        },
        RPCMethod(name: "version", params: [], kind: .reading) { _, _ in
            Outcome(.object(["version": .string(WeatherdVersion.current), "protocol": .integer(Int64(RPCMessage.protocolVersion))]))
        },
    ]

    private static func citiesResult(_ cities: [String]) -> JSONValue {
        .object(["cities": .array(cities.map(JSONValue.string))])
    }
}
