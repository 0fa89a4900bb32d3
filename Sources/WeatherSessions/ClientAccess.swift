import WeatherCore

/// What a client may do: a socket client everything; a web client everything but `reload`, or only
/// look when `web.read_only` is set; an MQTT requester everything but `reload`, `watch` and `unwatch`.
public enum ClientAccess: Sendable, Equatable {
    /// The Unix socket: every method.
    case full
    /// The web: every method but `reload` (the daemon's own administration stays on the socket).
    case web
    /// The web with `web.read_only`: only `overlays`, `state`, `watch`, `unwatch`, `cities` and
    /// `version`; the methods that search or change something answer -32601 (method not found).
    case readOnly
    /// MQTT requests (`P/D/request`): the broker's access control decides who may publish there;
    /// every method but `reload`, and but `watch` and `unwatch` (the retained `P/D/overlays` and
    /// `P/D/state` topics are the subscription; a request gets one reply, nothing after it).
    case broker

    /// The methods a read-only client may not call: those that search or change something, and
    /// `places`, which spends the request budget as a search does.
    public static let changingMethods = methods(.changing)
    /// The methods only a socket client may call.
    public static let administrativeMethods = methods(.administrative)
    /// The methods that make a connection a watcher, which one MQTT request is not.
    public static let subscriptionMethods = methods(.subscription)

    /// The names of the methods of `kind` in ``RPCMethod/all``.
    private static func methods(_ kind: RPCMethod.Kind) -> Set<String> {
        Set(RPCMethod.all.filter { $0.kind == kind }.map(\.name))
    }

    /// Whether a client with this access may call `method`.
    public func allows(_ method: String) -> Bool {
        switch self {
        case .full: true
        case .web: !Self.administrativeMethods.contains(method)
        case .readOnly: !Self.administrativeMethods.contains(method) && !Self.changingMethods.contains(method)
        case .broker: !Self.administrativeMethods.contains(method) && !Self.subscriptionMethods.contains(method)
        }
    }
}
