import ArgumentParser
import WeatherRPC
import WeatherSocket

struct AlertsCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Print the official alerts in force at a city or a point, most severe first.",
        usage: """
            weatherctl alerts CITY [--json]
              weatherctl alerts --at LAT LON [--json]
            """)

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print the protocol object.") var json = false
    @Argument(parsing: .allUnrecognized, help: "The city (e.g. \"Portland, OR, US\"), or --at LAT LON.")
    var values: [String] = []

    func validate() throws {
        _ = try NameArgument.cityOrPoint(values)
    }

    func run() throws {
        let result = try options.withConnection { try $0.call("alerts", try NameArgument.cityOrPoint(values)) }
        output(json ? result.serialized : HumanFormat.alerts(result).joined(separator: "\n"))
    }
}
