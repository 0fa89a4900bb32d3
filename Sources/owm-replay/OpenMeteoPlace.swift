import WeatherCore

/// One place Open-Meteo's geocoder (`/v1/search`) knows, as it answers it: `{"id","name","latitude",
/// "longitude","elevation","feature_code","country_code","admin1_id"?,"admin2_id"?,"timezone",
/// "population"?,"postcodes"?,"country_id"?,"country","admin1"?,"admin2"?}` (members Open-Meteo has
/// no value for are left out, as it leaves them out).
struct OpenMeteoPlace: Sendable {
    /// The place as answered, its members in their order.
    let body: JSONObject
    /// Its GeoNames id.
    let id: Int
    let name: String
    let countryCode: String
    let country: String
    let admin1: String?
    let latitude: Double
    let longitude: Double
    let timezone: String
    let elevation: Double?
    let featureCode: String

    /// A place of a recorded answer; nil unless it has a numeric `id`, `latitude` and `longitude`,
    /// and a string `name` and `country_code`.
    init?(body: JSONObject) {
        guard let id = body["id"]?.intValue, let name = body["name"]?.stringValue,
            let latitude = body["latitude"]?.doubleValue, let longitude = body["longitude"]?.doubleValue,
            let countryCode = body["country_code"]?.stringValue
        else { return nil }
        self.body = body
        self.id = id
        self.name = name
        self.countryCode = countryCode
        country = body["country"]?.stringValue ?? countryCode
        admin1 = body["admin1"]?.stringValue
        self.latitude = latitude
        self.longitude = longitude
        timezone = body["timezone"]?.stringValue ?? "GMT"
        elevation = body["elevation"]?.doubleValue
        featureCode = body["feature_code"]?.stringValue ?? "PPL"
    }

    /// A place OpenWeatherMap's geocoder knows, as Open-Meteo's writes it, with GeoNames id `id`:
    /// what `GeoNamesFacts` knows of it, its country and its state (`admin1`; a US state's code
    /// written out: `OH` → `Ohio`).
    init(_ place: GeoPlace, id: Int) {
        let city = GeoNamesFacts.cities[id]
        let country = GeoNamesFacts.countries[place.country.uppercased()]
        let admin1 =
            city?.admin1
            ?? place.state.map { state in
                place.country.uppercased() == "US" ? USState.name(forCode: state) ?? state : state
            }
        let timezone =
            city?.timezone
            ?? admin1.flatMap { GeoNamesFacts.stateTimezones[place.country.uppercased() + "/" + $0] }
            ?? country?.timezone ?? "GMT"
        var body: JSONObject = [
            "id": .integer(Int64(id)),
            "name": .string(place.name),
            "latitude": .rounded(place.latitude, decimals: 5),
            "longitude": .rounded(place.longitude, decimals: 5),
            "elevation": .double(city?.elevation ?? OpenMeteoPoint.elevation(place.latitude, place.longitude)),
            "feature_code": .string(city?.featureCode ?? "PPL"),
            "country_code": .string(place.country.uppercased()),
            "timezone": .string(timezone),
        ]
        if let population = city?.population { body["population"] = .integer(Int64(population)) }
        if let country { body["country_id"] = .integer(Int64(country.geonamesID)) }
        body["country"] = .string(country?.name ?? place.country.uppercased())
        if let admin1 { body["admin1"] = .string(admin1) }
        self.init(body: body)!
    }

    /// Whether it answers a search for `name` (compared as city names are: case, diacritics and
    /// white space aside; its whole name, or with `prefix` a name that begins so), narrowed by `area`
    /// (the part of the name after a comma: its `admin1` (a US state also by its code), its country
    /// or its country code) and by `countryCode`.
    func matches(name wanted: String, prefix: Bool = false, area: String?, countryCode wantedCountry: String?) -> Bool {
        guard prefix ? squeezed(name).hasPrefix(squeezed(wanted)) : squeezed(name) == squeezed(wanted) else { return false }
        if let wantedCountry, wantedCountry.uppercased() != countryCode.uppercased() { return false }
        guard let area, !area.isEmpty else { return true }
        let folded = normalizeCityName(area)
        return admin1.map { USState.matches(area, state: $0) || normalizeCityName($0) == folded } ?? false
            || normalizeCityName(country) == folded || normalizeCityName(countryCode) == folded
    }

    /// The place in OpenWeatherMap's geocoder: its name, country code and `admin1` as the state.
    func geoPlace(file: String) -> GeoPlace {
        GeoPlace(
            source: .openMeteo(file: file), name: name, latitude: latitude, longitude: longitude, country: countryCode,
            state: admin1)
    }
}

private func squeezed(_ text: String) -> String {
    normalizeCityName(text).filter { !$0.isWhitespace }
}
