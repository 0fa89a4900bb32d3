import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherCatalog")
struct WeatherCatalogTests {
    static func demo() throws -> WeatherCatalog {
        try WeatherCatalog(directory: TestEnvironment.demoData)
    }

    @Test("every <slug>.<units>.json of the directory is read, other files are ignored")
    func readsDemoData() throws {
        let catalog = try Self.demo()
        #expect(catalog.entries.count == 10)
        #expect(catalog.entries.map(\.file).contains("zocca.standard.json"))
        #expect(catalog.entries.first { $0.file == "tokyo.standard.json" }?.units == .standard)
        #expect(catalog.entries.first { $0.file == "paris.metric.json" }?.units == .metric)
    }

    @Test("a city is found by name case- and whitespace-insensitively")
    func cityByName() throws {
        let catalog = try Self.demo()
        for text in ["New York", "new york", "NEWYORK", "  New   York "] {
            #expect(catalog.city(matching: CityQuery(text), preferring: .metric)?.file == "new-york.standard.json", "\(text)")
        }
    }

    @Test("a city is found without its diacritics or with them")
    func cityByNameWithDiacritics() throws {
        let catalog = try Self.demo()
        #expect(catalog.city(matching: CityQuery("Reykjavík"), preferring: .metric)?.name == "Reykjavik")
    }

    @Test("Name,CC finds the city only in that country")
    func cityWithCountry() throws {
        let catalog = try Self.demo()
        #expect(catalog.city(matching: CityQuery("London,GB"), preferring: .metric)?.name == "London")
        #expect(catalog.city(matching: CityQuery("London,CA"), preferring: .metric) == nil)
    }

    @Test("an unknown city is not found")
    func unknownCity() throws {
        #expect(try Self.demo().city(matching: CityQuery("Atlantis"), preferring: .metric) == nil)
    }

    @Test("a recording in the units asked for is preferred, else the first recording")
    func prefersUnits() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("london.metric.json", #"{"name":"London","main":{"temp":8.94}}"#)
        _ = try directory.write("london.standard.json", #"{"name":"London","main":{"temp":282.09}}"#)
        let catalog = try WeatherCatalog(directory: directory.path)
        #expect(catalog.city(matching: CityQuery("London"), preferring: .standard)?.file == "london.standard.json")
        #expect(catalog.city(matching: CityQuery("London"), preferring: .metric)?.file == "london.metric.json")
        #expect(catalog.city(matching: CityQuery("London"), preferring: .imperial)?.file == "london.metric.json")
    }

    @Test("a point at a city's coordinates finds that city")
    func pointAtCity() throws {
        #expect(try Self.demo().city(near: 44.34, 10.99)?.name == "Zocca")
    }

    @Test("a point within 25 km of a city finds it, one farther does not")
    func radius() throws {
        let catalog = try Self.demo()
        // 0.18° of latitude is about 20 km, 0.25° about 28 km.
        #expect(catalog.city(near: 44.52, 10.99)?.name == "Zocca")
        #expect(catalog.city(near: 44.59, 10.99) == nil)
    }

    @Test("of several cities within the radius the nearest is found")
    func nearest() throws {
        let catalog = try Self.demo()
        // Between London and Paris, nearer London (about 70 km) than Paris (about 250 km).
        #expect(catalog.city(near: 51.0, 0.5, within: 1000)?.name == "London")
        #expect(catalog.city(near: 49.5, 1.8, within: 1000)?.name == "Paris")
    }

    @Test("a file not named <slug>.<units>.json is an error")
    func badFileName() throws {
        for name in ["london.json", "london.kelvin.json", "new.york.metric.json"] {
            let directory = try TemporaryDirectory()
            _ = try directory.write(name, #"{"name":"London"}"#)
            let error = #expect(throws: CatalogError.self) { try WeatherCatalog(directory: directory.path) }
            #expect(error?.file == name)
        }
    }

    @Test("a file that is not JSON is an error naming the file")
    func invalidJSON() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("paris.metric.json", "{not json")
        let error = #expect(throws: CatalogError.self) { try WeatherCatalog(directory: directory.path) }
        #expect(error?.file == "paris.metric.json")
        #expect(error?.reason.hasPrefix("invalid JSON") == true)
    }

    @Test("a JSON body without a name is not a current-weather body")
    func notWeather() throws {
        for text in [#"{"cod":200}"#, #"[1,2]"#, #"{"name":7}"#] {
            let directory = try TemporaryDirectory()
            _ = try directory.write("paris.metric.json", text)
            let error = #expect(throws: CatalogError.self) { try WeatherCatalog(directory: directory.path) }
            #expect(error?.description == "paris.metric.json: not an OpenWeatherMap current-weather body")
        }
    }

    @Test("a missing directory is an error")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: (any Error).self) { try WeatherCatalog(directory: directory.file("nothing")) }
    }
}

@Suite("distanceKilometres")
struct DistanceTests {
    @Test("a point is 0 km from itself")
    func zero() {
        #expect(distanceKilometres(44.34, 10.99, 44.34, 10.99) == 0)
    }

    @Test("London to Paris is about 344 km, either way")
    func londonParis() {
        let there = distanceKilometres(51.5085, -0.1257, 48.8534, 2.3488)
        let back = distanceKilometres(48.8534, 2.3488, 51.5085, -0.1257)
        #expect((340...348).contains(there))
        #expect(abs(there - back) < 1e-9)
    }

    @Test("one degree of longitude on the equator is about 111 km")
    func equatorDegree() {
        #expect(abs(distanceKilometres(0, 0, 0, 1) - 111.195) < 0.01)
    }

    @Test("across the antimeridian the short way round is taken")
    func antimeridian() {
        #expect(distanceKilometres(0, 179.5, 0, -179.5) < 112)
    }
}
