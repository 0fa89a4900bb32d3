import ArgumentParser
import WeatherRPC
import WeatherSocket

struct WatchCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print notifications as they arrive, one JSON object per line.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Only later changes, not the current state and overlays first.") var noReplay = false
    @Option(help: ArgumentHelp("Comma-separated topics: overlays, state.", valueName: "topics")) var topics: String?
    @Flag(help: "Print only the overlays FeatureCollections.") var geojson = false

    func run() throws {
        var params: JSONObject = ["replay": .bool(!noReplay)]
        if let topics {
            params["topics"] = .array(topics.split(separator: ",").map { .string($0.trimmingSpaces) })
        } else if geojson {
            params["topics"] = .array(["overlays"])
        }
        try options.withConnection { connection in
            _ = try connection.call("watch", params) { emit($0) }
            while let message = try connection.receive() { emit(message) }
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
