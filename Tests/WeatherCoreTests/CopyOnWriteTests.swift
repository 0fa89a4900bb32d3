import Foundation
import Testing

@testable import WeatherCore

@Suite("CopyOnWrite: the large models' fields on the heap, still values")
struct CopyOnWriteTests {
    static let observation = WeatherObservation(
        cityID: 2_643_743, name: "London", country: "GB", coordinate: Coordinate(lat: 51.51, lon: -0.13),
        temperature: 11.5, condition: "Clouds", units: .metric)

    @Test("a copy shares the block until one of them is changed; the change is the changed one's alone")
    func copyIsShared() {
        var box = CopyOnWrite([1, 2, 3])
        let copy = box
        #expect(box.isSame(as: copy))
        box.modify { $0.append(4) }
        #expect(!box.isSame(as: copy))
        #expect(box.value == [1, 2, 3, 4])
        #expect(copy.value == [1, 2, 3])
    }

    @Test("values in two blocks are equal when their fields are, and hash alike")
    func equalityIsByValue() {
        let one = CopyOnWrite(["k": 1])
        let other = CopyOnWrite(["k": 1])
        #expect(!one.isSame(as: other))
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(one != CopyOnWrite(["k": 2]))
    }

    @Test("an observation, a feature and a state keep value semantics through their setters")
    func modelsAreValues() {
        var moved = Self.observation
        moved.name = "Londinium"
        moved.temperature = nil
        #expect(Self.observation.name == "London" && Self.observation.temperature == 11.5)
        #expect(moved.name == "Londinium" && moved.temperature == nil && moved.cityID == 2_643_743)
        #expect(moved != Self.observation)
        moved.name = "London"
        moved.temperature = 11.5
        #expect(moved == Self.observation)
        #expect(moved.hashValue == Self.observation.hashValue)

        let feature = WeatherFeature(observation: Self.observation, source: .text)
        var stale = feature
        stale.stale = true
        stale.observation.temperature = 3
        #expect(!feature.stale && feature.observation.temperature == 11.5)
        #expect(stale.stale && stale.observation.temperature == 3 && stale.id == "owm:2643743")

        let state = DaemonState(
            pending: 0, phase: .populated, input: nil, gps: GPSStatus(enabled: false), updatedAt: Date(timeIntervalSince1970: 0))
        var searching = state
        searching.pending = 1
        searching.phase = .loading
        #expect(state.pending == 0 && state.phase == .populated)
        #expect(searching.running && !state.running)
    }
}
