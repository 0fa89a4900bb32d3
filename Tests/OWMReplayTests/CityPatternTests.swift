import Testing

@testable import owm_replay

@Suite("CityPattern")
struct CityPatternTests {
    @Test("* covers every request, even one naming no city")
    func starMatchesAll() {
        let pattern = CityPattern("*")
        #expect(pattern.city == nil)
        #expect(pattern.matches([]))
        #expect(pattern.matches([(name: "London", country: "GB")]))
    }

    @Test("* surrounded by spaces is still *")
    func spacedStar() {
        #expect(CityPattern(" * ").city == nil)
    }

    @Test("a city pattern covers a request when any of its cities matches")
    func anyCityMatches() {
        let pattern = CityPattern("london")
        #expect(pattern.matches([(name: "Paris", country: nil), (name: "London", country: "GB")]))
    }

    @Test("a city pattern does not cover a request naming no city or other cities")
    func noMatch() {
        let pattern = CityPattern("London,GB")
        #expect(!pattern.matches([]))
        #expect(!pattern.matches([(name: "London", country: "CA"), (name: "Paris", country: "FR")]))
    }

    @Test("the description is the pattern as written")
    func description() {
        #expect(CityPattern("New York,US").description == "New York,US")
    }
}

@Suite("splitRule")
struct SplitRuleTests {
    @Test("CITY=VALUE splits into the city and the trimmed value")
    func splits() throws {
        let (city, value) = try #require(splitRule("New York= 250 "))
        #expect(city == "New York")
        #expect(value == "250")
    }

    @Test("the split is at the last =")
    func lastEquals() throws {
        let (city, value) = try #require(splitRule("a=b=3"))
        #expect(city == "a=b")
        #expect(value == "3")
    }

    @Test("an argument without = is not a rule")
    func noEquals() {
        #expect(splitRule("London") == nil)
    }

    @Test("an empty or blank city is not a rule")
    func blankCity() {
        #expect(splitRule("=100") == nil)
        #expect(splitRule("  =100") == nil)
    }
}
