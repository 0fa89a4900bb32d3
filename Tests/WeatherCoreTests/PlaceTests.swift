import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Places: names, Place objects and the stored cache")
struct PlaceTests {
    @Test(
        "a name splits into name, state and country at its commas",
        arguments: [
            ("London", PlaceQuery(name: "London")),
            (" Seoul , KR ", PlaceQuery(name: "Seoul", country: "KR")),
            ("Springfield, MO, US", PlaceQuery(name: "Springfield", state: "MO", country: "US")),
            ("New   York,US", PlaceQuery(name: "New York", country: "US")),
            ("Washington, D.C., DC, US", PlaceQuery(name: "Washington, D.C.", state: "DC", country: "US")),
            ("Paris,", PlaceQuery(name: "Paris")),
        ])
    func placeQuery(_ text: String, _ expected: PlaceQuery) {
        #expect(PlaceQuery(text) == expected)
    }

    @Test("two geocoders' places merged: the first's in order, then the other's that are not the same place (name, country, within 0.1°)")
    func merged() {
        func place(_ name: String, _ state: String?, _ country: String?, _ lat: Double, _ lon: Double, _ provider: String) -> Place {
            Place(name: name, state: state, country: country, coordinate: Coordinate(lat: lat, lon: lon), provider: provider)
        }
        let owm = [
            place("Springfield", "Illinois", "US", 39.7990, -89.6440, "openweathermap"),
            place("Springfield", "Missouri", "US", 37.2082, -93.2923, "openweathermap"),
        ]
        let om = [
            // Illinois again: another geocoder's coordinates and state spelling, the same place.
            place("Springfield", "IL", "US", 39.80172, -89.64371, "open-meteo"),
            place("Springfield", "Scotland", "GB", 56.0833, -3.2, "open-meteo"),
            // Missouri's name in another case, nearly 0.1° off in both: the same.
            place("SPRINGFIELD", "Missouri", "us", 37.2982, -93.1983, "open-meteo"),
            // Just over 0.1° off: another place.
            place("Springfield", "Missouri", "US", 37.0981, -93.2923, "open-meteo"),
            // The same spot, another country or name: another place.
            place("Springfield", nil, "CA", 39.7990, -89.6440, "open-meteo"),
            place("Springfield Lakes", "Queensland", "AU", 39.7990, -89.6440, "open-meteo"),
        ]
        let all = Place.merged(owm, om, limit: 10)
        #expect(
            all.map { "\($0.label) \($0.provider)" } == [
                "Springfield, Illinois, US openweathermap", "Springfield, Missouri, US openweathermap",
                "Springfield, Scotland, GB open-meteo", "Springfield, Missouri, US open-meteo", "Springfield, CA open-meteo",
                "Springfield Lakes, Queensland, AU open-meteo",
            ])
        #expect(Place.merged(owm, om, limit: 3) == Array(all.prefix(3)))
        #expect(Place.merged(owm, om, limit: 1) == [owm[0]])
        #expect(Place.merged([], om + om, limit: 10) == om, "a geocoder's own duplicates go too")
        #expect(Place.merged(owm, [], limit: 10) == owm)
        #expect(!owm[0].isSame(as: place("Springfield", "Illinois", nil, 39.7990, -89.6440, "open-meteo")))
    }

    @Test("a PlaceQuery writes itself as OpenWeatherMap's q: Name,ST,CC without the absent parts")
    func placeQueryText() {
        #expect(PlaceQuery("Springfield , MO , US").description == "Springfield,MO,US")
        #expect(PlaceQuery("Seoul, KR").description == "Seoul,KR")
        #expect(PlaceQuery("Oslo").description == "Oslo")
    }

    @Test("a Place is the protocol's {name, state, country, lat, lon, provider}, and reads back")
    func placeJSON() throws {
        let place = Place(
            name: "Springfield", state: "Illinois", country: "US", coordinate: Coordinate(lat: 39.8, lon: -89.64),
            provider: "openweathermap")
        #expect(
            place.json.serialized
                == #"{"name":"Springfield","state":"Illinois","country":"US","lat":39.8,"lon":-89.64,"provider":"openweathermap"}"#)
        #expect(Place(json: place.json) == place)
        #expect(place.label == "Springfield, Illinois, US")
    }

    @Test("a Place from a client needs a name and a valid position; state, country and provider may be null or absent")
    func placeFromClient() throws {
        func parse(_ text: String) throws -> Place? { Place(json: try JSONValue.parse(Array(text.utf8))) }
        #expect(
            try parse(#"{"name":"Zocca","lat":44.34,"lon":10.99}"#)
                == Place(name: "Zocca", coordinate: Coordinate(lat: 44.34, lon: 10.99), provider: ""))
        #expect(try parse(#"{"name":"Zocca","state":null,"country":"IT","lat":44.34,"lon":10.99,"provider":null}"#)?.country == "IT")
        for bad in [
            #"{"lat":1,"lon":2}"#, #"{"name":"","lat":1,"lon":2}"#, #"{"name":"X","lat":91,"lon":2}"#,
            #"{"name":"X","lat":1,"lon":181}"#, #"{"name":"X","lat":"1","lon":2}"#, #"{"name":"X","lat":1,"lon":2,"state":3}"#,
            #"["X",1,2]"#,
        ] {
            #expect(try parse(bad) == nil, "\(bad)")
        }
    }

    @Test("stored entries read back; a document that is not one reads as nil")
    func storedEntries() throws {
        let entries = [
            PlaceCacheEntry(
                name: "london",
                places: [
                    Place(
                        name: "London", country: "GB", coordinate: Coordinate(lat: 51.5085, lon: -0.1257), provider: "openweathermap",
                        geonamesID: 2_643_743)
                ],
                expires: Date(timeIntervalSince1970: 1_800_000_000))
        ]
        let json = PlaceCacheEntry.json(entries)
        #expect(PlaceCacheEntry.entries(json: json) == entries)
        #expect(PlaceCacheEntry.entries(json: try JSONValue.parse(Array(#"{"version":2,"names":[]}"#.utf8))) == nil)
        #expect(PlaceCacheEntry.entries(json: try JSONValue.parse(Array(#"{"version":1,"names":[{"name":"x"}]}"#.utf8))) == nil)
    }
}

