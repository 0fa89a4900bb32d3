/// The 50 states of the United States and the District of Columbia, with their USPS codes: how a
/// geocoder's `state` (a name such as "Missouri", or a code such as "MO") is compared with the state
/// a user gave.
public enum USState: String, CaseIterable, Sendable {
    case alabama = "AL"
    case alaska = "AK"
    case arizona = "AZ"
    case arkansas = "AR"
    case california = "CA"
    case colorado = "CO"
    case connecticut = "CT"
    case delaware = "DE"
    case districtOfColumbia = "DC"
    case florida = "FL"
    case georgia = "GA"
    case hawaii = "HI"
    case idaho = "ID"
    case illinois = "IL"
    case indiana = "IN"
    case iowa = "IA"
    case kansas = "KS"
    case kentucky = "KY"
    case louisiana = "LA"
    case maine = "ME"
    case maryland = "MD"
    case massachusetts = "MA"
    case michigan = "MI"
    case minnesota = "MN"
    case mississippi = "MS"
    case missouri = "MO"
    case montana = "MT"
    case nebraska = "NE"
    case nevada = "NV"
    case newHampshire = "NH"
    case newJersey = "NJ"
    case newMexico = "NM"
    case newYork = "NY"
    case northCarolina = "NC"
    case northDakota = "ND"
    case ohio = "OH"
    case oklahoma = "OK"
    case oregon = "OR"
    case pennsylvania = "PA"
    case rhodeIsland = "RI"
    case southCarolina = "SC"
    case southDakota = "SD"
    case tennessee = "TN"
    case texas = "TX"
    case utah = "UT"
    case vermont = "VT"
    case virginia = "VA"
    case washington = "WA"
    case westVirginia = "WV"
    case wisconsin = "WI"
    case wyoming = "WY"

    /// The two-letter USPS code (`MO`).
    public var code: String { rawValue }

    /// The name as written in English (`Missouri`, `District of Columbia`).
    public var name: String {
        switch self {
        case .alabama: "Alabama"
        case .alaska: "Alaska"
        case .arizona: "Arizona"
        case .arkansas: "Arkansas"
        case .california: "California"
        case .colorado: "Colorado"
        case .connecticut: "Connecticut"
        case .delaware: "Delaware"
        case .districtOfColumbia: "District of Columbia"
        case .florida: "Florida"
        case .georgia: "Georgia"
        case .hawaii: "Hawaii"
        case .idaho: "Idaho"
        case .illinois: "Illinois"
        case .indiana: "Indiana"
        case .iowa: "Iowa"
        case .kansas: "Kansas"
        case .kentucky: "Kentucky"
        case .louisiana: "Louisiana"
        case .maine: "Maine"
        case .maryland: "Maryland"
        case .massachusetts: "Massachusetts"
        case .michigan: "Michigan"
        case .minnesota: "Minnesota"
        case .mississippi: "Mississippi"
        case .missouri: "Missouri"
        case .montana: "Montana"
        case .nebraska: "Nebraska"
        case .nevada: "Nevada"
        case .newHampshire: "New Hampshire"
        case .newJersey: "New Jersey"
        case .newMexico: "New Mexico"
        case .newYork: "New York"
        case .northCarolina: "North Carolina"
        case .northDakota: "North Dakota"
        case .ohio: "Ohio"
        case .oklahoma: "Oklahoma"
        case .oregon: "Oregon"
        case .pennsylvania: "Pennsylvania"
        case .rhodeIsland: "Rhode Island"
        case .southCarolina: "South Carolina"
        case .southDakota: "South Dakota"
        case .tennessee: "Tennessee"
        case .texas: "Texas"
        case .utah: "Utah"
        case .vermont: "Vermont"
        case .virginia: "Virginia"
        case .washington: "Washington"
        case .westVirginia: "West Virginia"
        case .wisconsin: "Wisconsin"
        case .wyoming: "Wyoming"
        }
    }

    /// The state of a USPS code, whatever its case and surrounding white space (`mo` → Missouri).
    public init?(code: String) {
        self.init(rawValue: Self.folded(code).uppercased())
    }

    /// The state of a name, whatever its case and white space (`new  york` → New York).
    public init?(name: String) {
        let wanted = Self.folded(name)
        guard let state = Self.allCases.first(where: { Self.folded($0.name) == wanted }) else { return nil }
        self = state
    }

    /// The name of the state (or DC) whose USPS code is `code` (any case): `MO` → `Missouri`.
    public static func name(forCode code: String) -> String? {
        USState(code: code)?.name
    }

    /// The USPS code of the state (or DC) named `name` (any case): `missouri` → `MO`.
    public static func code(forName name: String) -> String? {
        USState(name: name)?.code
    }

    /// Whether `given` (what a user typed) names `state` (what a geocoder answered): they are equal
    /// ignoring case and white space runs, or one is the USPS code of the other. `MO` matches
    /// `Missouri`, `ohio` matches `Ohio`, `OH` matches `OH`; `Missouri` matches `MO`. Neither needs
    /// to be a state for the first rule; an empty `given` matches nothing.
    public static func matches(_ given: String, state: String) -> Bool {
        let given = folded(given)
        let state = folded(state)
        guard !given.isEmpty else { return false }
        if given == state { return true }
        if let byCode = USState(code: given), folded(byCode.name) == state { return true }
        if let byCode = USState(code: state), folded(byCode.name) == given { return true }
        return false
    }

    /// Lower-cased, trimmed, inner white space runs as one space.
    private static func folded(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
