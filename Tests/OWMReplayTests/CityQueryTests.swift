import Testing

@testable import owm_replay

@Suite("CityQuery")
struct CityQueryTests {
    @Test("a name is lower-cased and loses its diacritics")
    func foldsCaseAndDiacritics() {
        #expect(CityQuery("Reykjavík").name == "reykjavik")
    }

    @Test("a name is trimmed and its inner whitespace runs collapse to one space")
    func collapsesWhitespace() {
        #expect(CityQuery("  New \t  York ").name == "new york")
    }

    @Test("Name,CC carries a lower-cased country code")
    func countryCode() {
        let query = CityQuery("London,GB")
        #expect(query.name == "london")
        #expect(query.country == "gb")
    }

    @Test("Name,State,CC takes the last part as the country")
    func stateAndCountry() {
        let query = CityQuery("Portland,OR,US")
        #expect(query.name == "portland")
        #expect(query.country == "us")
    }

    @Test("Name,State,CC carries the state (for the geocoder); Name and Name,CC have none")
    func state() {
        #expect(CityQuery("Portland, OR ,US").state == "or")
        #expect(CityQuery("Springfield,New  York,US").state == "new york")
        #expect(CityQuery("Portland,US").state == nil)
        #expect(CityQuery("Portland").state == nil)
        #expect(CityQuery("Portland,,US").state == nil)
    }

    @Test("a geocoding query is counted with its state, others as weather queries are")
    func geocodingStatsKey() {
        #expect(CityQuery("Springfield,MO,US").geocodingStatsKey == "q=springfield,mo,us")
        #expect(CityQuery("Springfield,MO,").geocodingStatsKey == "q=springfield,mo,")
        #expect(CityQuery("London, GB").geocodingStatsKey == "q=london,gb")
        #expect(CityQuery(" LONDON ").geocodingStatsKey == "q=london")
        #expect(CityQuery("Springfield,MO,US").statsKey == "q=springfield,us", "weather keys are as they were")
    }

    @Test("an empty country part means no country")
    func emptyCountry() {
        #expect(CityQuery("London, ").country == nil)
        #expect(CityQuery("London").country == nil)
    }

    @Test("the stats key is q= and the normalized name, with the country if given")
    func statsKey() {
        #expect(CityQuery(" LONDON ").statsKey == "q=london")
        #expect(CityQuery("London,GB").statsKey == "q=london,gb")
    }

    @Test("a name matches case- and whitespace-insensitively")
    func matchesIgnoringCaseAndSpaces() {
        #expect(CityQuery("NEW  YORK").matches(name: "New York", country: "US"))
        #expect(CityQuery("newyork").matches(name: "New York", country: "US"))
        #expect(CityQuery("New York").matches(name: "NewYork", country: nil))
    }

    @Test("a name matches diacritic-insensitively in both directions")
    func matchesIgnoringDiacritics() {
        #expect(CityQuery("Reykjavik").matches(name: "Reykjavík", country: "IS"))
        #expect(CityQuery("Reykjavík").matches(name: "Reykjavik", country: "IS"))
    }

    @Test("a query without a country matches the name in any country or none")
    func anyCountry() {
        #expect(CityQuery("London").matches(name: "London", country: "CA"))
        #expect(CityQuery("London").matches(name: "London", country: nil))
    }

    @Test("a query with a country matches only that country, case-insensitively")
    func sameCountryOnly() {
        #expect(CityQuery("London,gb").matches(name: "London", country: "GB"))
        #expect(!CityQuery("London,CA").matches(name: "London", country: "GB"))
        #expect(!CityQuery("London,GB").matches(name: "London", country: nil))
    }

    @Test("a different name does not match")
    func differentName() {
        #expect(!CityQuery("Londonderry").matches(name: "London", country: "GB"))
        #expect(!CityQuery("Paris").matches(name: "London", country: nil))
    }
}
