import ArgumentParser
import Foundation
import WeatherClient
import WeatherCore

/// The entry point: runs a subcommand and maps what happened to the spec's exit status.
@main
enum Weatherctl {
    static func main() async {
        do {
            var command = try WeatherctlCommand.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ConnectError {
            fail("weatherctl: \(error)", status: 69)  // EX_UNAVAILABLE
        } catch let error as RemoteError {
            fail("weatherctl: \(error.message)", status: 1)
        } catch let error as ProtocolError {
            fail("weatherctl: \(error.message)", status: 1)
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch where isConnectionFailure(error) {
            let path = (try? WeatherctlCommand.parseAsRoot()).flatMap { ($0 as? any HasGlobalOptions)?.options.socketPath } ?? "the daemon"
            fail("weatherctl: the connection to \(path) failed: \(error) (did weatherd stop?)", status: 69)
        } catch {
            if WeatherctlCommand.exitCode(for: error) == .success {
                output(WeatherctlCommand.fullMessage(for: error))  // --help, --version
                exit(0)
            }
            if WeatherctlCommand.exitCode(for: error) == .validationFailure {
                fail(WeatherctlCommand.fullMessage(for: error), status: 2)  // usage error
            }
            fail("weatherctl: \(error)", status: 1)
        }
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}

/// A subcommand with the global options (for messages about the socket).
protocol HasGlobalOptions {
    var options: GlobalOptions { get }
}

struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The daemon's socket (default: $WEATHERD_SOCKET, else /run/weatherd/weatherd.sock).", valueName: "path"))
    var socket: String?

    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["WEATHERD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/run/weatherd/weatherd.sock"
    }

    /// Connects, runs `body`, closes.
    func withConnection<R: Sendable>(_ body: (DaemonConnection) async throws -> R) async throws -> R {
        try await DaemonConnection.with(socketPath: socketPath, body)
    }
}

struct WeatherctlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weatherctl",
        abstract: "Talk to weatherd: search cities, watch overlays and state, manage watched cities.",
        version: WeatherdVersion.current,
        subcommands: [Search.self, Locate.self, Region.self, OverlaysCommand.self, State.self, Watch.self, Cities.self])

    @OptionGroup var options: GlobalOptions
}

/// Writes one line to stdout at once, unbuffered, so `watch` output reaches a pipe line by line.
func output(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints a protocol object as one JSON line.
func printJSON(_ value: JSONValue) {
    output(value.serialized)
}

struct Search: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(abstract: "Look up the weather of a city (it becomes the focus of the overlays).")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The city, e.g. London or \"New York,US\".") var city: [String]
    @Flag(help: "Print the protocol object.") var json = false

    func validate() throws {
        if city.isEmpty { throw ValidationError("Missing expected argument '<city>'") }
    }

    func run() async throws {
        let name = city.joined(separator: " ")
        let feature = try await options.withConnection { try await $0.call("search", ["city": .string(name)]) }
        output(json ? feature.serialized : HumanFormat.feature(feature))
    }
}

struct Locate: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(abstract: "Look up the weather at the next accepted gpsd fix.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Seconds to wait for a fix (default: gpsd.locate_timeout).") var timeout: Double?
    @Flag(help: "Print the protocol object.") var json = false

    func run() async throws {
        var params: JSONObject = [:]
        if let timeout { params["timeout"] = .double(timeout) }
        let feature = try await options.withConnection { try await $0.call("locate", params) }
        output(json ? feature.serialized : HumanFormat.feature(feature))
    }
}

struct Region: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        abstract: "Send a map region event; its search runs after the debounce and reaches watchers.",
        usage: "weatherctl region LAT LON [--span DLAT DLON]")

    @OptionGroup var options: GlobalOptions
    @Argument(parsing: .allUnrecognized, help: "LAT LON of the centre, then optionally --span DLAT DLON.")
    var values: [String] = []

    func run() async throws {
        var numbers: [Double] = []
        var span: [Double]?
        var index = values.startIndex
        while index < values.endIndex {
            let value = values[index]
            if value == "--" {
                index += 1
                continue
            }
            if value == "--span" {
                let rest = values[(index + 1)...].prefix(2).compactMap(Double.init)
                guard rest.count == 2 else { throw ValidationError("--span takes two numbers: DLAT DLON") }
                span = rest
                index += 3
                continue
            }
            guard let number = Double(value) else { throw ValidationError("'\(value)' is not a number") }
            numbers.append(number)
            index += 1
        }
        guard numbers.count == 2 else { throw ValidationError("expected LAT LON") }
        var params: JSONObject = ["center": .object(["lat": .double(numbers[0]), "lon": .double(numbers[1])])]
        if let span { params["span"] = .object(["lat": .double(span[0]), "lon": .double(span[1])]) }
        let result = try await options.withConnection { try await $0.call("region", params) }
        output(result["accepted"]?.boolValue == true ? "accepted" : result.serialized)
    }
}

struct OverlaysCommand: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(commandName: "overlays", abstract: "Print the current overlays (a GeoJSON FeatureCollection).")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        printJSON(try await options.withConnection { try await $0.call("overlays") })
    }
}

struct State: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(abstract: "Print whether a search is running and the phase of the latest one.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print the protocol object.") var json = false

    func run() async throws {
        let state = try await options.withConnection { try await $0.call("state") }
        output(json ? state.serialized : HumanFormat.state(state))
    }
}

struct Watch: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(abstract: "Print notifications as they arrive, one JSON object per line.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Only later changes, not the current state and overlays first.") var noReplay = false
    @Option(help: ArgumentHelp("Comma-separated topics: overlays, state.", valueName: "topics")) var topics: String?
    @Flag(help: "Print only the overlays FeatureCollections.") var geojson = false

    func run() async throws {
        var params: JSONObject = ["replay": .bool(!noReplay)]
        if let topics {
            params["topics"] = .array(topics.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })
        } else if geojson {
            params["topics"] = .array(["overlays"])
        }
        try await options.withConnection { connection in
            _ = try await connection.call("watch", params) { emit($0) }
            while let message = try await connection.receive() { emit(message) }
        }
        throw ConnectError(path: options.socketPath, reason: "the daemon closed the connection")
    }

    private func emit(_ message: JSONValue) {
        guard message["method"] != nil else { return }
        if geojson {
            if message["method"] == "overlays", let params = message["params"] { printJSON(params) }
        } else {
            printJSON(message)
        }
    }
}

struct Cities: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        abstract: "List the watched cities, or add or remove one (stored durably by the daemon).",
        usage: "weatherctl cities [add CITY | remove CITY]")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "add or remove") var action: String?
    @Argument(help: "The city.") var city: [String] = []
    @Flag(help: "Print the protocol object.") var json = false

    func validate() throws {
        switch action {
        case nil: if !city.isEmpty { throw ValidationError("expected add or remove before the city") }
        case "add", "remove": if city.isEmpty { throw ValidationError("\(action!) needs a city") }
        case let other?: throw ValidationError("unknown action '\(other)': expected add or remove")
        }
    }

    func run() async throws {
        let result = try await options.withConnection { connection in
            switch action {
            case "add"?: try await connection.call("cities.add", ["city": .string(city.joined(separator: " "))])
            case "remove"?: try await connection.call("cities.remove", ["city": .string(city.joined(separator: " "))])
            default: try await connection.call("cities")
            }
        }
        if json {
            output(result.serialized)
        } else {
            for name in result["cities"]?.arrayValue ?? [] { output(name.stringValue ?? name.serialized) }
        }
    }
}
