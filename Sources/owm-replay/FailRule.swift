import ArgumentParser
import Foundation
import WeatherCore

/// `--fail [SERVICE:]CITY=STATUS`: answer requests for CITY (of SERVICE, `openweathermap` or
/// `open-meteo`; without it of both) with an error instead of the weather.
struct FailRule: ExpressibleByArgument, Sendable {
    enum Outcome: Sendable {
        /// An HTTP error status with the body the service (or a proxy in front of it) would send.
        case status(Int)
        /// Status 200 with a body that is not JSON.
        case garbage
    }

    let pattern: CityPattern
    /// The service it is for; nil: both.
    let service: WeatherProviderName?
    let outcome: Outcome

    init?(argument: String) {
        guard let (target, value) = splitRule(argument) else { return nil }
        if value.lowercased() == "garbage" {
            outcome = .garbage
        } else if let status = Int(value), (100...599).contains(status) {
            outcome = .status(status)
        } else {
            return nil
        }
        let (service, city) = splitService(target)
        guard !city.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        self.service = service
        pattern = CityPattern(city)
    }
}
