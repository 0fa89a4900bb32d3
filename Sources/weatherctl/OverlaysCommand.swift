import ArgumentParser
import WeatherSocket

struct OverlaysCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "overlays", abstract: "Print the current overlays (a GeoJSON FeatureCollection).")

    @OptionGroup var options: GlobalOptions

    func run() throws {
        printJSON(try options.withConnection { try $0.call("overlays") })
    }
}
