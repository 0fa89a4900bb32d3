import WeatherCore

/// A recorded answer of Open-Meteo's geocoder (`open-meteo/search/<name>.json` of the data
/// directory): the answer for a search for the name of its file (`new-york.json`: New York), served
/// as recorded (narrowed by `countryCode` and cut to `count`).
struct OpenMeteoSearchRecording: Sendable {
    let file: String
    /// The name it answers, from the file name.
    let name: String
    let body: JSONObject
    let places: [OpenMeteoPlace]

    init(file: String, body: JSONObject) throws(CatalogError) {
        self.file = file
        self.body = body
        let base = file.split(separator: "/").last.map(String.init) ?? file
        name = String(base.dropLast(".json".count))
        var places: [OpenMeteoPlace] = []
        if let results = body["results"] {
            guard let array = results.arrayValue else {
                throw CatalogError(file: file, reason: "results is not a list: not an Open-Meteo geocoding answer")
            }
            for (index, element) in array.enumerated() {
                guard let object = element.objectValue, let place = OpenMeteoPlace(body: object) else {
                    throw CatalogError(
                        file: file, reason: "result \(index + 1) is not a place (id, name, latitude, longitude, country_code)")
                }
                places.append(place)
            }
        }
        self.places = places
    }

    /// Whether it is the answer for a search for `name`: the file's name and `name` compared as city
    /// names are, `-`, `_` and white space aside.
    func answers(_ wanted: String) -> Bool {
        Self.key(name) == Self.key(wanted)
    }

    private static func key(_ text: String) -> String {
        normalizeCityName(text).filter { !$0.isWhitespace && $0 != "-" && $0 != "_" }
    }
}
