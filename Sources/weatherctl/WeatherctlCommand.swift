import ArgumentParser
import WeatherRPC

struct WeatherctlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weatherctl",
        abstract: "Talk to weatherd: search cities, watch overlays and state, manage watched cities.",
        version: WeatherdVersion.current,
        subcommands: [
            SearchCommand.self, LocateCommand.self, RegionCommand.self, OverlaysCommand.self, StateCommand.self, WatchCommand.self,
            CitiesCommand.self, ForecastCommand.self, PlacesCommand.self, AlertsCommand.self, ReloadCommand.self,
            BarCommand.self,
        ])

    @OptionGroup var options: GlobalOptions
}
