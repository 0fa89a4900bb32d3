import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("Configuration: API key")
struct ConfigAPIKeyTests {
    /// A config with an inline key and the key file `/keys/owm`.
    static func config(inline: String? = "inline-key") -> DaemonConfig {
        var config = DaemonConfig()
        config.openWeatherMap.apiKeyFile = "/keys/owm"
        config.openWeatherMap.apiKey = inline.map(Secret.init)
        return config
    }

    static let files = ["/creds/owm-api-key": "credential-key\n", "/keys/owm": "  file-key \n"]

    static func resolve(
        _ config: DaemonConfig = config(),
        environment: [String: String] = ["OWM_API_KEY": "env-key", "CREDENTIALS_DIRECTORY": "/creds"],
        files: [String: String] = files
    ) throws(ConfigError) -> String {
        try ConfigLoader.resolveAPIKey(config, file: "w.toml", environment: environment, readFile: { files[$0] })
            .revealed
    }

    @Test("the environment variable OWM_API_KEY comes first")
    func environmentFirst() throws {
        #expect(try Self.resolve() == "env-key")
    }

    @Test("the systemd credential comes second")
    func credentialSecond() throws {
        #expect(try Self.resolve(environment: ["CREDENTIALS_DIRECTORY": "/creds"]) == "credential-key")
        #expect(try Self.resolve(environment: ["CREDENTIALS_DIRECTORY": "/creds/"]) == "credential-key")
    }

    @Test("the api_key_file comes third, trimmed")
    func keyFileThird() throws {
        #expect(try Self.resolve(environment: [:]) == "file-key")
        #expect(try Self.resolve(environment: ["CREDENTIALS_DIRECTORY": "/nowhere"]) == "file-key")
    }

    @Test("the inline api_key comes last")
    func inlineLast() throws {
        #expect(try Self.resolve(environment: [:], files: [:]) == "inline-key")
    }

    @Test("empty and blank values count as not found")
    func emptyValuesSkipped() throws {
        let key = try Self.resolve(
            environment: ["OWM_API_KEY": " \n", "CREDENTIALS_DIRECTORY": "/creds"],
            files: ["/creds/owm-api-key": "", "/keys/owm": "\n\n"])
        #expect(key == "inline-key")
        #expect(try Self.resolve(environment: ["OWM_API_KEY": "", "CREDENTIALS_DIRECTORY": ""]) == "file-key")
    }

    @Test("no key at all is one problem that says how to provide one")
    func noKeyIsAProblem() {
        #expect {
            _ = try Self.resolve(Self.config(inline: nil), environment: [:], files: [:])
        } throws: { error in
            guard let error = error as? ConfigError, error.problems.count == 1 else { return false }
            let text = error.description
            return text.hasPrefix("w.toml: ") && text.contains("OWM_API_KEY")
                && text.contains("LoadCredential=owm-api-key:") && text.contains("api_key_file")
                && text.contains("/keys/owm") && text.contains("openweathermap.api_key")
        }
    }

    @Test("a resolved key never prints itself")
    func secretRedacted() throws {
        let key = try ConfigLoader.resolveAPIKey(Self.config(), file: "w.toml", environment: [:], readFile: { _ in nil })
        #expect("\(key)" == "<redacted>")
        #expect(String(describing: key) == "<redacted>")
    }

    @Test("the key found says where it was found, for --check-config")
    func origin() throws {
        func origin(_ environment: [String: String], _ files: [String: String]) throws -> String {
            try #require(ConfigLoader.findAPIKey(Self.config(), file: "w.toml", environment: environment, readFile: { files[$0] }))
                .origin.description
        }
        let all = ["OWM_API_KEY": "env-key", "CREDENTIALS_DIRECTORY": "/creds"]
        #expect(try origin(all, Self.files) == "from the environment variable OWM_API_KEY")
        #expect(try origin(["CREDENTIALS_DIRECTORY": "/creds"], Self.files) == "from the credential /creds/owm-api-key")
        #expect(try origin([:], Self.files) == "from the file /keys/owm (api_key_file)")
        #expect(try origin([:], [:]) == "set in w.toml")
        let found = try #require(ConfigLoader.findAPIKey(Self.config(), file: "w.toml", environment: [:], readFile: { _ in nil }))
        #expect(ConfigLoader.findAPIKey(Self.config(inline: nil), file: "w.toml", environment: [:], readFile: { _ in nil }) == nil)
        #expect(found.key.revealed == "inline-key" && found.origin == .file("w.toml"))
    }
}
