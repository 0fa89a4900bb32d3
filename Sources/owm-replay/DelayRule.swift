import ArgumentParser

/// `--delay CITY=MS`: answer requests for CITY after MS milliseconds.
struct DelayRule: ExpressibleByArgument, Sendable {
    let pattern: CityPattern
    let milliseconds: Int

    init?(argument: String) {
        guard let (city, value) = splitRule(argument), let ms = Int(value), ms >= 0 else { return nil }
        pattern = CityPattern(city)
        milliseconds = ms
    }
}
