import WeatherCore

/// One JSON-RPC method: its name, its params (a struct of its own, checked before it runs), who may
/// call it, and what it does. The table ``RPCMethod/all`` is the protocol's method list;
/// ``RequestHandler`` answers the socket, the web and MQTT through it, and ``ClientAccess`` reads
/// who may call what from it.
///
/// A method that is an input of the search stream (`search`, `locate`) returns once it has entered
/// the stream, with the rest of its work (``Started/entered(_:)``): the handler then lets the
/// client's next request in while the lookup runs. Every other method is done when it returns, so
/// a client's requests take effect in the order it sent them.
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
        let alerts: AlertService?
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

    /// How far a method got when it returns.
    enum Started: Sendable {
        /// Done.
        case done(Outcome)
        /// It has entered the search stream; the rest (its lookup) runs beside later requests.
        case entered(@Sendable () async throws -> Outcome)

        static func done(_ value: JSONValue, effect: RequestHandler.Effect? = nil) -> Started {
            .done(Outcome(value, effect: effect))
        }
    }

    let name: String
    /// The params it takes; any other is invalid params.
    let params: Set<String>
    let kind: Kind
    /// Checks the params and runs the method.
    let start: @Sendable (Context, JSONObject) async throws -> Started
    /// Its outcome at once, in the caller's thread, with the same effects as `start` (a cached
    /// search, a read of the stream); nil when it cannot be had so (its params are invalid, the
    /// answer is not cached): `start` it then. Nil for the methods never answered so. The changes
    /// it made are published to the watchers by its caller, after the reply is written
    /// (``SearchEngine/deliverChanges()``).
    let atOnce: (@Sendable (Context, JSONObject) -> Outcome?)?

    init<P: MethodParams>(
        _ name: String, _ kind: Kind, _ params: P.Type, atOnce: (@Sendable (Context, P) -> Outcome?)? = nil,
        _ run: @escaping @Sendable (Context, P) async throws -> Started
    ) {
        self.name = name
        self.params = P.names
        self.kind = kind
        self.start = { context, object in try await run(context, try P(Params(object, allowed: P.names))) }
        if let atOnce {
            self.atOnce = { context, object -> Outcome? in
                guard let params = try? P(Params(object, allowed: P.names)) else { return nil }
                return atOnce(context, params)
            }
        } else {
            self.atOnce = nil
        }
    }

    /// A method that never waits: answered at once whenever its params are valid (a connection then
    /// needs no task for it), and through `start` with the same outcome otherwise.
    init<P: MethodParams>(_ name: String, _ kind: Kind, _ params: P.Type, immediately run: @escaping @Sendable (Context, P) -> Outcome) {
        self.init(name, kind, params, atOnce: run) { context, params in .done(run(context, params)) }
    }

    /// Every method, by name.
    static let byName: [String: RPCMethod] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The methods of the protocol.
    static let all: [RPCMethod] = [
        RPCMethod(
            "search", .changing, SearchParams.self,
            atOnce: { c, p in
                switch p.target {
                case .city(let city): c.engine.searchCached(city: city, deliver: false).map { Outcome(.feature($0)) }
                case .place(let place): c.engine.searchCached(place: place, deliver: false).map { Outcome(.feature($0)) }
                }
            }
        ) { c, p in
            let search =
                switch p.target {
                case .city(let city): await c.engine.enter(search: city)
                case .place(let place): await c.engine.enter(search: place)
                }
            return .entered { Outcome(.feature(try await c.engine.complete(search))) }
        },
        RPCMethod("places", .changing, PlacesParams.self) { c, p in
            .done(.object(["places": .array(try await c.engine.places(named: p.name, limit: p.limit).map(\.json))]))
        },
        RPCMethod("locate", .changing, LocateParams.self) { c, p in
            let locate = try await c.location.enterLocate(timeout: p.timeout, source: p.source, maxAge: p.maxAge)
            return .entered { Outcome(try await c.location.complete(locate).json) }
        },
        RPCMethod("location.report", .changing, LocationReportParams.self) { c, p in
            let verdict = await c.location.report(
                coordinate: p.coordinate, horizontalError: p.horizontalError, at: p.at, source: p.source)
            return switch verdict {
            case .accepted: .done(.object(["accepted": .bool(true)]))
            case .rejected(let reason): .done(.object(["accepted": .bool(false), "reason": .string(reason.rawValue)]))
            }
        },
        RPCMethod("region", .changing, RegionParams.self) { c, p in
            await c.regions.submit(p.region)
            return .done(.object(["accepted": .bool(true)]))
        },
        RPCMethod("forecast", .changing, ForecastParams.self) { c, p in
            .done(try await c.engine.forecast(p.query).feature(hours: p.hours))
        },
        RPCMethod("alerts", .changing, AlertsParams.self) { c, p in
            let point: Coordinate
            switch p.query {
            case .coordinate(let coordinate): point = coordinate
            case .place(let place): point = place.coordinate
            case .city(let name):
                guard let place = try await c.engine.places(named: name, limit: 1).first else { throw WeatherError.notFound(name) }
                point = place.coordinate
            }
            let alerts = try await c.alerts?.alerts(at: point)
            return .done(.object(["alerts": alerts.map { .array($0.map(\.json)) } ?? .null]))
        },
        RPCMethod("overlays", .reading, NoParams.self, atOnce: { c, _ in Outcome(.overlays(c.engine.overlaysNow)) }) { c, _ in
            .done(Outcome(.overlays(await c.engine.currentOverlays)))
        },
        RPCMethod("state", .reading, NoParams.self, atOnce: { c, _ in c.engine.stateNow.map { Outcome(.state($0)) } }) { c, _ in
            .done(Outcome(.state(await c.engine.freshState)))
        },
        RPCMethod(
            "watch", .subscription, WatchParams.self,
            immediately: { _, p in
                Outcome(
                    .object(["topics": .array(p.topics.map { .string($0.rawValue) })]),
                    effect: .watch(Set(p.topics), replay: p.replay, diff: p.diff))
            }),
        RPCMethod(
            "unwatch", .subscription, NoParams.self,
            immediately: { _, _ in Outcome(.object(["topics": .array([])]), effect: .unwatch) }),
        RPCMethod("cities", .reading, NoParams.self, atOnce: { c, _ in Outcome(citiesResult(c.engine.citiesNow)) }) { c, _ in
            .done(citiesResult(await c.engine.watchedCities))
        },
        RPCMethod("cities.add", .changing, CityParams.self) { c, p in
            .done(citiesResult(try await c.engine.addCity(p.city)))
        },
        RPCMethod("cities.remove", .changing, CityParams.self) { c, p in
            .done(citiesResult(try await c.engine.removeCity(p.city)))
        },
        RPCMethod("reload", .administrative, NoParams.self) { c, _ in
            guard let reloads = c.reloads else { throw WeatherError(.methodNotFound, "method not found: reload") }
            switch await reloads.reload() {
            case .applied(let changed, let restartNeeded)?:
                return .done(
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
        RPCMethod("version", .reading, NoParams.self) { _, _ in
            .done(.object(["version": .string(WeatherdVersion.current), "protocol": .integer(Int64(RPCMessage.protocolVersion))]))
        },
    ]

    private static func citiesResult(_ cities: [String]) -> JSONValue {
        .object(["cities": .array(cities.map(JSONValue.string))])
    }
}
