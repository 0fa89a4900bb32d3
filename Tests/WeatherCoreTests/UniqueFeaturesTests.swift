import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Overlays: each feature once")
struct UniqueFeaturesTests {
    /// What `uniqueByID` must give, written the plain way.
    private static func expected(_ features: [WeatherFeature], excluding excluded: [WeatherFeature]) -> [String] {
        var seen = Set(excluded.map(\.id))
        return features.filter { seen.insert($0.id).inserted }.map(\.id)
    }

    @Test(
        "the first of each id is kept, in order, and none of the excluded: looked through for a few, hashed for many",
        arguments: [0, 1, 5, 16, 33, 80])
    func uniqueByID(count: Int) throws {
        let base = WeatherFeature(observation: try Fixture.londonObservation(), source: .city)
        var random = SplitMix64(seed: UInt64(count) + 1)
        for _ in 0..<50 {
            let features = (0..<count).map { index -> WeatherFeature in
                var feature = base
                feature.id = "f\(Int.random(in: 0...(count / 2 + 1), using: &random))"
                feature.coordinate = Coordinate(lat: Double(index), lon: 0)  // its position
                return feature
            }
            let excluded = (0..<Int.random(in: 0...3, using: &random)).map { _ -> WeatherFeature in
                var feature = base
                feature.id = "f\(Int.random(in: 0...(count / 2 + 1), using: &random))"
                return feature
            }
            let unique = OverlayMembership.uniqueByID(features, excluding: excluded)
            #expect(unique.map(\.id) == Self.expected(features, excluding: excluded))
            // The first of each id: its position among the features is kept.
            #expect(unique.map(\.coordinate) == unique.map { kept in features.first { $0.id == kept.id }!.coordinate })
        }
    }
}
