import ArgumentParser

/// `--fail CITY=STATUS`: answer requests for CITY with an error instead of the weather.
struct FailRule: ExpressibleByArgument, Sendable {
    enum Outcome: Sendable {
        /// An HTTP error status with the body OpenWeatherMap or a proxy in front of it would send.
        case status(Int)
        /// Status 200 with a body that is not JSON.
        case garbage
    }

    let pattern: CityPattern
    let outcome: Outcome

    init?(argument: String) {
        guard let (city, value) = splitRule(argument) else { return nil }
        if value.lowercased() == "garbage" {
            outcome = .garbage
        } else if let status = Int(value), (100...599).contains(status) {
            outcome = .status(status)
        } else {
            return nil
        }
        pattern = CityPattern(city)
    }
}
