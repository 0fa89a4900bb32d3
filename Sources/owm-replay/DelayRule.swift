import ArgumentParser
import Foundation
import WeatherCore

/// `--delay [SERVICE:]CITY=MS`: answer requests for CITY (of SERVICE, `openweathermap` or
/// `open-meteo`; without it of both) after MS milliseconds.
struct DelayRule: ExpressibleByArgument, Sendable {
    let pattern: CityPattern
    /// The service it is for; nil: both.
    let service: WeatherProviderName?
    let milliseconds: Int

    init?(argument: String) {
        guard let (target, value) = splitRule(argument), let ms = Int(value), ms >= 0 else { return nil }
        let (service, city) = splitService(target)
        guard !city.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        self.service = service
        pattern = CityPattern(city)
        milliseconds = ms
    }
}
