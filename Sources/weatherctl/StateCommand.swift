import ArgumentParser
import WeatherClient
import WeatherCore

struct StateCommand: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(commandName: "state", abstract: "Print whether a search is running and the phase of the latest one.")

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Print the protocol object.") var json = false

    func run() async throws {
        let state = try await options.withConnection { try await $0.call("state") }
        output(json ? state.serialized : HumanFormat.state(state))
    }
}
