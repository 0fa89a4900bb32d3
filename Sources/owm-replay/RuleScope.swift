import Foundation
import WeatherCore

/// The two services the stand-in answers, named as weatherd names its providers: `openweathermap`
/// (`/data/2.5/…`, `/geo/1.0/…`) and `open-meteo` (`/v1/forecast`, `/v1/search`). A `--delay` or
/// `--fail` rule and a fault set through `/_faults` may be for one of them; without one it is for both.
extension WeatherProviderName {
    /// `openweathermap` or `open-meteo`, in any case, white space around it dropped.
    init?(serviceName text: String) {
        self.init(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased())
    }

    static let serviceNames = "openweathermap or open-meteo"
}

/// Splits a rule's `[SERVICE:]CITY` into the service (nil when there is no such prefix: both) and
/// the city (`open-meteo:Paris`, `openweathermap:*`). City names never start with a service name
/// and a colon.
func splitService(_ text: String) -> (service: WeatherProviderName?, city: String) {
    guard let colon = text.firstIndex(of: ":"),
        let service = WeatherProviderName(serviceName: String(text[..<colon]))
    else { return (nil, text) }
    return (service, String(text[text.index(after: colon)...]))
}

/// How closely a rule for `pattern` and `service` (nil: both) fits a request to `requestService`
/// that asked for, or resolved to, one of `cities`: nil when it does not cover it; else the higher
/// the closer. A rule naming one of the cities beats a `*` rule, and of those alike a rule for the
/// request's service beats one for both.
func ruleFit(
    pattern: CityPattern, service: WeatherProviderName?,
    request requestService: WeatherProviderName, cities: [(name: String, country: String?)]
) -> Int? {
    if let service, service != requestService { return nil }
    if pattern.city != nil, !pattern.matches(cities) { return nil }
    return (pattern.city != nil ? 2 : 0) + (service != nil ? 1 : 0)
}

/// The rule of `rules` that fits the request best (`ruleFit`); of two that fit alike, the later.
func bestRule<Rule>(
    _ rules: [Rule], pattern: (Rule) -> CityPattern, service: (Rule) -> WeatherProviderName?,
    request requestService: WeatherProviderName, cities: [(name: String, country: String?)]
) -> Rule? {
    var best: (fit: Int, rule: Rule)?
    for rule in rules {
        guard let fit = ruleFit(pattern: pattern(rule), service: service(rule), request: requestService, cities: cities),
            fit >= (best?.fit ?? 0)
        else { continue }
        best = (fit, rule)
    }
    return best?.rule
}
