import ArgumentParser
import WeatherRPC
import WeatherSocket

struct PlacesCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "List the places a name matches, best first (searching none of them).")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The name, e.g. Springfield or \"Springfield, MO, US\".") var name: [String]
    @Option(help: "How many places at most, 1 to 10 (default 5).") var limit: Int?
    @Flag(help: "Print the protocol object.") var json = false

    func validate() throws {
        if name.isEmpty { throw ValidationError("Missing expected argument '<name>'") }
        _ = try NameArgument.name(name, what: "the name")
        if let limit, !RPCParamLimits.placesLimit.contains(limit) {
            throw ValidationError(
                "--limit must be from \(RPCParamLimits.placesLimit.lowerBound) to \(RPCParamLimits.placesLimit.upperBound)")
        }
    }

    func run() throws {
        var params: JSONObject = ["name": .string(try NameArgument.name(name, what: "the name"))]
        if let limit { params["limit"] = .integer(Int64(limit)) }
        let result = try options.withConnection { try $0.call("places", params) }
        if json {
            output(result.serialized)
        } else {
            let places = result["places"]?.arrayValue ?? []
            // Like `search`, a name that matches nothing fails (exit status 1); `--json` prints the empty list.
            if places.isEmpty { Weatherctl.fail("weatherctl: no place named \(name.joined(separator: " "))", status: 1) }
            output(places.map(HumanFormat.place(listed:)).joined(separator: "\n"))
        }
    }
}
