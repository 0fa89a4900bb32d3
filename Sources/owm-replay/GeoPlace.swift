import WeatherCore

/// One place the geocoder (`/geo/1.0/direct`) knows, as it answers it:
/// `{"name","local_names"?,"lat","lon","country","state"?}`.
struct GeoPlace: Sendable {
    /// Where a place comes from, in the order they are preferred.
    enum Source: Sendable, Equatable {
        /// A recorded Geocoding API answer (`geo/<slug>.json` of the data directory).
        case recorded(file: String)
        /// A city of the weather catalog: its name, `sys.country` and `coord`.
        case catalog(file: String)
        /// Made up here (`SynthesizedPlaces`).
        case synthesized
        /// A populated place of a recorded Open-Meteo geocoding answer (`open-meteo/search/<name>.json`),
        /// its `admin1` as the state.
        case openMeteo(file: String)
    }

    let source: Source
    /// The place as answered, its members in their order.
    let body: JSONObject
    let name: String
    let country: String
    let state: String?
    let latitude: Double
    let longitude: Double
    /// The synthetic city id of a place without recorded weather (see `syntheticID`), nil for a
    /// place that has recorded weather (its weather keeps its recorded id).
    var cityID: Int?

    /// A place from an answer's object; nil unless it has a string `name` and `country` and numeric
    /// `lat` and `lon` (a `state`, if any, is a string).
    init?(source: Source, body: JSONObject) {
        guard let name = body["name"]?.stringValue, let country = body["country"]?.stringValue,
            let latitude = body["lat"]?.doubleValue, let longitude = body["lon"]?.doubleValue,
            body["state"] == nil || body["state"]?.stringValue != nil
        else { return nil }
        self.source = source
        self.body = body
        self.name = name
        self.country = country
        self.state = body["state"]?.stringValue
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A place in OpenWeatherMap's member order; `state` only when there is one.
    init(source: Source, name: String, latitude: Double, longitude: Double, country: String, state: String? = nil) {
        var body: JSONObject = [
            "name": .string(name),
            "lat": .rounded(latitude, decimals: 4),
            "lon": .rounded(longitude, decimals: 4),
            "country": .string(country),
        ]
        if let state { body["state"] = .string(state) }
        self.init(source: source, body: body)!
    }

    /// The place as answered.
    var json: JSONValue { .object(body) }

    /// Whether `query` names this place: its name (as `CityQuery` compares names), its country when
    /// the query has one, and, for a query in the US with a state, the state by name or USPS code
    /// (`USState.matches`): a place without a state does not match a state then. A state in a query
    /// for another country, or without a country, is not looked at (OpenWeatherMap takes a state for
    /// the US only).
    func matches(_ query: CityQuery) -> Bool {
        guard query.matches(name: name, country: country) else { return false }
        guard let wantedState = query.state, query.country == "us" else { return true }
        return state.map { USState.matches(wantedState, state: $0) } ?? false
    }

    /// Whether this place has the name and country given (names compared as `CityQuery` does:
    /// case, diacritics and white space aside).
    func isNamed(_ otherName: String, country otherCountry: String?) -> Bool {
        squeezedName(name) == squeezedName(otherName)
            && normalizeCityName(country) == normalizeCityName(otherCountry ?? "")
    }

    /// Whether `other` is this place again: the same name and country, and the same state (by name
    /// or USPS code) or neither has one.
    func isSame(as other: GeoPlace) -> Bool {
        guard isNamed(other.name, country: other.country) else { return false }
        switch (state, other.state) {
        case (nil, nil): return true
        case (let mine?, let theirs?): return USState.matches(mine, state: theirs)
        default: return false
        }
    }

    /// The synthetic city id of a place without recorded weather: 900000000 plus FNV-1a (64 bit) of
    /// `name|state|country|lat|lon` (name, state and country normalized as city names are, the
    /// coordinates as answered, to 4 decimals) modulo 100000000: 900000000...999999999, far above
    /// OpenWeatherMap's real city ids. The same place always gets the same id.
    static func syntheticID(name: String, state: String?, country: String, latitude: Double, longitude: Double) -> Int {
        let key = [
            normalizeCityName(name), normalizeCityName(state ?? ""), normalizeCityName(country),
            JSONValue.rounded(latitude, decimals: 4).serialized, JSONValue.rounded(longitude, decimals: 4).serialized,
        ].joined(separator: "|")
        return syntheticIDBase + Int(stableHash(key) % UInt64(syntheticIDCount))
    }

    static let syntheticIDBase = 900_000_000
    static let syntheticIDCount = 100_000_000
}

private func squeezedName(_ text: String) -> String {
    normalizeCityName(text).filter { !$0.isWhitespace }
}
