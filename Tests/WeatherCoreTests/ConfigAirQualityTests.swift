import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: [air-quality]")
struct ConfigAirQualityTests {
    @Test("every key is optional, with the contract's default")
    func defaults() throws {
        let table = try parseConfig("").airQuality
        #expect(table == AirQualityConfig())
        #expect(table.enabled && table.baseURL == "https://air-quality-api.open-meteo.com")
        #expect(table.scale == .european && table.timeout == .seconds(5))
        #expect(try parseConfig("[air-quality]").airQuality == AirQualityConfig())
    }

    @Test("every key is read, and the lookups' limits and the client's endpoint follow them")
    func allKeys() throws {
        let config = try parseConfig(
            #"""
            [air-quality]
            enabled = false
            base_url = "http://127.0.0.1:9000/"
            scale = "us"
            timeout = "2s"
            """#)
        #expect(config.airQuality == AirQualityConfig(enabled: false, baseURL: "http://127.0.0.1:9000/", scale: .us, timeout: .seconds(2)))
        let limits = LookupService.Limits(config, keys: ProviderKeys())
        #expect(!limits.airQuality && limits.airQualityScale == .us)
        let endpoint = OpenMeteoAirQualityClient.Endpoint(config, apiKey: nil)
        #expect(endpoint.host == "http://127.0.0.1:9000" && endpoint.timeout == .seconds(2))
    }

    @Test("a wrong value says what is allowed and what was found; an unknown key is an error")
    func messages() {
        #expect(
            configProblemLines(#"air-quality.scale = "uk""#)
                == [#"test.toml:1:1: air-quality.scale: expected one of "european", "us", found "uk""#])
        #expect(
            configProblemLines("air-quality.enabled = 1") == [
                "test.toml:1:1: air-quality.enabled: expected a boolean (true or false), found an integer"
            ])
        #expect(configProblemLines(#"air-quality.timeout = "0s""#).count == 1)
        #expect(configProblemLines(#"air-quality.base_url = "ftp://example""#).count == 1)
        #expect(configProblemLines("air-quality.colour = 1").first?.hasPrefix("test.toml:1:1: air-quality.colour: ") == true)
    }
}
