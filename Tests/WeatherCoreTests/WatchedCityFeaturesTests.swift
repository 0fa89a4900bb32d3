import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("SearchEngine: the watched cities' features (the metrics' and the forecasts' source)")
struct WatchedCityFeaturesTests {
    @Test("each watched city with its latest good feature, in list order; a failed refresh keeps it, stale; a removed city is gone")
    func watchedCityFeatures() async throws {
        let h = try EngineHarness(cities: ["London,GB", "Zocca,IT"])
        #expect(await h.engine.watchedCityFeatures.isEmpty, "nothing looked up yet")
        try h.scriptFixtures()
        await h.engine.refreshCities()
        let before = await h.engine.watchedCityFeatures
        #expect(before.map(\.city) == ["London,GB", "Zocca,IT"])
        #expect(before.allSatisfy { !$0.feature.stale })

        h.upstream.fail("London,GB", with: .unavailable("timed out"))
        await h.engine.refreshCities()
        let after = await h.engine.watchedCityFeatures
        #expect(after[0].feature.stale && after[0].feature.observation == before[0].feature.observation)

        _ = try await h.engine.removeCity("Zocca,IT")
        #expect(await h.engine.watchedCityFeatures.map(\.city) == ["London,GB"])
        h.checkInvariants()
    }
}
