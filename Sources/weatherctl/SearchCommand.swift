import ArgumentParser
import WeatherRPC
import WeatherSocket

struct SearchCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Look up the weather of a city (it becomes the focus of the overlays).",
        discussion: """
            The name is resolved to places first and the best one is looked up; when the name matched \
            other places too, a second line says how many and how to list them (weatherctl places NAME). \
            Narrow a name with a country, and for the US a state: "Springfield, MO, US".
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "The city, e.g. London, \"New York,US\" or \"Springfield, MO, US\".") var city: [String]
    @Flag(help: "Print the protocol object.") var json = false

    func validate() throws {
        if city.isEmpty { throw ValidationError("Missing expected argument '<city>'") }
        _ = try NameArgument.name(city, what: "the city")
    }

    func run() throws {
        let name = try NameArgument.name(city, what: "the city")
        let feature = try options.withConnection { try $0.call("search", ["city": .string(name)]) }
        if json {
            output(feature.serialized)
        } else {
            output(
                HumanFormat.credited(
                    [HumanFormat.feature(feature)]
                        + [HumanFormat.alternativesHint(feature, searched: name), HumanFormat.airQuality(feature)].compactMap { $0 },
                    for: feature))
        }
    }
}
