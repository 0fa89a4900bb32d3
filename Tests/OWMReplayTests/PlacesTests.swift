import Foundation
import Testing
@testable import TestSupport
@testable import WeatherCore
@testable import owm_replay

@Suite("WeatherCatalog: places")
struct PlacesTests {
    @Test("the recorded London answer first, then every catalog city once, then the Springfields")
    func order() throws {
        let places = try WeatherCatalogTests.demo().places
        #expect(places.map { "\($0.name),\($0.country)" } == [
            "London,GB", "London,CA", "London,US", "London,US", "London,US",
            "Berlin,DE", "Hamilton,NZ", "Minsk,BY", "New York,US", "Paris,FR", "Reykjavik,IS", "Seoul,KR", "Tokyo,JP",
            "Zocca,IT",
            "Springfield,US", "Springfield,US", "Springfield,US", "Springfield,US", "Springfield,US",
            "Springfield,GB", "Springfield,AU",
        ])
        #expect(places.prefix(5).allSatisfy { $0.source == .recorded(file: "geo/london.json") })
        #expect(places.first { $0.name == "Zocca" }?.source == .catalog(file: "zocca.standard.json"))
        #expect(places.suffix(7).allSatisfy { $0.source == .synthesized })
    }

    @Test("without a geo/ directory the places are the catalog's cities and the Springfields")
    func withoutRecordedPlaces() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("london.metric.json", #"{"name":"London","sys":{"country":"GB"},"coord":{"lon":-0.1257,"lat":51.5085},"id":2643743}"#)
        let catalog = try WeatherCatalog(directory: directory.path)
        #expect(catalog.places.map(\.name) == ["London"] + Array(repeating: "Springfield", count: 7))
        #expect(catalog.places[0].json == .object(["name": "London", "lat": .double(51.5085), "lon": .double(-0.1257), "country": "GB"]))
    }

    @Test("a catalog city with the name and country of a recorded place gives way to it; the same name elsewhere does not")
    func recordedPlaceWins() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("geo"), withIntermediateDirectories: false)
        _ = try directory.write("geo/paris.json", #"[{"name":"Paris","local_names":{"fr":"Paris"},"lat":33.6609,"lon":-95.5555,"country":"US","state":"TX"}]"#)
        _ = try directory.write("paris.metric.json", #"{"name":"Paris","sys":{"country":"FR"},"coord":{"lon":2.3488,"lat":48.8534},"id":2988507}"#)
        let catalog = try WeatherCatalog(directory: directory.path)
        let paris = catalog.places(matching: CityQuery("Paris"))
        #expect(paris.map(\.country) == ["US", "FR"])
        #expect(paris[0].json.serialized == #"{"name":"Paris","local_names":{"fr":"Paris"},"lat":33.6609,"lon":-95.5555,"country":"US","state":"TX"}"#)
    }

    @Test("a geo/ file that is not an array of places is an error naming the file")
    func badGeoFile() throws {
        for text in [#"{"name":"Paris"}"#, #"[{"name":"Paris","lat":1,"lon":2}]"#, #"[{"name":"Paris","lat":"1","lon":2,"country":"FR"}]"#, "[1]", "not json"] {
            let directory = try TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory.file("geo"), withIntermediateDirectories: false)
            _ = try directory.write("geo/paris.json", text)
            let error = #expect(throws: CatalogError.self, "\(text)") { try WeatherCatalog(directory: directory.path) }
            #expect(error?.file == "geo/paris.json")
        }
    }
}
