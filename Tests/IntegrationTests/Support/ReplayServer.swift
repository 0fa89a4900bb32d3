import Foundation
import WeatherCore

@testable import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An `owm-replay` process serving the recorded OpenWeatherMap answers on 127.0.0.1 (a free port).
final class ReplayServer: Sendable {
    let process: ChildProcess
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts owm-replay with `arguments` (e.g. `--delay Tokyo=300`, `--fail Paris=500`) and waits
    /// for its `listening on` line.
    /// With `unprivileged`, it runs as `nobody` with no capabilities (through setpriv), as a user
    /// or a container would run it.
    static func start(_ arguments: [String] = [], unprivileged: Bool = false) async throws -> ReplayServer {
        let replay = try TestEnvironment.binary("owm-replay")
        let command = ["--port", "0", "--data", TestEnvironment.demoData] + arguments
        let process: ChildProcess
        if unprivileged {
            process = try await ChildProcess(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", replay] + command,
                environment: TestEnvironment.childEnvironment(), name: "owm-replay")
        } else {
            process = try await ChildProcess(replay, command, environment: TestEnvironment.childEnvironment())
        }
        let line = try await process.waitForLine(containing: "owm-replay listening on http://", on: \.stdout)
        guard let portText = line.split(separator: ":").last, let port = Int(portText.trimmingCharacters(in: .whitespaces)) else {
            throw ChildProcessError(message: "owm-replay printed no port: \(line)")
        }
        return ReplayServer(process: process, port: port)
    }

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// `GET /_stats`: `{"requests":N,"connections":M,"by_query":{...}}`. The GET itself is one more
    /// connection (but not a request).
    func stats() async throws -> ReplayStats {
        let body = try await httpGet(port: port, path: "/_stats")
        return ReplayStats(json: try JSONValue.parse(Array(body.utf8)))
    }
}

struct ReplayStats: Sendable, CustomStringConvertible {
    var json: JSONValue
    var requests: Int { json["requests"]?.intValue ?? -1 }
    var connections: Int { json["connections"]?.intValue ?? -1 }
    /// Requests for one normalized query, e.g. `lat=51.5085&lon=-0.1257` or `geo:q=london`.
    func requests(for query: String) -> Int { json["by_query"]?[query]?.intValue ?? 0 }
    /// Geocoding requests for one normalized name, e.g. `london` or `springfield,mo,us`.
    func placeRequests(for name: String) -> Int { requests(for: "geo:q=" + name) }
    /// Geocoding requests for any name.
    var placeRequests: Int { count { $0.hasPrefix("geo:") } }
    /// Forecast requests for any place.
    var forecastRequests: Int { count { $0.hasPrefix("forecast:") } }
    /// Current-weather requests for any place.
    var weatherRequests: Int { count { !$0.hasPrefix("geo:") && !$0.hasPrefix("forecast:") } }
    /// Weather and forecast requests that named a city with the deprecated `q=`.
    var deprecatedQ: Int { json["deprecated_q"]?.intValue ?? -1 }
    /// OpenWeatherMap requests refused for their key (owm-replay `--api-key`).
    var wrongKey: Int { json["wrong_key"]?.intValue ?? -1 }

    private func count(_ matches: (String) -> Bool) -> Int {
        (json["by_query"]?.objectValue?.members ?? []).filter { matches($0.key) }.reduce(0) { $0 + ($1.value.intValue ?? 0) }
    }
    var description: String { json.serialized }
}

/// A minimal HTTP/1.0 GET over a TCP socket to 127.0.0.1; returns the body of a 200 answer. The
/// blocking calls run on a thread of their own, not on the test's executor.
func httpGet(port: Int, path: String) async throws -> String {
    let (status, body) = try await httpRequest("GET", port: port, target: path)
    guard status == 200 else { throw ChildProcessError(message: "GET \(path): HTTP \(status)") }
    return body
}
