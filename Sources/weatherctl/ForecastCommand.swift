import ArgumentParser
import WeatherRPC
import WeatherSocket

struct ForecastCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "forecast",
        abstract: "Print the 3-hour forecast of a city or a point (it changes neither overlays nor state).",
        usage: """
            weatherctl forecast CITY [--hours N] [--json]
              weatherctl forecast --at LAT LON [--hours N] [--json]
            """)

    @OptionGroup var options: GlobalOptions
    @Option(help: "Hours ahead to cover, 3 to 120 (default 24).") var hours: Int?
    @Flag(help: "Print the protocol object.") var json = false
    @Argument(parsing: .allUnrecognized, help: "The city (e.g. Paris or \"New York,US\"), or --at LAT LON.")
    var values: [String] = []

    func validate() throws {
        if let hours, !RPCParamLimits.forecastHours.contains(hours) {
            throw ValidationError(
                "--hours must be from \(RPCParamLimits.forecastHours.lowerBound) to \(RPCParamLimits.forecastHours.upperBound)")
        }
        _ = try place()
    }

    /// `{"city"}` or `{"lat","lon"}` from the arguments.
    func place() throws -> JSONObject {
        try NameArgument.cityOrPoint(values)
    }

    func run() throws {
        var params = try place()
        if let hours { params["hours"] = .integer(Int64(hours)) }
        let feature = try options.withConnection { try $0.call("forecast", params) }
        output(json ? feature.serialized : HumanFormat.credited(HumanFormat.forecast(feature), for: feature))
    }
}
