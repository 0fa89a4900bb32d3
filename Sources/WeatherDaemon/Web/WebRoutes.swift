import NIOCore
import NIOHTTP1
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the map page's files are: the page itself (`web/` of the repository, installed as
/// `share/weatherd/web`) and Leaflet (Debian's `libjs-leaflet`).
public struct WebAssets: Sendable {
    /// The directory holding `index.html`, `app.js`, `style.css` and the basemap; nil when not found.
    public var root: String?
    /// Leaflet's directory (`leaflet.js`, `leaflet.css`, `images/`).
    public var leaflet: String

    public init(root: String?, leaflet: String = "/usr/share/javascript/leaflet") {
        self.root = root
        self.leaflet = leaflet
    }

    /// The page's directory: `$WEATHERD_WEB_ROOT`; else `share/weatherd/web` beside the executable's
    /// `bin/`; else, for a build in a checkout, the `web/` of the repository the executable was built in.
    public static func locate(environment: [String: String], executable: String) -> WebAssets {
        if let root = environment["WEATHERD_WEB_ROOT"], !root.isEmpty { return WebAssets(root: root) }
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/weatherd/web")
        if hasPage(installed.path) { return WebAssets(root: installed.path) }
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("web")
            if hasPage(candidate.path), FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return WebAssets(root: candidate.path)
            }
            directory.deleteLastPathComponent()
        }
        return WebAssets(root: nil)
    }

    private static func hasPage(_ directory: String) -> Bool {
        FileManager.default.fileExists(atPath: directory + "/index.html")
    }
}

/// One HTTP answer.
struct WebResponse: Sendable {
    var status: HTTPResponseStatus
    var contentType: String
    var body: ByteBuffer
    var headers: [(String, String)] = []
    /// Worth caching by the browser (the page's files); JSON is never cached.
    var cacheable = false

    static func text(_ status: HTTPResponseStatus, _ text: String) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", body: ByteBuffer(string: text))
    }

    static func json(_ value: JSONValue, contentType: String = "application/json") -> WebResponse {
        WebResponse(status: .ok, contentType: contentType, body: ByteBuffer(string: value.serialized + "\n"))
    }

    /// The head and body (none for HEAD) with the headers every answer carries.
    func parts(for request: HTTPRequestHead, keepAlive: Bool) -> [HTTPPart<HTTPResponseHead, ByteBuffer>] {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Cache-Control", value: cacheable ? "no-cache" : "no-store")
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        for (name, value) in self.headers { headers.add(name: name, value: value) }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        return request.method == .HEAD ? [.head(head), .end(nil)] : [.head(head), .body(body), .end(nil)]
    }
}

/// The routes of the web listener but `/ws`: the page, its assets, and the JSON views.
struct WebRoutes: Sendable {
    let engine: SearchEngine
    let assets: WebAssets
    /// The Prometheus exposition; nil: `/metrics` is 404.
    let metrics: (@Sendable () async -> String)?
    /// `assets/config.json`: what the page needs to know of the configuration.
    let pageConfig: @Sendable () -> JSONValue

    /// Files larger than this are not served.
    static let maxFileBytes = 4 << 20

    func respond(to request: HTTPRequestHead) async -> WebResponse {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        guard request.method == .GET || request.method == .HEAD else {
            var response = WebResponse.text(.methodNotAllowed, "method not allowed: only GET and HEAD\n")
            response.headers = [("Allow", "GET, HEAD")]
            return response
        }
        switch path {
        case "/":
            return file("index.html", in: assets.root)
        case "/overlays.geojson":
            return .json(await engine.currentOverlays.json, contentType: "application/geo+json")
        case "/state.json":
            return .json(await engine.freshState.json)
        case "/healthz":
            return .text(.ok, "ok\n")
        case "/metrics":
            guard let metrics else { return notFound }
            return WebResponse(
                status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: ByteBuffer(string: await metrics()))
        case "/ws":
            var response = WebResponse.text(.upgradeRequired, "upgrade required: /ws is a WebSocket\n")
            response.headers = [("Upgrade", "websocket")]
            return response
        case "/assets/config.json":
            return .json(pageConfig())
        default:
            if path.hasPrefix("/assets/leaflet/") {
                return file(String(path.dropFirst("/assets/leaflet/".count)), in: assets.leaflet)
            }
            if path.hasPrefix("/assets/") {
                return file(String(path.dropFirst("/assets/".count)), in: assets.root)
            }
            return notFound
        }
    }

    private var notFound: WebResponse { .text(.notFound, "not found\n") }

    /// A file under `directory`; only plain names (letters, digits, `-`, `_`, `.`, `/`), never `..`.
    private func file(_ name: String, in directory: String?) -> WebResponse {
        guard let directory else {
            return .text(.notFound, "not found: the map page's files are not installed (see WEATHERD_WEB_ROOT)\n")
        }
        let allowed =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./".unicodeScalars.contains($0)
            }
        guard allowed, !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }),
            let bytes = try? FileReader.bytes(atPath: directory + "/" + name, limit: Self.maxFileBytes)
        else { return notFound }
        var response = WebResponse(status: .ok, contentType: Self.contentType(of: name), body: ByteBuffer(bytes: bytes))
        response.cacheable = true
        if name == "index.html" {
            // The page runs only its own scripts, talks only to this server, and shows tiles from
            // anywhere (web.tile_url) but runs nothing from them.
            response.headers = [
                (
                    "Content-Security-Policy",
                    "default-src 'self'; img-src 'self' data: https: http:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
                ),
                ("X-Frame-Options", "DENY"),
            ]
        }
        return response
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "geojson": "application/geo+json"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }
}
