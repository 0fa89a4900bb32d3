import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

extension DaemonProcess {
    /// The port of the web listener, from the daemon's log line (`listen = "127.0.0.1:0"` picks one).
    func webPort() async throws -> Int {
        let line = try await process.waitForLine(containing: "map page at http://", on: \.stderr)
        guard let url = line.split(separator: " ").last, let port = Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") else {
            throw ChildProcessError(message: "no port in \(line)")
        }
        return port
    }
}

/// A daemon with the web listener on a free loopback port, and the stand-in it asks.
private struct WebDaemon {
    let replay: ReplayServer
    let daemon: DaemonProcess
    let port: Int

    init(_ webLines: [String] = [], cities: [String] = ["London"], listen: String = "127.0.0.1:0") async throws {
        replay = try await ReplayServer.start()
        var setup = DaemonSetup(directory: try TemporaryDirectory(), replay: replay, cities: cities)
        setup.webLines = ["listen = \"\(listen)\""] + webLines
        daemon = try await DaemonProcess.start(setup)
        port = try await daemon.webPort()
    }

    /// SIGTERM: a clean exit (the stand-in lives until then).
    func stop() async throws {
        _ = try await daemon.expectPromptShutdown()
        withExtendedLifetime(replay) {}
    }
}

@Suite("web: HTTP routes and the door")
struct WebHTTPTests {
    @Test("routes: /healthz, /state.json, /overlays.geojson (GeoJSON), /metrics; other paths 404, other methods 405")
    func routes() async throws {
        let web = try await WebDaemon()
        let port = web.port
        let health = try await httpRequest(port: port, "/healthz")
        #expect(health.status == 200 && health.text == "ok\n")
        let state = try await httpRequest(port: port, "/state.json")
        #expect(state.status == 200)
        #expect(state.headers["content-type"] == "application/json")
        #expect(try JSONValue.parse(state.body)["phase"] != nil)
        let overlays = try await httpRequest(port: port, "/overlays.geojson")
        #expect(overlays.headers["content-type"] == "application/geo+json")
        #expect(try JSONValue.parse(overlays.body)["type"] == "FeatureCollection")
        #expect(try await httpRequest(port: port, "/nope").status == 404)
        #expect(try await httpRequest(port: port, "/assets/../../etc/passwd").status == 404)
        let metrics = try await httpRequest(port: port, "/metrics")
        #expect(metrics.status == 200 && metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("# TYPE weatherd_lookups_total counter"), "\(metrics.text)")
        let post = try await httpRequest(port: port, "/state.json", method: "POST")
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        #expect(try await httpRequest(port: port, "/nope", method: "DELETE").status == 405)
        let head = try await httpRequest(port: port, "/state.json", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        let config = try JSONValue.parse(try await httpRequest(port: port, "/assets/config.json").body)
        #expect(config["read_only"] == .bool(false))
        #expect(config["tile_url"] == "")
        try await web.stop()
    }

    @Test("the map page: index.html under a Content-Security-Policy that runs its own modules, and every file it loads, each with its type")
    func mapPage() async throws {
        let web = try await WebDaemon()
        let page = try await httpRequest(port: web.port, "/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains(#"<script type="module" src="assets/app.js"></script>"#))
        // Scripts fall under script-src, else default-src: this origin's, and nothing inline or evaluated.
        let policy = page.headers["content-security-policy"] ?? ""
        let directives = policy.split(separator: ";").map { $0.split(separator: " ").map(String.init) }
        let scripts = directives.first { $0.first == "script-src" } ?? directives.first { $0.first == "default-src" } ?? []
        #expect(
            scripts.dropFirst().contains("'self'") && !scripts.contains("'unsafe-inline'") && !policy.contains("unsafe-eval"), "\(policy)")
        let files = try MapPageFiles.loaded()
        #expect(files.contains("app.js") && files.contains("overlay-store.js") && files.contains("countries.geojson"), "\(files)")
        let types = [
            "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
            "geojson": "application/geo+json",
        ]
        for name in files {
            let answer = try await httpRequest(port: web.port, "/assets/" + name)
            #expect(answer.status == 200, "\(name)")
            #expect(answer.headers["content-type"] == types[String(name.split(separator: ".").last ?? "")], "\(name)")
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(name)")
        }
        try await web.stop()
    }

    @Test("/overlays.geojson is GeoJSON that GDAL reads: one point feature per overlay feature")
    func ogrinfo() async throws {
        let web = try await WebDaemon(cities: ["London", "Paris"])
        // The watched cities' round first: on a busy machine it can still run when Berlin's reply comes.
        let watcher = try await Watcher.start(socketPath: web.daemon.socketPath)
        try await watcher.next("the watched cities' round", where: isSettledState)
        _ = try await web.daemon.call("search", ["city": "Berlin"])
        let answer = try await httpRequest(port: web.port, "/overlays.geojson")
        let count = try JSONValue.parse(answer.body)["features"]?.arrayValue?.count ?? 0
        #expect(count == 3)
        let directory = try TemporaryDirectory()
        let path = try directory.write("overlays.geojson", answer.text)
        let info = try await runCommand("/usr/bin/ogrinfo", ["-ro", "-al", "-so", path], environment: TestEnvironment.childEnvironment())
        #expect(info.status == 0, "\(info)")
        #expect(info.stdout.contains("Feature Count: \(count)"), "\(info.stdout)")
        #expect(info.stdout.contains("Geometry: Point"), "\(info.stdout)")
        try await web.stop()
    }

    @Test("listening beyond loopback is logged as a warning; on loopback it is not")
    func beyondLoopback() async throws {
        let wide = try await WebDaemon([], listen: "0.0.0.0:0")
        let warning = try await wide.daemon.process.waitForLine(containing: "beyond loopback", on: \.stderr)
        #expect(warning.contains("warning weatherd: web listener on 0.0.0.0:\(wide.port), beyond loopback"), "\(warning)")
        #expect(try await httpRequest(port: wide.port, "/healthz").status == 200)
        try await wide.stop()
        let local = try await WebDaemon()
        #expect(!local.daemon.stderrText.contains("beyond loopback"))
        try await local.stop()
    }

    @Test("a Host that is not this listener's is refused with 403 (DNS rebinding); localhost, 127.0.0.1, [::1] and web.allowed_hosts pass")
    func hostCheck() async throws {
        let web = try await WebDaemon([#"allowed_hosts = ["weather.example"]"#])
        let port = web.port
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1:\(port + 1)", "localhost", "127.0.0.1:\(port)@evil.example"] {
            #expect(try await httpRequest(port: port, "/state.json", host: host).status == 403, "Host: \(host)")
        }
        #expect(try await httpRequest(port: port, "/state.json", host: .some(nil)).status == 403, "no Host")
        for host in [
            "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)", "weather.example", "weather.example:443",
        ] {
            #expect(try await httpRequest(port: port, "/state.json", host: host).status == 200, "Host: \(host)")
        }
        try await web.stop()
    }

    @Test("the WebSocket upgrade checks Host and Origin: another origin gets 403")
    func originCheck() async throws {
        let web = try await WebDaemon()
        let port = web.port
        for origin in ["http://evil.example", "http://127.0.0.1:\(port + 1)", "https://127.0.0.1:\(port)", "null"] {
            do {
                _ = try await WebSocketClient.connect(port: port, origin: origin)
                Issue.record("Origin: \(origin) was upgraded")
            } catch let refused as WebSocketClient.Refused {
                #expect(refused.status == 403, "Origin: \(origin)")
            }
        }
        await #expect(throws: WebSocketClient.Refused.self) { _ = try await WebSocketClient.connect(port: port, host: "evil.example") }
        let client = try await WebSocketClient.connect(port: port, origin: "http://127.0.0.1:\(port)")
        #expect(try await client.call(1, "version")["result"]?["protocol"] == .integer(1))
        try await web.stop()
    }
}

@Suite("web: the WebSocket")
struct WebSocketTests {
    @Test("the same protocol as the socket: a search, watch with replay, and overlays notifications")
    func sameProtocol() async throws {
        let web = try await WebDaemon()
        let port = web.port
        let client = try await WebSocketClient.connect(port: port, origin: "http://localhost:\(port)")
        let watch = try await client.call(1, "watch")
        #expect(watch["result"]?["topics"] == .array(["overlays", "state"]))
        var methods: Set<String> = []
        while methods.count < 2 { methods.insert(try await client.receiveMessage()["method"]?.stringValue ?? "") }
        #expect(methods == ["overlays", "state"])
        let search = try await client.call(2, "search", ["city": "Paris"])
        #expect(search["result"]?["properties"]?["name"] == "Paris")
        // The daemon's administration stays on the Unix socket.
        #expect(try await client.call(3, "reload")["error"]?["code"] == .integer(-32601))
        // A batch in one message, and an id echoed exactly as sent.
        try client.send(#"[{"jsonrpc":"2.0","id":18446744073709551616,"method":"version"},{"jsonrpc":"2.0","id":"b","method":"cities"}]"#)
        var batch: JSONValue?
        while batch == nil {
            let message = try await client.receiveMessage()
            if message.arrayValue != nil { batch = message }
        }
        #expect(batch?.serialized.contains(#""id":18446744073709551616"#) == true)
        try await web.stop()
    }

    @Test("a message over 64 KiB closes the connection with 1009; fragments are joined; binary gets 1003")
    func limits() async throws {
        let web = try await WebDaemon()
        let port = web.port
        let big = try await WebSocketClient.connect(port: port)
        try big.send(Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1))
        var close: WebSocketClient.Frame?
        while let frame = try await big.receive(), close == nil { if frame.opcode == 8 { close = frame } }
        #expect(close?.closeCode == 1009)

        let fragmented = try await WebSocketClient.connect(port: port)
        let request = Array(RPCMessage.request(id: 7, method: "version").utf8)
        try fragmented.send(opcode: 1, fin: false, Array(request[..<10]))
        try fragmented.send(opcode: 0, fin: true, Array(request[10...]))
        #expect(try await fragmented.receiveMessage()["id"] == .integer(7))
        // Fragments adding up to more than 64 KiB close it too.
        try fragmented.send(opcode: 1, fin: false, Array(repeating: UInt8(ascii: " "), count: 40_000))
        try fragmented.send(opcode: 0, fin: true, Array(repeating: UInt8(ascii: " "), count: 40_000))
        var fragmentedClose: WebSocketClient.Frame?
        while let frame = try await fragmented.receive(), fragmentedClose == nil { if frame.opcode == 8 { fragmentedClose = frame } }
        #expect(fragmentedClose?.closeCode == 1009)

        let binary = try await WebSocketClient.connect(port: port)
        try binary.send(opcode: 2, [1, 2, 3])
        #expect(try await binary.receive()?.closeCode == 1003)

        // A message of exactly 64 KiB is served.
        let exact = try await WebSocketClient.connect(port: port)
        let padded = #"{"jsonrpc":"2.0","id":9,"method":"version"}"#
        try exact.send(Array(padded.utf8) + Array(repeating: UInt8(ascii: " "), count: 64 * 1024 - padded.utf8.count))
        #expect(try await exact.receiveMessage()["id"] == .integer(9))
        try await web.stop()
    }

    @Test("read_only: search, locate, location.report, region, cities.add and cities.remove are -32601; looking still works")
    func readOnly() async throws {
        let web = try await WebDaemon(["read_only = true"])
        let port = web.port
        let client = try await WebSocketClient.connect(port: port)
        for (id, method) in ["search", "locate", "location.report", "region", "forecast", "cities.add", "cities.remove"].enumerated() {
            let reply = try await client.call(id, method, ["city": "Paris"])
            #expect(reply["error"]?["code"] == .integer(-32601), "\(method): \(reply.serialized)")
        }
        #expect(try await client.call(10, "cities")["result"]?["cities"] == .array(["London"]))
        #expect(try await client.call(11, "overlays")["result"]?["type"] == "FeatureCollection")
        #expect(try JSONValue.parse(try await httpRequest(port: port, "/assets/config.json").body)["read_only"] == .bool(true))
        // The Unix socket is not read-only.
        #expect(try await web.daemon.call("search", ["city": "Paris"])["properties"]?["name"] == "Paris")
        try await web.stop()
    }

    @Test("web.max_clients: one more WebSocket client gets busy (-32007) and is closed; a slot frees when a client leaves")
    func maxClients() async throws {
        let web = try await WebDaemon(["max_clients = 2"])
        let port = web.port
        let first = try await WebSocketClient.connect(port: port)
        let second = try await WebSocketClient.connect(port: port)
        _ = try await (first.call(1, "version"), second.call(1, "version"))
        let third = try await WebSocketClient.connect(port: port)
        #expect(try await third.receiveMessage()["error"]?["code"] == .integer(-32007))
        first.socket.shutdown()
        // The slot is free a moment after the client left.
        var served = false
        for _ in 0..<200 where !served {
            let next = try await WebSocketClient.connect(port: port)
            try next.send(RPCMessage.request(id: 1, method: "version"))
            served = try await next.receiveMessage()["result"] != nil
        }
        #expect(served)
        withExtendedLifetime(second) {}
        try await web.stop()
    }

    @Test("a WebSocket client that never reads while overlays change does not hold others back; SIGTERM ends it all")
    func silentWebWatcher() async throws {
        let web = try await WebDaemon()
        let port = web.port
        let silent = try await WebSocketClient.connect(port: port)
        try silent.send(RPCMessage.request(id: 1, method: "watch"))
        let active = try await WebSocketClient.connect(port: port)
        for i in 0..<300 {
            let reply = try await active.call(i, "search", ["city": .string(["London", "Paris", "Berlin"][i % 3])])
            #expect(reply["result"] != nil)
        }
        try await web.stop()
    }
}
