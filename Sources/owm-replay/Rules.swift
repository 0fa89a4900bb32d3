import Foundation
import ArgumentParser

/// Which requests a `--delay` or `--fail` rule applies to: `*` (all) or one city (`Name` or `Name,CC`).
struct CityPattern: Sendable, CustomStringConvertible {
    /// `nil` for `*`.
    let city: CityQuery?
    let description: String

    init(_ text: String) {
        description = text
        city = text.trimmingCharacters(in: .whitespaces) == "*" ? nil : CityQuery(text)
    }

    /// Whether the rule covers a request that asked for, or resolved to, one of `cities`.
    func matches(_ cities: [(name: String, country: String?)]) -> Bool {
        guard let city else { return true }
        return cities.contains { city.matches(name: $0.name, country: $0.country) }
    }
}

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

/// Splits `CITY=VALUE` at the last `=` (city names never contain one).
private func splitRule(_ argument: String) -> (String, String)? {
    guard let equals = argument.lastIndex(of: "=") else { return nil }
    let city = String(argument[..<equals])
    let value = String(argument[argument.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
    guard !city.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
    return (city, value)
}
