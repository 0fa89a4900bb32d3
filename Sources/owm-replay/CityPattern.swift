import Foundation

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

/// Splits `CITY=VALUE` at the last `=` (city names never contain one).
func splitRule(_ argument: String) -> (String, String)? {
    guard let equals = argument.lastIndex(of: "=") else { return nil }
    let city = String(argument[..<equals])
    let value = String(argument[argument.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
    guard !city.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
    return (city, value)
}
