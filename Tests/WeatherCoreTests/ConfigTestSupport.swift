import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

/// The file name used in messages by the configuration tests.
let configTestFile = "test.toml"

/// Parses `text`, expecting success: the configuration.
func parseConfig(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonConfig {
    try readConfig(text, sourceLocation: sourceLocation).config
}

/// Parses `text`, expecting success: the configuration with its warnings and origins.
func readConfig(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> LoadedConfig {
    do {
        return try ConfigLoader.parse(text, file: configTestFile)
    } catch {
        Issue.record("unexpected configuration error:\n\(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// The warning lines of `text`, expecting it to parse.
func configWarningLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    try readConfig(text, sourceLocation: sourceLocation).warnings.map(\.description)
}

/// Parses `text`, expecting a `ConfigError`, and returns its problems (empty, with an issue, when it parses).
func configProblems(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [ConfigProblem] {
    do {
        let config = try ConfigLoader.parse(text, file: configTestFile)
        Issue.record("expected a configuration error, parsed \(config)", sourceLocation: sourceLocation)
        return []
    } catch {
        return error.problems
    }
}

/// The problem lines of `text`, expecting a `ConfigError`.
func configProblemLines(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    configProblems(text, sourceLocation: sourceLocation).map(\.description)
}
