import ArgumentParser
import WeatherClient

struct OverlaysCommand: AsyncParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(commandName: "overlays", abstract: "Print the current overlays (a GeoJSON FeatureCollection).")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        printJSON(try await options.withConnection { try await $0.call("overlays") })
    }
}
