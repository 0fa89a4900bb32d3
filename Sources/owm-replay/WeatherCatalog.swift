import Foundation
import WeatherCore

/// All recorded responses of a data directory, with city, place and coordinate lookup: current
/// weather in the directory, forecasts in its `forecast/` (optional), Geocoding API answers in its
/// `geo/` (optional); Open-Meteo's answers in its `open-meteo/` (optional): forecasts in
/// `open-meteo/forecast/`, geocoding answers in `open-meteo/search/` and `open-meteo/search-empty.json`,
/// air quality answers in `open-meteo/air-quality/`.
struct WeatherCatalog: Sendable {
    let entries: [RecordedWeather]
    let forecasts: [RecordedForecast]
    /// Every place the geocoder knows, best first (see `gazetteer`).
    let places: [GeoPlace]
    /// Recorded Open-Meteo forecasts, one point each, in file name order.
    let openMeteoForecasts: [OpenMeteoRecording]
    /// Recorded Open-Meteo geocoding answers, each for the name of its file, in file name order.
    let openMeteoSearches: [OpenMeteoSearchRecording]
    /// The recorded answer for a name Open-Meteo knows no place of (no `results` member), if any.
    let openMeteoEmptySearch: JSONObject?
    /// Every place Open-Meteo's geocoder knows, best first (see `openMeteoGazetteer`).
    let openMeteoPlaces: [OpenMeteoPlace]
    /// Recorded answers of Open-Meteo's air quality API (`open-meteo/air-quality/`), one point each.
    let airQualityRecordings: [JSONObject]

    /// Reads every `<slug>.<units>.json` file of `directory` and of `directory/forecast`.
    init(directory: String) throws {
        entries = try Self.read(directory) { file, units, object in
            guard object["name"]?.stringValue != nil else {
                throw CatalogError(file: file, reason: "not an OpenWeatherMap current-weather body")
            }
            return RecordedWeather(file: file, units: units, body: object)
        }
        let forecastDirectory = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("forecast").path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: forecastDirectory, isDirectory: &isDirectory), isDirectory.boolValue {
            forecasts = try Self.read(forecastDirectory) { file, units, object in
                guard object["city"]?["name"]?.stringValue != nil, object["list"]?.arrayValue != nil else {
                    throw CatalogError(file: "forecast/" + file, reason: "not an OpenWeatherMap 5 day / 3 hour forecast body")
                }
                return RecordedForecast(file: "forecast/" + file, units: units, body: object)
            }
        } else {
            forecasts = []
        }
        let geoDirectory = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("geo").path
        var recordedPlaces: [GeoPlace] = []
        if FileManager.default.fileExists(atPath: geoDirectory, isDirectory: &isDirectory), isDirectory.boolValue {
            recordedPlaces = try Self.readPlaces(geoDirectory)
        }

        let meteoDirectory = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("open-meteo")
        openMeteoForecasts = try Self.readJSONObjects(meteoDirectory.appendingPathComponent("forecast").path, as: "open-meteo/forecast/")
            .map { file, body throws(CatalogError) in try OpenMeteoRecording(file: file, body: body) }
        openMeteoSearches = try Self.readJSONObjects(meteoDirectory.appendingPathComponent("search").path, as: "open-meteo/search/")
            .map { file, body throws(CatalogError) in try OpenMeteoSearchRecording(file: file, body: body) }
        airQualityRecordings = try Self.readJSONObjects(
            meteoDirectory.appendingPathComponent("air-quality").path, as: "open-meteo/air-quality/"
        ).map { file, body throws(CatalogError) in
            guard body["latitude"]?.doubleValue != nil, body["longitude"]?.doubleValue != nil, body["current"]?.objectValue != nil else {
                throw CatalogError(file: file, reason: "not an Open-Meteo air quality answer for one point (latitude, longitude, current)")
            }
            return body
        }
        let emptyFile = meteoDirectory.appendingPathComponent("search-empty.json").path
        if FileManager.default.fileExists(atPath: emptyFile) {
            let text = try String(contentsOfFile: emptyFile, encoding: .utf8)
            guard let body = (try? JSONValue.parse(text.utf8))?.objectValue, body["results"] == nil else {
                throw CatalogError(file: "open-meteo/search-empty.json", reason: "not an Open-Meteo geocoding answer without results")
            }
            openMeteoEmptySearch = body
        } else {
            openMeteoEmptySearch = nil
        }

