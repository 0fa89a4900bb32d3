import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherCatalog: places")
struct PlacesTests {
    @Test("the recorded London answer first, then every catalog city once, then the Springfields, then Open-Meteo's Enschede")
    func order() throws {
        let places = try WeatherCatalogTests.demo().places
        #expect(
            places.map { "\($0.name),\($0.country)" } == [
                "London,GB", "London,CA", "London,US", "London,US", "London,US", "Norman,US",
                "Berlin,DE", "Hamilton,NZ", "Minsk,BY", "New York,US", "Paris,FR", "Reykjavik,IS", "Seoul,KR", "Tokyo,JP",
                "Zocca,IT",
                "Springfield,US", "Springfield,US", "Springfield,US", "Springfield,US", "Springfield,US",
                "Springfield,GB", "Springfield,AU",
                "Enschede,NL",
            ])
        #expect(places.prefix(5).allSatisfy { $0.source == .recorded(file: "geo/london.json") })
        #expect(places.first { $0.name == "Zocca" }?.source == .catalog(file: "zocca.standard.json"))
        #expect(places.suffix(8).prefix(7).allSatisfy { $0.source == .synthesized })
        // Of Open-Meteo's recorded answer for Enschede, the town (not its airport), its province the state.
        #expect(places.last?.source == .openMeteo(file: "open-meteo/search/enschede.json"))
        #expect(
            places.last?.json
                == .object([
                    "name": "Enschede", "lat": .double(52.2183), "lon": .double(6.8958), "country": "NL", "state": "Overijssel",
                ]))
    }

    @Test("places with recorded weather have no synthetic id; the others each a distinct one above every real id")
    func ids() throws {
        let catalog = try WeatherCatalogTests.demo()
        let withWeather = catalog.places.filter { $0.cityID == nil }
        #expect(
            withWeather.map(\.name) == [
                "London", "Berlin", "Hamilton", "Minsk", "New York", "Paris", "Reykjavik", "Seoul", "Tokyo", "Zocca",
            ])
        #expect(withWeather.first?.country == "GB")
        let ids = catalog.places.compactMap(\.cityID)
        #expect(ids.count == 13)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { (900_000_000...999_999_999).contains($0) })
        let recorded = Set(catalog.entries.compactMap { $0.body["id"]?.intValue })
        #expect(recorded.isDisjoint(with: ids))
    }

    @Test("a synthetic id is a function of the place alone: the same in every catalog, another for another place")
    func stableID() throws {
        let missouri = try #require(try WeatherCatalogTests.demo().places.first { $0.state == "Missouri" })
        #expect(
            missouri.cityID
                == GeoPlace.syntheticID(
                    name: "Springfield", state: "Missouri", country: "US", latitude: 37.2082, longitude: -93.2923))
        #expect(
            GeoPlace.syntheticID(name: "springfield", state: "MISSOURI", country: "us", latitude: 37.2082, longitude: -93.2923)
                == missouri.cityID, "case does not count")
        #expect(
            GeoPlace.syntheticID(name: "Springfield", state: "Ohio", country: "US", latitude: 37.2082, longitude: -93.2923)
                != missouri.cityID)
        let directory = try TemporaryDirectory()
        #expect(try WeatherCatalog(directory: directory.path).places.first { $0.state == "Missouri" }?.cityID == missouri.cityID)
    }

    @Test("an id already taken by a recorded city or an earlier place moves up by one")
    func idCollision() throws {
        let place = GeoPlace(source: .synthesized, name: "Nowhere", latitude: 10, longitude: 20, country: "ZZ")
        let id = GeoPlace.syntheticID(name: "Nowhere", state: nil, country: "ZZ", latitude: 10, longitude: 20)
        let city = RecordedWeather(
            file: "elsewhere.metric.json", units: .metric,
            body: [
                "coord": .object(["lon": .integer(0), "lat": .integer(0)]), "sys": .object(["country": "XX"]),
                "id": .integer(Int64(id)), "name": "Elsewhere",
            ])
        let places = WeatherCatalog.gazetteer(recorded: [place, place], entries: [city], forecasts: [])
        #expect(places[0].cityID == id + 1)
        #expect(places[1].cityID == id + 2)
    }

    @Test("without a geo/ directory the places are the catalog's cities and the Springfields")
    func withoutRecordedPlaces() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            "london.metric.json", #"{"name":"London","sys":{"country":"GB"},"coord":{"lon":-0.1257,"lat":51.5085},"id":2643743}"#)
        let catalog = try WeatherCatalog(directory: directory.path)
        #expect(catalog.places.map(\.name) == ["London"] + Array(repeating: "Springfield", count: 7))
        #expect(catalog.places[0].json == .object(["name": "London", "lat": .double(51.5085), "lon": .double(-0.1257), "country": "GB"]))
        #expect(catalog.places[0].cityID == nil)
    }

    @Test("a catalog city with the name and country of a recorded place gives way to it; the same name elsewhere does not")
    func recordedPlaceWins() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("geo"), withIntermediateDirectories: false)
        _ = try directory.write(
            "geo/paris.json", #"[{"name":"Paris","local_names":{"fr":"Paris"},"lat":33.6609,"lon":-95.5555,"country":"US","state":"TX"}]"#)
        _ = try directory.write(
            "paris.metric.json", #"{"name":"Paris","sys":{"country":"FR"},"coord":{"lon":2.3488,"lat":48.8534},"id":2988507}"#)
        let catalog = try WeatherCatalog(directory: directory.path)
        let paris = catalog.places(matching: CityQuery("Paris"))
        #expect(paris.map(\.country) == ["US", "FR"])
        #expect(paris[0].cityID != nil && paris[1].cityID == nil)
        #expect(
            paris[0].json.serialized
                == #"{"name":"Paris","local_names":{"fr":"Paris"},"lat":33.6609,"lon":-95.5555,"country":"US","state":"TX"}"#)
    }

    @Test("a geo/ file that is not an array of places is an error naming the file")
    func badGeoFile() throws {
        for text in [
            #"{"name":"Paris"}"#, #"[{"name":"Paris","lat":1,"lon":2}]"#, #"[{"name":"Paris","lat":"1","lon":2,"country":"FR"}]"#, "[1]",
            "not json",
        ] {
            let directory = try TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory.file("geo"), withIntermediateDirectories: false)
            _ = try directory.write("geo/paris.json", text)
            let error = #expect(throws: CatalogError.self, "\(text)") { try WeatherCatalog(directory: directory.path) }
            #expect(error?.file == "geo/paris.json")
        }
    }
}

