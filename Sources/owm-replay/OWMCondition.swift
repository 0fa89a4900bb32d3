import WeatherCore

/// An OpenWeatherMap weather condition (its `weather[0]`: `id`, `main`, `description`, the icon's
/// code without the day/night letter), the ones the synthesized answers use.
struct OWMCondition: Sendable {
    let id: Int
    let main: String
    let description: String
    let icon: String

    /// Rain, drizzle or snow: precipitation comes with it (and below 1 °C rain falls as snow).
    var wet: Bool { main == "Rain" || main == "Drizzle" || main == "Snow" }

    /// A cloud cover in percent that fits the condition (none for a clear sky, 11–24 % for few
    /// clouds, and so on up to overcast), drawn from `random`.
    func cloudCover(_ random: inout SplitMix64) -> Int {
        switch id {
        case 800: 0
        case 801: 11 + Int(random.next() % 14)
        case 802: 25 + Int(random.next() % 25)
        case 803: 51 + Int(random.next() % 33)
        default: 84 + Int(random.next() % 17)
        }
    }

    static let clearSky = OWMCondition(id: 800, main: "Clear", description: "clear sky", icon: "01")
    static let fewClouds = OWMCondition(id: 801, main: "Clouds", description: "few clouds", icon: "02")
    static let scatteredClouds = OWMCondition(id: 802, main: "Clouds", description: "scattered clouds", icon: "03")
    static let brokenClouds = OWMCondition(id: 803, main: "Clouds", description: "broken clouds", icon: "04")
    static let overcastClouds = OWMCondition(id: 804, main: "Clouds", description: "overcast clouds", icon: "04")
    static let lightDrizzle = OWMCondition(id: 300, main: "Drizzle", description: "light intensity drizzle", icon: "09")
    static let lightRain = OWMCondition(id: 500, main: "Rain", description: "light rain", icon: "10")
    static let moderateRain = OWMCondition(id: 501, main: "Rain", description: "moderate rain", icon: "10")
    static let lightSnow = OWMCondition(id: 600, main: "Snow", description: "light snow", icon: "13")
    static let mist = OWMCondition(id: 701, main: "Mist", description: "mist", icon: "50")
}
