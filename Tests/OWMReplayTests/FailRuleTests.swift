import Testing
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
