/// Which `Host` and `Origin` headers the web listener accepts, against DNS rebinding and cross-site
/// WebSocket use: the listen address, `localhost`, `127.0.0.1` and `[::1]`, each with the listening
/// port, and the names of `web.allowed_hosts` (with any port: they are meant for a reverse proxy).
public struct WebHostPolicy: Sendable, Equatable {
    /// The port the listener is bound to.
    public var port: Int
    /// Host names accepted with `port`, lowercased (IPv6 addresses in brackets).
    private var local: Set<String>
    /// Host names accepted with any port (or none), lowercased.
    private var allowed: Set<String>

    public init(listen: ListenAddress, boundPort: Int, allowedHosts: [String]) {
        port = boundPort
        local = [listen.urlHost.lowercased(), "localhost", "127.0.0.1", "[::1]"]
        allowed = Set(allowedHosts.map { $0.lowercased() })
    }

    /// Whether a request's `Host` header names this listener.
    public func accepts(host header: String?) -> Bool {
        guard let header, let (name, port) = Self.split(header.lowercased()) else { return false }
        if allowed.contains(name) { return true }
        return local.contains(name) && (port ?? 80) == self.port
    }

    /// Whether a WebSocket upgrade's `Origin` is a page of this listener: `http://` and an accepted
    /// host (`https://` too for `web.allowed_hosts`, behind a TLS proxy). A request without `Origin`
    /// does not come from a browser page and is accepted.
    public func accepts(origin header: String?) -> Bool {
        guard let header else { return true }
        let lower = header.lowercased()
        if lower.hasPrefix("http://") {
            return accepts(host: String(lower.dropFirst("http://".count)))
        }
        if lower.hasPrefix("https://"), let (name, _) = Self.split(String(lower.dropFirst("https://".count))) {
            return allowed.contains(name)
        }
        return false
    }

    /// `name[:port]` (`[v6]:port` for IPv6); nil when malformed (a path, user info, a bad port).
    private static func split(_ text: String) -> (name: String, port: Int?)? {
        guard !text.isEmpty, !text.contains("/" as Character), !text.contains("@" as Character) else { return nil }
        var name = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            name = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !name.isEmpty else { return nil }
        guard let portText else { return (String(name), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(name), port)
    }
}