@Suite("WeatherEndpoint: points named after places")
struct PlaceWeatherTests {
    typealias E = WeatherEndpointTests

    @Test("a point near a Springfield gets synthesized weather with its name, country and stable id, at the point")
    func nearSpringfield() async throws {
        let endpoint = try E.endpoint()
        let body = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=37.21&lon=-93.29&units=metric"))
        #expect(body["name"] == "Springfield")
        #expect(body["sys"]?["country"] == "US")
        #expect(body["sys"]?.objectValue?.keys.first == "country")
        #expect(body["coord"] == .object(["lon": .double(-93.29), "lat": .double(37.21)]))
        let id = try #require(body["id"]?.intValue)
        let missouri = try #require(endpoint.catalog.places.first { $0.state == "Missouri" })
        #expect(id == missouri.cityID)
        #expect(id > 0 && ![2_643_743, 2_988_507, 3_163_858].contains(id))

        // Another point near the same place: the same id; near another Springfield: another.
        let nearby = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=37.3&lon=-93.2"))
        #expect(nearby["id"]?.intValue == id && nearby["name"] == "Springfield")
        #expect(nearby["coord"]?["lat"] == .double(37.3))
        let illinois = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=39.8&lon=-89.64"))
        #expect(illinois["name"] == "Springfield" && illinois["id"]?.intValue != id)
        // And in a fresh server.
        let again = try E.json(await E.get(try E.endpoint(), "/data/2.5/weather?lat=37.21&lon=-93.29&units=imperial"))
        #expect(again["id"]?.intValue == id)
    }

    @Test("near London, Ontario is London, CA; near London, England the recorded London")
    func londons() async throws {
        let endpoint = try E.endpoint()
        let ontario = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=42.98&lon=-81.23"))
        #expect(ontario["name"] == "London" && ontario["sys"]?["country"] == "CA")
        #expect(ontario["id"]?.intValue != 2_643_743 && ontario["id"]?.intValue != 0)
        let kentucky = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=37.13&lon=-84.08"))
        #expect(kentucky["name"] == "London" && kentucky["sys"]?["country"] == "US")
        #expect(kentucky["id"]?.intValue != ontario["id"]?.intValue)
        let england = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=51.51&lon=-0.13"))
        #expect(england["id"] == .integer(2_643_743))
        #expect(england["coord"]?["lat"] == .double(51.5085), "the recorded body, as before")
    }

    @Test("the forecast of a point near a place names it in its city block")
    func forecast() async throws {
        let endpoint = try E.endpoint()
        let weather = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=39.8&lon=-89.64"))
        let forecast = try E.json(await E.get(endpoint, "/data/2.5/forecast?lat=39.8&lon=-89.64&units=metric"))
        let city = try #require(forecast["city"])
        #expect(city["name"] == "Springfield" && city["country"] == "US")
        #expect(city["id"] == weather["id"])
        #expect(city["coord"] == .object(["lat": .double(39.8), "lon": .double(-89.64)]))
        #expect(forecast["list"]?.arrayValue?.count == 40)
    }

    @Test("a point near nothing is still nameless: id 0, name empty, no country")
    func nearNothing() async throws {
        let endpoint = try E.endpoint()
        let body = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=-33.5&lon=-120.25"))
        #expect(body["id"] == .integer(0) && body["name"] == "")
        #expect(body["sys"]?["country"] == nil)
        // 40 km from Springfield, Missouri: too far.
        let outside = try E.json(await E.get(endpoint, "/data/2.5/weather?lat=37.57&lon=-93.29"))
        #expect(outside["id"] == .integer(0) && outside["name"] == "")
        let forecast = try E.json(await E.get(endpoint, "/data/2.5/forecast?lat=-33.5&lon=-120.25"))
        #expect(forecast["city"]?["id"] == .integer(0) && forecast["city"]?["name"] == "")
    }

    @Test("a rule or fault naming a place covers the points near it")
    func rulesByPlace() async throws {
        let endpoint = try E.endpoint(failures: ["Springfield,US=503"])
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=44.05&lon=-123.02").status == 503)
        #expect(await E.get(endpoint, "/data/2.5/forecast?lat=42.1&lon=-72.59").status == 503)
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=-27.65&lon=152.92").status == 200, "Springfield, AU")
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=-33.5&lon=-120.25").status == 200)
        _ = await E.get(endpoint, "/_faults?city=London,CA&fault=429", method: "POST")
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=42.98&lon=-81.23").status == 429)
        #expect(await E.get(endpoint, "/data/2.5/weather?lat=51.51&lon=-0.13").status == 200)
    }
}
