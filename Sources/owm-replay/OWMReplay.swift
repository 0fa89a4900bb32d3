import ArgumentParser
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `owm-replay`: an offline stand-in for two weather services on one port: OpenWeatherMap's
/// current-weather, forecast and geocoding APIs (`GET /data/2.5/weather`, `/data/2.5/forecast`,
/// `/geo/1.0/direct`) and Open-Meteo's forecast and geocoding APIs (`GET /v1/forecast`,
/// `/v1/search`), answering from recorded responses and, where there are none, made-up ones.
@main
struct OWMReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "owm-replay",
        abstract: "Serve recorded OpenWeatherMap and Open-Meteo weather, forecast and geocoding responses over HTTP.",
        discussion: """
            Stands in for OpenWeatherMap (/data/2.5/weather, /data/2.5/forecast, \
            /geo/1.0/direct) and for Open-Meteo (/v1/forecast, one point or lists of points; \
            /v1/search, its geocoder) on the same port: point weatherd's openweathermap.base_url \
            and its open-meteo base_url and geocoding_url at it. Open-Meteo answers near \
            52.52,13.41 are the recorded Berlin forecast; other points are made up, in agreement \
            with the OpenWeatherMap side.

            Prints "owm-replay listening on http://HOST:PORT" once bound. GET /_stats returns request \
            and connection counts: OpenWeatherMap's at the top (deprecated_q: weather and forecast \
            requests by q=), Open-Meteo's in open_meteo (forecast requests, the points they asked, \
            searches, each point and name). CITY in --delay and --fail is a city name, Name,CC, or \
            * for all, optionally after SERVICE: (openweathermap or open-meteo; without it the rule \
            is for both); a rule naming a city covers its geocoding requests (/geo/1.0/direct?q=, \
            /v1/search?name=) and the points that resolve to it too.

            Faults can also be set and cleared while it runs (docs/owm-replay.md):
              POST /_faults?city=CITY[&service=S]&fault=FAULT[&...]  set the fault of CITY
              DELETE /_faults[?city=CITY][&service=S]  clear it (or all of them)
              GET /_faults                             list faults, requests hanging
            Each answers {"faults":[{"city":…,"fault":…,…}],"hanging":N}, or 400.
            S is openweathermap or open-meteo; without service= (or with *) a fault is
            for both services. FAULT is one of:
              400, 401, 404, 429, 500, …  that status, with the service's body;
                                         &retry_after=S adds Retry-After
              hang                       no answer until the fault is cleared (then
                                         the usual one) or the client goes away
              not-json                   status 200 with an HTML body
              huge[&bytes=N][&chunked]   200, a JSON body of N bytes (default 10 MiB);
                                         chunked: sent without a Content-Length
              drip[&rate=N]              the usual answer, N bytes a second (default 4)
            A fault naming the city wins over a * fault, one for the service over one
            for both; all win over --fail (the API key checks come first).
            """
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind (0: any free port).")
    var port = 0

    @Option(
        help: ArgumentHelp(
            "Directory of recorded OpenWeatherMap responses named <slug>.<standard|metric|imperial>.json "
                + "(forecasts in forecast/, geocoding answers in geo/) and of Open-Meteo's in open-meteo/ "
                + "(forecast/<slug>.json, search/<name>.json, search-empty.json)."
        ))
    var data = "demo/owm"

    @Option(name: .customLong("api-key"), help: "Only accept this appid on OpenWeatherMap's paths (default: accept any).")
    var apiKey: String?

    @Option(
        name: .customLong("open-meteo-api-key"),
        help: "Only accept this apikey on Open-Meteo's paths (default: accept any, or none).")
    var openMeteoAPIKey: String?

    @Option(
        help: ArgumentHelp(
            "Answer requests for CITY (of SERVICE: openweathermap or open-meteo; default both) after MS milliseconds (repeatable).",
            valueName: "[SERVICE:]CITY=MS"))
    var delay: [DelayRule] = []

    @Option(
        help: ArgumentHelp(
            "Answer requests for CITY (of SERVICE; default both) with STATUS (429, 401, 404, 5xx, or garbage) instead (repeatable).",
            valueName: "[SERVICE:]CITY=STATUS"
        ))
    var fail: [FailRule] = []

    @Option(name: .customLong("retry-after"), help: "Retry-After seconds sent with --fail 429 answers.")
    var retryAfter: Int?

    @Flag(
        name: .customLong("shift-times"),
        help: ArgumentHelp(
            "Serve recorded answers with their times moved to now, and recorded forecasts followed by synthesized steps "
                + "to their whole range (the offline demo's sample data)."))
    var shiftTimes = false

    @Flag(
        name: .customLong("mark-sample"),
        help: "Send a Sample-Data: owm-replay header with every answer of the services' paths (not real weather).")
    var markSample = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        if let retryAfter, retryAfter < 0 { throw ValidationError("--retry-after must not be negative") }
    }

    func run() async throws {
        let catalog: WeatherCatalog
        do {
            catalog = try WeatherCatalog(directory: data)
        } catch {
            throw ValidationError("cannot read --data \(data): \(error)")
        }
        var endpoint = WeatherEndpoint(
            catalog: catalog,
            apiKey: apiKey,
            delays: delay,
            failures: fail,
            retryAfter: retryAfter,
            stats: ReplayStats(),
            openMeteoAPIKey: openMeteoAPIKey
        )
        endpoint.shiftTimes = shiftTimes
        do {
            endpoint.nws = try NWSEndpoint(directory: data)
        } catch {
            throw ValidationError("cannot read --data \(data): \(error)")
        }
        endpoint.markSample = markSample
        let server = try await ReplayServer.bind(host: host, port: port, endpoint: endpoint)
        let boundPort = server.localAddress?.port ?? port
        let hostText = host.contains(":") ? "[\(host)]" : host
        FileHandle.standardOutput.write(Data("owm-replay listening on http://\(hostText):\(boundPort)\n".utf8))
        logLine(
            "serving \(catalog.entries.count) recorded cities and \(catalog.places.count) places from \(data); "
                + "for Open-Meteo \(catalog.openMeteoForecasts.count) recorded forecasts and "
                + "\(catalog.openMeteoPlaces.count) places")
        if shiftTimes {
            logLine(
                "sample data: recorded answers are served with their times moved to now, recorded forecasts "
                    + "followed by synthesized steps (--shift-times)")
        }

        // SIGTERM and SIGINT end the server gracefully: open keep-alive connections are closed.
        var logger = Logger(label: "owm-replay") { StreamLogHandler.standardError(label: $0) }  // stdout has the port line
        logger.logLevel = .warning
        let group = ServiceGroup(
            configuration: .init(
                services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        logLine("stopped")
    }
}
