import Testing
import WeatherCore

@testable import owm_replay

@Suite("FailRule")
struct FailRuleTests {
    @Test("a fail rule names a city pattern and an HTTP status")
    func cityAndStatus() throws {
        let rule = try #require(FailRule(argument: "Seoul=429"))
        #expect(rule.pattern.description == "Seoul")
        guard case .status(429) = rule.outcome else {
            Issue.record("expected status 429, got \(rule.outcome)")
            return
        }
    }

    @Test("garbage, in any case, asks for a body that is not JSON")
    func garbage() throws {
        for text in ["*=garbage", "*=GARBAGE", "*=Garbage "] {
            let rule = try #require(FailRule(argument: text))
            guard case .garbage = rule.outcome else {
                Issue.record("\(text): expected garbage, got \(rule.outcome)")
                continue
            }
        }
    }

    @Test("the status must be in 100...599")
    func statusRange() {
        #expect(FailRule(argument: "Seoul=99") == nil)
        #expect(FailRule(argument: "Seoul=600") == nil)
        #expect(FailRule(argument: "Seoul=100") != nil)
        #expect(FailRule(argument: "Seoul=599") != nil)
    }

    @Test("a status that is neither a number nor garbage is rejected")
    func notAStatus() {
        #expect(FailRule(argument: "Seoul=teapot") == nil)
        #expect(FailRule(argument: "Seoul=") == nil)
    }

    @Test("a fail rule without a city is rejected")
    func noCity() {
        #expect(FailRule(argument: "503") == nil)
        #expect(FailRule(argument: " =503") == nil)
    }
}

@Suite("Rules for one service")
struct RuleServiceTests {
    @Test("a SERVICE: prefix scopes a rule to that service; without one it is for both")
    func prefix() throws {
        let meteo = try #require(FailRule(argument: "open-meteo:Paris=503"))
        #expect(meteo.service == .openMeteo && meteo.pattern.description == "Paris")
        let owm = try #require(DelayRule(argument: "OpenWeatherMap:*=20"))
        #expect(owm.service == .openWeatherMap && owm.pattern.city == nil && owm.milliseconds == 20)
        let both = try #require(FailRule(argument: "Paris=503"))
        #expect(both.service == nil)
        #expect(FailRule(argument: "open-meteo:=503") == nil, "a service without a city")
        #expect(FailRule(argument: "elsewhere:Paris=503")?.pattern.description == "elsewhere:Paris", "not a service: part of the name")
    }

    @Test("a rule naming the city beats *, and of those alike the one for the service beats the one for both")
    func precedence() throws {
        let rules = try ["Paris=404", "open-meteo:*=500", "*=503", "open-meteo:Paris=429", "openweathermap:Paris=401"]
            .map { try #require(FailRule(argument: $0)) }
        func status(_ service: WeatherProviderName, _ city: String) -> String? {
            bestRule(rules, pattern: \.pattern, service: \.service, request: service, cities: [(city, nil)])
                .map { "\($0.pattern.description)=\($0.outcome)" }
        }
        #expect(status(.openMeteo, "Paris") == "Paris=status(429)")
        #expect(status(.openWeatherMap, "Paris") == "Paris=status(401)")
        #expect(status(.openMeteo, "Tokyo") == "*=status(500)")
        #expect(status(.openWeatherMap, "Tokyo") == "*=status(503)")
    }
}
