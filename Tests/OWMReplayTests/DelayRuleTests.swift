import Testing

@testable import owm_replay

@Suite("DelayRule")
struct DelayRuleTests {
    @Test("a delay rule names a city pattern and a duration")
    func cityAndDuration() throws {
        let rule = try #require(DelayRule(argument: "London,GB=250"))
        #expect(rule.pattern.description == "London,GB")
        #expect(rule.pattern.city?.country == "gb")
        #expect(rule.milliseconds == 250)
    }

    @Test("a delay rule may cover every city with *")
    func star() throws {
        let rule = try #require(DelayRule(argument: "*=1000"))
        #expect(rule.pattern.city == nil)
        #expect(rule.milliseconds == 1000)
    }

    @Test("a delay of zero is accepted")
    func zero() throws {
        #expect(try #require(DelayRule(argument: "Paris=0")).milliseconds == 0)
    }

    @Test("a negative delay is rejected")
    func negative() {
        #expect(DelayRule(argument: "Paris=-1") == nil)
    }

    @Test("a delay that is not a whole number of milliseconds is rejected")
    func notANumber() {
        #expect(DelayRule(argument: "Paris=1.5") == nil)
        #expect(DelayRule(argument: "Paris=1s") == nil)
        #expect(DelayRule(argument: "Paris=") == nil)
    }

    @Test("a delay without a city is rejected")
    func noCity() {
        #expect(DelayRule(argument: "250") == nil)
        #expect(DelayRule(argument: "=250") == nil)
    }
}
