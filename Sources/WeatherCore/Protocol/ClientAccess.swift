/// What a client may do: everything, or only look (`web.read_only` for web clients).
public enum ClientAccess: Sendable, Equatable {
    case full
    /// Only `overlays`, `state`, `watch`, `unwatch`, `cities` and `version`: the methods that search
    /// or change something answer -32601 (method not found).
    case readOnly

    /// The methods a read-only client may not call.
    public static let changingMethods: Set<String> = ["search", "locate", "region", "forecast", "cities.add", "cities.remove"]
}
