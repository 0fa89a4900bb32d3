import Testing
import WeatherCore

@Suite("USState")
struct USStateTests {
    @Test("all 50 states and DC, each with its own two-letter code and name")
    func table() {
        #expect(USState.allCases.count == 51)
        #expect(Set(USState.allCases.map(\.code)).count == 51)
        #expect(Set(USState.allCases.map(\.name)).count == 51)
        for state in USState.allCases {
            #expect(state.code.count == 2 && state.code == state.code.uppercased(), "\(state)")
            #expect(USState.name(forCode: state.code) == state.name)
            #expect(USState.code(forName: state.name) == state.code)
        }
    }

    @Test("a code gives its name and a name its code, in any case and with white space around")
    func lookups() {
        #expect(USState.name(forCode: "MO") == "Missouri")
        #expect(USState.name(forCode: " mo ") == "Missouri")
        #expect(USState.name(forCode: "DC") == "District of Columbia")
        #expect(USState.code(forName: "missouri") == "MO")
        #expect(USState.code(forName: "  NEW   york ") == "NY")
        #expect(USState.code(forName: "District of Columbia") == "DC")
    }

    @Test("what is not a state's code or name gives nothing")
    func unknown() {
        for text in ["", "XX", "M", "MOO", "PR", "GU", "Ontario", "Missour", "New"] {
            #expect(USState.name(forCode: text) == nil, "\(text)")
            #expect(USState.code(forName: text) == nil, "\(text)")
        }
        #expect(USState.code(forName: "MO") == nil, "a code is not a name")
        #expect(USState.name(forCode: "Missouri") == nil, "a name is not a code")
    }

    @Test("a state given as a code or a name matches the state answered as either, ignoring case")
    func matches() {
        #expect(USState.matches("MO", state: "Missouri"))
        #expect(USState.matches("mo", state: "MISSOURI"))
        #expect(USState.matches("Missouri", state: "MO"))
        #expect(USState.matches("OH", state: "OH"))
        #expect(USState.matches("oh", state: "OH"))
        #expect(USState.matches("ohio", state: "Ohio"))
        #expect(USState.matches("Ohio", state: "OH"))
        #expect(USState.matches("new  york", state: "New York"))
        #expect(USState.matches("DC", state: "District of Columbia"))
    }

    @Test("another state, an empty state or a partial name does not match")
    func mismatches() {
        #expect(!USState.matches("MO", state: "Massachusetts"))
        #expect(!USState.matches("MA", state: "Missouri"))
        #expect(!USState.matches("Ohio", state: "OK"))
        #expect(!USState.matches("", state: "Ohio"))
        #expect(!USState.matches("Ohi", state: "Ohio"))
        #expect(!USState.matches("Kentucky", state: "Tennessee"))
    }

    @Test("names that are not US states match only themselves, ignoring case")
    func otherRegions() {
        #expect(USState.matches("queensland", state: "Queensland"))
        #expect(!USState.matches("QLD", state: "Queensland"))
    }
}
