import ArgumentParser
import WeatherClient
import WeatherCore

struct LocateCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(commandName: "locate", abstract: "Look up the weather at the next accepted gpsd fix.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Seconds to wait for a fix (default: gpsd.locate_timeout).") var timeout: Double?
    @Flag(help: "Print the protocol object.") var json = false

    func run() throws {
        var params: JSONObject = [:]
        if let timeout { params["timeout"] = .double(timeout) }
        let feature = try options.withConnection { try $0.call("locate", params) }
        output(json ? feature.serialized : HumanFormat.credited([HumanFormat.feature(feature)], for: feature))
    }
}
