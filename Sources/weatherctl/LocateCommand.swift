import ArgumentParser
import WeatherRPC
import WeatherSocket

struct LocateCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(commandName: "locate", abstract: "Look up the weather at the next fused location fix.")

    @OptionGroup var options: GlobalOptions
    @Option(help: "Seconds to wait for a fix (default: location.locate_timeout).") var timeout: Double?
    @Option(help: "Only a fix of this source: gpsd, owntracks, geoclue or client.") var source: String?
    @Option(name: .customLong("max-age"), help: "Seconds: a fused fix at most this old answers at once.") var maxAge: Double?
    @Flag(help: "Print the protocol object.") var json = false

    func run() throws {
        var params: JSONObject = [:]
        if let timeout { params["timeout"] = .double(timeout) }
        if let source { params["source"] = .string(source) }
        if let maxAge { params["max_age"] = .double(maxAge) }
        let feature = try options.withConnection { try $0.call("locate", params) }
        let lines = [HumanFormat.feature(feature)] + [HumanFormat.fixSource(feature), HumanFormat.airQuality(feature)].compactMap { $0 }
        output(json ? feature.serialized : HumanFormat.credited(lines, for: feature))
    }
}
