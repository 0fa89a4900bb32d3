import ArgumentParser
import WeatherRPC
import WeatherSocket

struct CitiesCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "cities",
        abstract: "List the watched cities, or add or remove one (stored durably by the daemon).",
        usage: "weatherctl cities [add CITY | remove CITY]")

    @OptionGroup var options: GlobalOptions
    @Argument(help: "add or remove") var action: String?
    @Argument(help: "The city.") var city: [String] = []
    @Flag(help: "Print the protocol object.") var json = false

    func validate() throws {
        switch action {
        case nil: if !city.isEmpty { throw ValidationError("expected add or remove before the city") }
        case "add", "remove":
            if city.isEmpty { throw ValidationError("\(action!) needs a city") }
            _ = try NameArgument.name(city, what: "the city")
        case let other?: throw ValidationError("unknown action '\(other)': expected add or remove")
        }
    }

    func run() throws {
        let result = try options.withConnection { connection in
            switch action {
            case "add"?: try connection.call("cities.add", ["city": .string(try NameArgument.name(city, what: "the city"))])
            case "remove"?: try connection.call("cities.remove", ["city": .string(try NameArgument.name(city, what: "the city"))])
            default: try connection.call("cities")
            }
        }
        if json {
            output(result.serialized)
        } else {
            for name in result["cities"]?.arrayValue ?? [] { output(name.stringValue ?? name.serialized) }
        }
    }
}
