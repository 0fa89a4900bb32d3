import ArgumentParser
import WeatherCore

struct WeatherctlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weatherctl",
        abstract: "Talk to weatherd: search cities, watch overlays and state, manage watched cities.",
        version: WeatherdVersion.current,
        subcommands: [Search.self, Locate.self, Region.self, OverlaysCommand.self, State.self, Watch.self, Cities.self])

    @OptionGroup var options: GlobalOptions
}
