import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: what a reload does")
struct ConfigReloadTests {
    private func change(_ edit: (inout DaemonConfig) -> Void) -> ConfigChange {
        var new = DaemonConfig()
        edit(&new)
        return ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("k")))
    }

    @Test("the same configuration changes no key")
    func nothingChanged() {
        let same = change { _ in }
        #expect(same.changedKeys.isEmpty)
        #expect(same.summary.isEmpty)
        #expect(!same.invalidatesWeather)
    }

    @Test(
        "socket.path, owntracks.mqtt_topics, geoclue's keys but its accuracy limit, air-quality.scale, the alert providers and their transport, state.directory, region.debounce, web.listen and every mqtt key need a restart; every other key applies at once"
    )
    func restartKeys() {
        let restart = ConfigSchema.keys.filter { $0.reload == .restart }.map(\.path)
        #expect(
            restart == [
                "socket.path", "owntracks.mqtt_topics", "geoclue.enabled", "geoclue.accuracy", "geoclue.desktop_id",
                "air-quality.scale", "alerts.providers", "alerts.nws_url", "alerts.contact", "alerts.timeout", "region.debounce",
                "state.directory", "web.listen",
            ]
                + ["broker", "client_id", "topic_prefix", "username", "password_file", "keepalive", "homeassistant", "discovery_prefix"].map
            { "mqtt." + $0 })
        let all = change {
            $0.socket.path = "/tmp/other.sock"
            $0.state.directory = "/tmp/state"
            $0.region.debounce = .seconds(1)
            $0.region.around = 2
        }
        #expect(all.needingRestart.map(\.path) == ["socket.path", "region.debounce", "state.directory"])
        #expect(all.changed("region.around"))
        #expect(!all.needingRestart.contains { $0.path == "region.around" })
    }

    @Test(
        "new providers, units, language or base_url make fetched weather wrong; a new budget, timeout or ttl does not",
        arguments: [
            ("weather", #"providers = ["open-meteo"]"#, true), ("weather", #"units = "imperial""#, true),
            ("weather", #"lang = "de""#, true), ("openweathermap", #"base_url = "http://127.0.0.1:1""#, true),
            ("openweathermap", "requests_per_minute = 5", false), ("openweathermap", #"timeout = "1s""#, false),
            ("weather", #"cache_ttl = "0s""#, false), ("weather", #"geocode_ttl = "1d""#, false),
        ])
    func weatherInvalidated(table: String, line: String, invalidates: Bool) throws {
        let new = try parseConfig("[\(table)]\n" + line)
        let change = ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("k")))
        #expect(change.changedKeys.count == 1)
        #expect(change.invalidatesWeather == invalidates)
        #expect(change.summary == [table])
    }

    @Test("a deprecated key changes the key it moved to, and only that one")
    func movedKeyChanges() throws {
        let new = try parseConfig(#"openweathermap.units = "imperial""#)
        let change = ConfigChange(old: DaemonConfig(), new: new, keys: ProviderKeys(openWeatherMap: Secret("k")))
        #expect(change.changedKeys.map(\.path) == ["weather.units"])
        #expect(change.invalidatesWeather)
        #expect(change.summary == ["weather"])
    }

    @Test("the summary names each changed table once, and top-level keys by name, in schema order")
    func summary() {
        let several = change {
            $0.gpsd.port = 1
            $0.cities = ["Oslo"]
            $0.gpsd.host = "::1"
            $0.refresh = .seconds(60)
        }
        #expect(several.summary == ["cities", "refresh", "gpsd"])
        #expect(several.changed(table: "gpsd"))
        #expect(!several.changed(table: "region"))
    }

    @Test("every key of the schema is reported when it changes, and only then")
    func everyKeyDiffers() throws {
        let changed = try parseConfig(ConfigLoader.render(ConfigRenderTests.changed))
        let all = ConfigChange(old: DaemonConfig(), new: changed, keys: ProviderKeys(openWeatherMap: Secret("k")))
        // alerts.providers has one value so far (the NWS): it cannot differ.
        #expect(all.changedKeys.map(\.path) == ConfigSchema.keys.map(\.path).filter { $0 != "alerts.providers" })
    }

    @Test("a restart-needing value is shown without TOML quotes in the log")
    func shownValue() throws {
        let path = try #require(ConfigSchema.keys.first { $0.path == "socket.path" })
        #expect(path.shown(change { $0.socket.path = "/tmp/x.sock" }.new) == "/tmp/x.sock")
        let debounce = try #require(ConfigSchema.keys.first { $0.path == "region.debounce" })
        #expect(debounce.shown(DaemonConfig()) == "250ms")
        let key = try #require(ConfigSchema.keys.first { $0.path == "openweathermap.api_key" })
        #expect(key.shown(DaemonConfig()) == "nothing")
    }
}
