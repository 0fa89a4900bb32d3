/// The `[web]` table: the HTTP listener with the map page, the WebSocket and the JSON routes.
public struct WebConfig: Sendable, Equatable {
    /// `listen`: `HOST:PORT` to serve HTTP on (`127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`); "" = off.
    public var listen: String
    /// `read_only`: over the web only overlays, state, watch, unwatch, cities and version.
    public var readOnly: Bool
    /// `max_clients`: WebSocket clients at once; one more is answered `busy` and closed.
    public var maxClients: Int
    /// `allowed_hosts`: more `Host` names accepted besides the listen address and localhost.
    public var allowedHosts: [String]
    /// `tile_url`: an XYZ tile URL template for the map; "" = the bundled offline world basemap.
    public var tileURL: String
    /// `tile_attribution`: the attribution shown with those tiles.
    public var tileAttribution: String

    /// The `[web]` table; every value not given has its default.
    public init(
        listen: String = "", readOnly: Bool = false, maxClients: Int = 64, allowedHosts: [String] = [],
        tileURL: String = "", tileAttribution: String = ""
    ) {
        self.listen = listen
        self.readOnly = readOnly
        self.maxClients = maxClients
        self.allowedHosts = allowedHosts
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
    }

    /// Where to listen; nil when the listener is off (`listen = ""`).
    public var listenAddress: ListenAddress? { ListenAddress(listen) }
}

/// A TCP address to listen on, `HOST:PORT` (an IPv6 host in brackets).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host without brackets: an IPv4 or IPv6 address, or a name.
    public var host: String
    /// The port; 0 = any free port.
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`, `localhost:8080`; nil for anything else.
    public init?(_ text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":" as Character) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":" as Character) else { return nil }  // IPv6 needs brackets
        }
        let validHost =
            !host.isEmpty
            && host.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || ".-:%".unicodeScalars.contains($0)
            }
        guard validHost, !portText.isEmpty, portText.allSatisfy(\.isASCII), let port = Int(portText), (0...65535).contains(port) else {
            return nil
        }
        self.init(host: String(host), port: port)
    }

    /// The host as written in a URL or a `Host` header: an IPv6 address in brackets.
    public var urlHost: String { host.contains(":" as Character) ? "[\(host)]" : host }

    /// Only this machine can connect: a loopback address or `localhost`.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    public var description: String { "\(urlHost):\(port)" }
}
