import ArgumentParser
import WeatherRPC
import WeatherSocket

struct RegionCommand: ParsableCommand, HasGlobalOptions {
    static let configuration = CommandConfiguration(
        commandName: "region",
        abstract: "Send a map region event; its search runs after the debounce and reaches watchers.",
        usage: "weatherctl region LAT LON [--span DLAT DLON]")

    @OptionGroup var options: GlobalOptions
    @Argument(parsing: .allUnrecognized, help: "LAT LON of the centre, then optionally --span DLAT DLON.")
    var values: [String] = []

    func run() throws {
        var numbers: [Double] = []
        var span: [Double]?
        var index = values.startIndex
        while index < values.endIndex {
            let value = values[index]
            if value == "--" {
                index += 1
                continue
            }
            if value == "--span" {
                let rest = values[(index + 1)...].prefix(2).compactMap(Double.init)
                guard rest.count == 2 else { throw ValidationError("--span takes two numbers: DLAT DLON") }
                span = rest
                index += 3
                continue
            }
            guard let number = Double(value) else { throw ValidationError("'\(value)' is not a number") }
            numbers.append(number)
            index += 1
        }
        guard numbers.count == 2 else { throw ValidationError("expected LAT LON") }
        var params: JSONObject = ["center": .object(["lat": .double(numbers[0]), "lon": .double(numbers[1])])]
        if let span { params["span"] = .object(["lat": .double(span[0]), "lon": .double(span[1])]) }
        let result = try options.withConnection { try $0.call("region", params) }
        output(result["accepted"]?.boolValue == true ? "accepted" : result.serialized)
    }
}