/// A PlaceStore in memory, counting the entries it was given.
final class MemoryPlaceStore: PlaceStore, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [PlaceCacheEntry]
    private(set) var saves = 0

    init(_ entries: [PlaceCacheEntry] = []) { self.entries = entries }

    var kept: [PlaceCacheEntry] { lock.withLock { entries } }

    func load() -> [PlaceCacheEntry] { lock.withLock { entries } }

    func keep(_ entry: PlaceCacheEntry) {
        lock.withLock {
            entries.removeAll { $0.name == entry.name }
            entries.append(entry)
            saves += 1
        }
    }
}

@Suite("LookupService: places")
struct LookupPlacesTests {
    static let wallStart = Date(timeIntervalSince1970: 1_795_000_000)

    private func service(
        _ upstream: ScriptedUpstream, store: MemoryPlaceStore, clock: ManualClock = ManualClock(), cacheTTL: Duration = .seconds(600)
    ) -> LookupService {
        LookupService(
            upstream: upstream, limits: .init(cacheTTL: cacheTTL, requestsPerMinute: 100), placeStore: store,
            clock: DaemonClock(clock), wallClock: { Self.wallStart }, logger: silentLogger)
    }

    private static let springfields = [
        Place(
            name: "Springfield", state: "Illinois", country: "US", coordinate: Coordinate(lat: 39.8, lon: -89.64),
            provider: "openweathermap"),
        Place(
            name: "Springfield", state: "Missouri", country: "US", coordinate: Coordinate(lat: 37.21, lon: -93.29),
            provider: "openweathermap"),
        Place(
            name: "Springfield", state: "Oregon", country: "US", coordinate: Coordinate(lat: 44.05, lon: -123.02),
            provider: "openweathermap"),
    ]

