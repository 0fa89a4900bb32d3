import ArgumentParser
import WeatherRPC
import WeatherSocket

struct StateCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "state", abstract: "Print whether a search is running and the phase of the latest one.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print the protocol object.") var json = false

    func run() throws {
        let state = try options.withConnection { try $0.call("state") }
        output(json ? state.serialized : HumanFormat.state(state))
    }
}
