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

extension OWMCondition {
    /// The WMO weather code (Open-Meteo's `weather_code`) of an OpenWeatherMap condition id:
    /// thunderstorms 95, drizzle 51–55, rain 61–65 (freezing 66, showers 80–82), snow 71–75 (sleet
    /// 77, showers 85–86), fog 45, clear 0, clouds 1–3.
    static func wmoCode(_ id: Int) -> Int {
        switch id {
        case 200..<300: 95
        case 300, 310: 51
        case 301, 311, 313, 321: 53
        case 302, 312, 314: 55
        case 500: 61
        case 501: 63
        case 502..<505: 65
        case 511: 66
        case 520: 80
        case 521: 81
        case 522, 531: 82
        case 600: 71
        case 601: 73
        case 602: 75
        case 611..<620: 77
        case 620: 85
        case 621, 622: 86
        case 700..<800: 45
        case 800: 0
        case 801: 1
        case 802: 2
        default: 3
        }
    }
}