    @Test("a name is looked up at its first place, named after it, with the other places counted")
    func firstPlace() async throws {
        let upstream = ScriptedUpstream()
        upstream.scriptPlaces("Springfield", Self.springfields)
        upstream.script(
            .coordinate(Self.springfields[0].coordinate),
            .success(sampleObservation("Nearest Station", id: 4_250_542, lat: 39.8, lon: -89.64)))
        let lookups = service(upstream, store: MemoryPlaceStore())
        let observation = try await lookups.lookup(.city("Springfield"))
        #expect(observation.name == "Springfield" && observation.state == "Illinois" && observation.country == "US")
        #expect(observation.alternatives == 2)
        #expect(observation.featureID == "owm:4250542", "the id stays the one OpenWeatherMap answers")
        #expect(upstream.placeFetches == ["Springfield"])
        #expect(try await lookups.places(named: " springfield ", limit: 2) == Array(Self.springfields.prefix(2)))
        #expect(upstream.placeFetches.count == 1, "the places of a name are cached and shared")
    }

    @Test("a place given is looked up as given, without geocoding")
    func givenPlace() async throws {
        let upstream = ScriptedUpstream()
        let missouri = Self.springfields[1]
        upstream.script(.coordinate(missouri.coordinate), .success(sampleObservation("Station", id: 7, lat: 37.21, lon: -93.29)))
        let observation = try await service(upstream, store: MemoryPlaceStore()).lookup(.place(missouri))
        #expect(observation.name == "Springfield" && observation.state == "Missouri" && observation.alternatives == 0)
        #expect(upstream.placeFetches.isEmpty)
    }

    @Test("found names are kept in the store with their expiry; a new service loads them and asks no geocoder")
    func keptAcrossRestarts() async throws {
        let upstream = ScriptedUpstream()
        let store = MemoryPlaceStore()
        upstream.scriptPlaces("Springfield", Self.springfields)
        upstream.script(.coordinate(Self.springfields[0].coordinate), .success(sampleObservation("S", id: 1, lat: 39.8, lon: -89.64)))
        _ = try await service(upstream, store: store).lookup(.city("Springfield"))
        #expect(store.kept.map(\.name) == ["springfield"])
        #expect(store.kept.first?.expires == Self.wallStart.addingTimeInterval(30 * 86400))

        let restarted = service(upstream, store: store)
        _ = try await restarted.lookup(.city("SPRINGFIELD"))
        #expect(upstream.placeFetches.count == 1)
    }

    @Test("unknown names are not kept in the store; expired entries are not loaded")
    func notKept() async throws {
        let upstream = ScriptedUpstream()
        let store = MemoryPlaceStore([
            PlaceCacheEntry(name: "springfield", places: Self.springfields, expires: Self.wallStart.addingTimeInterval(-1))
        ])
        let lookups = service(upstream, store: store)
        await #expect(throws: WeatherError.self) { try await lookups.lookup(.city("Atlantis")) }
        #expect(store.saves == 0)
        #expect(try await lookups.places(named: "Springfield") == [])
        #expect(upstream.placeFetches == ["Atlantis", "Springfield"], "the expired entry was not used")
    }

    @Test("a geocoder failure is the lookup's error, not cached")
    func geocoderFailure() async throws {
        let upstream = ScriptedUpstream()
        upstream.failPlaces("Oslo", with: .unavailable("HTTP 503"))
        let lookups = service(upstream, store: MemoryPlaceStore())
        for _ in 0..<2 {
            do {
                _ = try await lookups.lookup(.city("Oslo"))
                Issue.record("expected upstream_unavailable")
            } catch let error as WeatherError {
                #expect(error.code == .upstreamUnavailable)
            }
        }
        #expect(upstream.placeFetches.count == 2)
        #expect(upstream.fetchCount == 0)
    }
}