        let populated = openMeteoSearches.flatMap { search in
            search.places.filter { $0.featureCode.hasPrefix("PPL") }.map { $0.geoPlace(file: search.file) }
        }
        places = Self.gazetteer(recorded: recordedPlaces, entries: entries, forecasts: forecasts, openMeteo: populated)
        openMeteoPlaces = Self.openMeteoGazetteer(searches: openMeteoSearches, places: places, entries: entries)
    }

    /// The places Open-Meteo's geocoder knows, best first: those of the recorded answers (in file and
    /// answer order, each id once), then every place of OpenWeatherMap's geocoder that does not come
    /// from them, in its order, as Open-Meteo writes it (`OpenMeteoPlace.init(_:id:)`), its GeoNames
    /// id the id of its recorded weather (OpenWeatherMap's city ids are GeoNames ids), else its
    /// synthetic city id.
    static func openMeteoGazetteer(
        searches: [OpenMeteoSearchRecording], places: [GeoPlace], entries: [RecordedWeather]
    ) -> [OpenMeteoPlace] {
        var known: [OpenMeteoPlace] = []
        for place in searches.flatMap(\.places) where !known.contains(where: { $0.id == place.id }) {
            known.append(place)
        }
        for place in places {
            if case .openMeteo = place.source { continue }
            let recorded = entries.first { entry in
                guard let lat = entry.latitude, let lon = entry.longitude else { return false }
                return place.isNamed(entry.name, country: entry.country)
                    && distanceKilometres(place.latitude, place.longitude, lat, lon) <= 25
            }
            guard let id = place.cityID ?? recorded?.body["id"]?.intValue else { continue }
            known.append(OpenMeteoPlace(place, id: id))
        }
        return known
    }

    /// Every `.json` file of `directory` (sorted by name; none when there is no such directory), each
    /// a JSON object, with its name (prefixed with `prefix`).
    private static func readJSONObjects(_ directory: String, as prefix: String) throws -> [(file: String, body: JSONObject)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted().map { file in
            let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
            let body: JSONValue
            do {
                body = try JSONValue.parse(text.utf8)
            } catch {
                throw CatalogError(file: prefix + file, reason: "invalid JSON: \(error)")
            }
            guard let object = body.objectValue else { throw CatalogError(file: prefix + file, reason: "not a JSON object") }
            return (prefix + file, object)
        }
    }

    /// Every `.json` file of `directory` (sorted by name), each one Geocoding API answer: a JSON
    /// array of places.
    private static func readPlaces(_ directory: String) throws -> [GeoPlace] {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        var places: [GeoPlace] = []
        for file in files {
            let name = "geo/" + file
            let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
            let answer: JSONValue
            do {
                answer = try JSONValue.parse(text.utf8)
            } catch {
                throw CatalogError(file: name, reason: "invalid JSON: \(error)")
            }
            guard let array = answer.arrayValue else {
                throw CatalogError(file: name, reason: "not an OpenWeatherMap Geocoding API answer (an array of places)")
            }
            for (index, element) in array.enumerated() {
                guard let object = element.objectValue, let place = GeoPlace(source: .recorded(file: name), body: object) else {
                    throw CatalogError(
                        file: name, reason: "place \(index + 1) is not a place (name, lat, lon, country; state optional)")
                }
                places.append(place)
            }
        }
        return places
    }

    /// The places the geocoder knows, best first: the `recorded` ones (in file and answer order);
    /// then one for every city of `entries` (its name, `sys.country` and `coord`, no state) unless a
    /// place of that name and country is already there; then `SynthesizedPlaces`, then the populated
    /// places of Open-Meteo's recorded geocoding answers (`openMeteo`), but for those already there
    /// (the same name, country and state). A place without recorded weather (no city of
    /// `entries` with its name and country within 25 km) gets a synthetic city id, which is moved
    /// up by one while it is taken (by a recorded city or forecast, or by an earlier place).
    static func gazetteer(
        recorded: [GeoPlace], entries: [RecordedWeather], forecasts: [RecordedForecast], openMeteo: [GeoPlace] = []
    ) -> [GeoPlace] {
        var places = recorded
        for entry in entries {
            guard !entry.name.isEmpty, let country = entry.country, let lat = entry.latitude, let lon = entry.longitude,
                !places.contains(where: { $0.isNamed(entry.name, country: country) })
            else { continue }
            places.append(
                GeoPlace(
                    source: .catalog(file: entry.file), name: entry.name, latitude: lat, longitude: lon, country: country))
        }
        for place in SynthesizedPlaces.all + openMeteo where !places.contains(where: { $0.isSame(as: place) }) {
            places.append(place)
        }

        var taken = Set(entries.compactMap { $0.body["id"]?.intValue })
        taken.formUnion(forecasts.compactMap { $0.body["city"]?["id"]?.intValue })
        for index in places.indices {
            let place = places[index]
            let recordedWeather = entries.contains { entry in
                guard let lat = entry.latitude, let lon = entry.longitude else { return false }
                return place.isNamed(entry.name, country: entry.country)
                    && distanceKilometres(place.latitude, place.longitude, lat, lon) <= 25
            }
            guard !recordedWeather else { continue }
            var id = GeoPlace.syntheticID(
                name: place.name, state: place.state, country: place.country,
                latitude: place.latitude, longitude: place.longitude)
            while taken.contains(id) {
                id = GeoPlace.syntheticIDBase + (id - GeoPlace.syntheticIDBase + 1) % GeoPlace.syntheticIDCount
            }
            taken.insert(id)
            places[index].cityID = id
        }
        return places
    }

    private static func read<Entry>(
        _ directory: String, _ make: (String, Units, JSONObject) throws -> Entry
    ) throws -> [Entry] {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".json") }
            .sorted()
        var entries: [Entry] = []
        for file in files {
            let parts = file.split(separator: ".")
            guard parts.count == 3, let units = Units(rawValue: String(parts[1])) else {
                throw CatalogError(file: file, reason: "expected a name like <slug>.<standard|metric|imperial>.json")
            }
            let text = try String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)
            let body: JSONValue
            do {
                body = try JSONValue.parse(text.utf8)
            } catch {
                throw CatalogError(file: file, reason: "invalid JSON: \(error)")
            }
            // A body that is not an object is not one of the kind `make` reads either.
            entries.append(try make(file, units, body.objectValue ?? JSONObject()))
        }
        return entries
    }

    /// The recorded city for `query`, preferring a recording in `units` (no conversion needed).
    func city(matching query: CityQuery, preferring units: Units) -> RecordedWeather? {
        let matches = entries.filter { query.matches(name: $0.name, country: $0.country) }
        return matches.first { $0.units == units } ?? matches.first
    }

    /// The recorded forecast of `city` (a recorded weather body: the same city id, else name and
    /// country), preferring a recording in `units`.
    func forecast(for city: RecordedWeather, preferring units: Units) -> RecordedForecast? {
        let id = city.body["id"]?.intValue ?? 0
        let matches = forecasts.filter { forecast in
            let forecastID = forecast.body["city"]?["id"]?.intValue ?? 0
            if id != 0, forecastID != 0 { return id == forecastID }
            return !city.name.isEmpty && normalizeCityName(forecast.name) == normalizeCityName(city.name)
                && forecast.country.map(normalizeCityName) == city.country.map(normalizeCityName)
        }
        return matches.first { $0.units == units } ?? matches.first
    }

    /// The nearest recorded city within `radius` kilometres of the point, if any.
    func city(near latitude: Double, _ longitude: Double, within radius: Double = 25) -> RecordedWeather? {
        nearestCity(latitude, longitude, within: radius)?.city
    }

    private func nearestCity(
        _ latitude: Double, _ longitude: Double, within radius: Double
    ) -> (city: RecordedWeather, km: Double)? {
        entries
            .compactMap { entry -> (RecordedWeather, Double)? in
                guard let lat = entry.latitude, let lon = entry.longitude else { return nil }
                return (entry, distanceKilometres(latitude, longitude, lat, lon))
            }
            .filter { $0.1 <= radius }
            .min { $0.1 < $1.1 }
    }

    /// The nearest place without recorded weather (one with a synthetic city id) within `radius`
    /// kilometres of the point, if any.
    private func nearestPlace(
        _ latitude: Double, _ longitude: Double, within radius: Double
    ) -> (place: GeoPlace, km: Double)? {
        places
            .compactMap { place -> (GeoPlace, Double)? in
                guard place.cityID != nil else { return nil }
                return (place, distanceKilometres(latitude, longitude, place.latitude, place.longitude))
            }
            .filter { $0.1 <= radius }
            .min { $0.1 < $1.1 }
    }

    /// The weather of a point, named after the nearest known place within `radius` kilometres, as
    /// OpenWeatherMap names it: a recorded city's body; else, near a place without recorded weather,
    /// weather synthesized at the point carrying that place's name, country and synthetic id; else
    /// weather synthesized at the point, nameless (`id: 0`, `name: ""`).
    func weather(near latitude: Double, _ longitude: Double, within radius: Double = 25, now: Date = Date()) -> RecordedWeather {
        let city = nearestCity(latitude, longitude, within: radius)
        let place = nearestPlace(latitude, longitude, within: radius)
        if let city, place.map({ city.km <= $0.km }) ?? true { return city.city }
        return SynthesizedWeather.weather(latitude: latitude, longitude: longitude, place: place?.place, now: now)
    }

    /// The weather of a point as Open-Meteo's stand-in answers it (`OpenMeteoPoint`): the nearest
    /// recording that covers it, else made up from the point's weather (`weather(near:)`) and the
    /// nearest known place.
    func openMeteoPoint(_ latitude: Double, _ longitude: Double, now: Date = Date(), shiftTimes: Bool = false)
        -> OpenMeteoPoint
    {
        let recording = openMeteoForecasts.filter { $0.covers(latitude: latitude, longitude: longitude) }.min {
            distanceKilometres(latitude, longitude, $0.latitude, $0.longitude)
                < distanceKilometres(latitude, longitude, $1.latitude, $1.longitude)
        }
        if let recording {
            guard shiftTimes else { return OpenMeteoPoint(recording: recording) }
            // Moved to now, the hours it has no step of made up by the model of the point's weather.
            let model = SynthesizedForecast.Model(weather: weather(near: recording.latitude, recording.longitude, now: now), now: now)
            return OpenMeteoPoint(recording: recording.moved(toHourOf: Int(now.timeIntervalSince1970)), fill: model)
        }
        return OpenMeteoPoint(
            latitude: latitude, longitude: longitude, weather: weather(near: latitude, longitude, now: now),
            place: openMeteoPlace(near: latitude, longitude), now: now)
    }

    /// The recorded air quality answer nearest the point, within
    /// ``OpenMeteoAirQuality/recordingRadius`` degrees of its `latitude` and `longitude`; nil when none is.
    func airQualityRecording(near latitude: Double, _ longitude: Double) -> JSONObject? {
        let radius = OpenMeteoAirQuality.recordingRadius
        return airQualityRecordings.compactMap { body -> (JSONObject, Double)? in
            guard let lat = body["latitude"]?.doubleValue, let lon = body["longitude"]?.doubleValue,
                abs(lat - latitude) <= radius, abs(lon - longitude) <= radius
            else { return nil }
            return (body, distanceKilometres(latitude, longitude, lat, lon))
        }.min { $0.1 < $1.1 }?.0
    }

    /// The nearest place Open-Meteo's geocoder knows within `radius` kilometres of the point, if any.
    func openMeteoPlace(near latitude: Double, _ longitude: Double, within radius: Double = 25) -> OpenMeteoPlace? {
        openMeteoPlaces
            .map { ($0, distanceKilometres(latitude, longitude, $0.latitude, $0.longitude)) }
            .filter { $0.1 <= radius }
            .min { $0.1 < $1.1 }?.0
    }

    /// The places `query` names, best first (`GeoPlace.matches`).
    func places(matching query: CityQuery) -> [GeoPlace] {
        places.filter { $0.matches(query) }
    }
}

/// A data file that cannot be used.
struct CatalogError: Error, CustomStringConvertible {
    let file: String
    let reason: String
    var description: String { "\(file): \(reason)" }
}

/// Great-circle distance (haversine) in kilometres.
func distanceKilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians
    let dLon = (lon2 - lon1) * radians
    let a =
        sin(dLat / 2) * sin(dLat / 2)
        + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
    return 6371.0088 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
}
