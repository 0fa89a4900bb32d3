import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The params of one method, checked into a struct of its own before the method runs.
protocol MethodParams: Sendable {
    /// The names it takes; any other is invalid params.
    static var names: Set<String> { get }
    init(_ params: Params) throws(WeatherError)
}

/// No params (`state`, `version`, …).
struct NoParams: MethodParams {
    static let names: Set<String> = []
    init(_ params: Params) {}
}

/// `search`: `city`, or `place` (a place as `places` answers it).
struct SearchParams: MethodParams {
    enum Target: Sendable {
        case city(String)
        case place(Place)
    }

    static let names: Set<String> = ["city", "place"]
    let target: Target

    init(_ params: Params) throws(WeatherError) {
        if let place = try params.place() {
            target = .place(place)
        } else {
            target = .city(try params.city())
        }
    }
}

/// `places`: `name`, `limit`.
struct PlacesParams: MethodParams {
    static let names: Set<String> = ["name", "limit"]
    let name: String
    let limit: Int

    init(_ params: Params) throws(WeatherError) {
        name = try params.city("name")
        limit = try params.integer("limit", in: Place.limitRange) ?? Place.defaultLimit
    }
}

/// `locate`: `timeout` in seconds (default `location.locate_timeout`), `source` (a kind of
/// location source), `max_age` in seconds.
struct LocateParams: MethodParams {
    static let names: Set<String> = ["timeout", "source", "max_age"]
    let timeout: Duration?
    let source: LocationSourceKind?
    let maxAge: Duration?

    init(_ params: Params) throws(WeatherError) {
        timeout = try params.seconds("timeout", in: 0.001...3600)
        source = try params.choice("source", of: LocationSourceKind.self)
        maxAge = try params.seconds("max_age", in: 0...604_800)
    }
}

/// `location.report`: `lat`, `lon`, `horizontal_error` (metres, more than 0), `at` (RFC 3339,
/// default now), `source` (`browser` or `client`, default `client`).
struct LocationReportParams: MethodParams {
    static let names: Set<String> = ["lat", "lon", "horizontal_error", "at", "source"]
    let coordinate: Coordinate
    let horizontalError: Double
    let at: Date?
    let source: LocationFix.Source

    init(_ params: Params) throws(WeatherError) {
        coordinate = try params.point()
        guard let error = params.object["horizontal_error"]?.doubleValue, error.isFinite, error > 0 else {
            throw .invalidParams("invalid params: \"horizontal_error\" must be a number of metres more than 0")
        }
        horizontalError = error
        if let value = params.object["at"], !value.isNull {
            guard let text = value.stringValue, let date = Timestamp.parseRFC3339(text) else {
                throw .invalidParams("invalid params: \"at\" must be an RFC 3339 time like \"2026-11-26T10:00:00Z\"")
            }
            at = date
        } else {
            at = nil
        }
        switch params.object["source"] {
        case nil, .null?: source = .client
        case .string("browser")?: source = .browser
        case .string("client")?: source = .client
        default: throw .invalidParams(#"invalid params: "source" must be "browser" or "client""#)
        }
    }
}

/// `region`: `center`, `span`.
struct RegionParams: MethodParams {
    static let names: Set<String> = ["center", "span"]
    let region: MapRegion

    init(_ params: Params) throws(WeatherError) {
        region = try MapRegion(center: params.coordinate("center"), span: params.optionalCoordinate("span")).validated()
    }
}

/// `forecast`: `city`, or `lat` and `lon`; `hours`.
struct ForecastParams: MethodParams {
    static let names: Set<String> = ["city", "lat", "lon", "hours"]
    let query: LookupQuery
    let hours: Int

    init(_ params: Params) throws(WeatherError) {
        query = try params.cityOrPoint()
        hours = try params.integer("hours", in: WeatherForecast.hoursRange) ?? WeatherForecast.defaultHours
    }
}

/// `alerts`: `city`, or `lat` and `lon`.
struct AlertsParams: MethodParams {
    static let names: Set<String> = ["city", "lat", "lon"]
    let query: LookupQuery

    init(_ params: Params) throws(WeatherError) {
        query = try params.cityOrPoint()
    }
}

/// `watch`: `replay`, `topics`, `diff`.
struct WatchParams: MethodParams {
    static let names: Set<String> = ["replay", "topics", "diff"]
    let replay: Bool
    let diff: Bool
    let topics: [Outbox.Topic]

    init(_ params: Params) throws(WeatherError) {
        replay = try params.bool("replay") ?? true
        diff = try params.bool("diff") ?? false
        topics = try params.topics() ?? Outbox.Topic.allCases
    }
}

/// `cities.add`, `cities.remove`: `city`.
struct CityParams: MethodParams {
    static let names: Set<String> = ["city"]
    let city: String

    init(_ params: Params) throws(WeatherError) {
        city = try params.city()
    }
}

/// Named params of one request, checked.
struct Params {
    let object: JSONObject

    init(_ object: JSONObject, allowed: Set<String>) throws(WeatherError) {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw .invalidParams("invalid params: unknown param \"\(unknown)\"")
        }
        self.object = object
    }

    /// `city` (or another key holding a name): a non-empty name of at most 200 characters without
    /// control characters.
    func city(_ key: String = "city") throws(WeatherError) -> String {
        guard let raw = object[key]?.stringValue else {
            throw .invalidParams("invalid params: \"\(key)\" must be a string")
        }
        guard let city = Self.asciiCity(raw) ?? Self.unicodeCity(raw) else {
            throw .invalidParams("invalid params: \"\(key)\" must be a city name (1 to 200 characters)")
        }
        return city
    }

    /// `place`: a Place object as `places` answers it (`name`, `lat`, `lon`; `state`, `country` and
    /// `provider` optional); nil when absent. It goes without `city`.
    func place() throws(WeatherError) -> Place? {
        guard let value = object["place"], !value.isNull else { return nil }
        if object["city"] != nil {
            throw .invalidParams("invalid params: give \"city\" or \"place\", not both")
        }
        guard let place = Place(json: value) else {
            throw .invalidParams(
                "invalid params: \"place\" must be a place: {\"name\": string, \"lat\": number within [-90, 90], "
                    + "\"lon\": number within [-180, 180], \"state\"?, \"country\"?, \"provider\"?}")
        }
        return place
    }

    /// The city of `raw`: runs of white space collapsed to one space, the ends trimmed; nil unless
    /// it then has 1 to 200 characters and no control character.
    static func unicodeCity(_ raw: String) -> String? {
        let city = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !city.isEmpty, city.count <= 200, !city.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return nil
        }
        return city
    }

    /// `unicodeCity` for ASCII text, byte by byte: `.some(nil)` is a name it refuses, nil text that
    /// is not ASCII. In ASCII, white space (`Character.isWhitespace`) is tab, line feed, vertical
    /// tab, form feed, carriage return and space; the other bytes below 0x20 and 0x7F are control
    /// characters; every other byte is one character.
    static func asciiCity(_ raw: String) -> String?? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.utf8.count)
        var space = false
        for byte in raw.utf8 {
            switch byte {
            case 0x80...: return nil
            case 0x09...0x0D, 0x20: space = !out.isEmpty
            case 0x00..<0x20, 0x7F: return .some(nil)
            default:
                if space {
                    out.append(0x20)
                    space = false
                }
                out.append(byte)
            }
        }
        guard !out.isEmpty, out.count <= 200 else { return .some(nil) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where: `city`, or `lat` and `lon` (one or the other).
    func cityOrPoint() throws(WeatherError) -> LookupQuery {
        let hasCity = object["city"].map { !$0.isNull } ?? false
        let hasPoint = object["lat"].map { !$0.isNull } ?? false || object["lon"].map { !$0.isNull } ?? false
        switch (hasCity, hasPoint) {
        case (true, false):
            return .city(try city())
        case (false, true):
            return .coordinate(try point())
        case (true, true):
            throw .invalidParams("invalid params: give \"city\" or \"lat\" and \"lon\", not both")
        case (false, false):
            throw .invalidParams("invalid params: \"city\" or \"lat\" and \"lon\" is required")
        }
    }

    /// `lat` and `lon`, each a number within its range.
    func point() throws(WeatherError) -> Coordinate {
        guard let lat = object["lat"]?.doubleValue, lat.isFinite, (-90...90).contains(lat) else {
            throw .invalidParams("invalid params: \"lat\" must be a number within [-90, 90]")
        }
        guard let lon = object["lon"]?.doubleValue, lon.isFinite, (-180...180).contains(lon) else {
            throw .invalidParams("invalid params: \"lon\" must be a number within [-180, 180]")
        }
        return Coordinate(lat: lat, lon: lon)
    }

    /// One of the names of `Choice`; nil when absent.
    func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, of _: Choice.Type) throws(WeatherError) -> Choice?
    where Choice.RawValue == String {
        guard let value = object[key], !value.isNull else { return nil }
        guard let name = value.stringValue, let choice = Choice(rawValue: name) else {
            let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalidParams("invalid params: \"\(key)\" must be one of \(names)")
        }
        return choice
    }

    /// A whole number within `range`; nil when absent.
    func integer(_ key: String, in range: ClosedRange<Int>) throws(WeatherError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.doubleValue, number.rounded() == number, Double(range.lowerBound) <= number,
            number <= Double(range.upperBound)
        else {
            throw .invalidParams("invalid params: \"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// `{"lat": number, "lon": number}`.
    func coordinate(_ key: String) throws(WeatherError) -> Coordinate {
        guard let value = try optionalCoordinate(key) else {
            throw .invalidParams("invalid params: \"\(key)\" is required: {\"lat\": number, \"lon\": number}")
        }
        return value
    }

    func optionalCoordinate(_ key: String) throws(WeatherError) -> Coordinate? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let members = value.objectValue, Set(members.keys) == ["lat", "lon"],
            let lat = members["lat"]?.doubleValue, let lon = members["lon"]?.doubleValue
        else {
            throw .invalidParams("invalid params: \"\(key)\" must be {\"lat\": number, \"lon\": number}")
        }
        return Coordinate(lat: lat, lon: lon)
    }

    /// A number of seconds within `range`, as a Duration; nil when absent.
    func seconds(_ key: String, in range: ClosedRange<Double>) throws(WeatherError) -> Duration? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let seconds = value.doubleValue, range.contains(seconds) else {
            throw .invalidParams(
                "invalid params: \"\(key)\" must be a number of seconds from \(range.lowerBound) to \(Int(range.upperBound))")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    func bool(_ key: String) throws(WeatherError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw .invalidParams("invalid params: \"\(key)\" must be true or false") }
        return bool
    }

    func topics() throws(WeatherError) -> [Outbox.Topic]? {
        guard let value = object["topics"], !value.isNull else { return nil }
        guard let array = value.arrayValue else {
            throw .invalidParams(#"invalid params: "topics" must be an array of "overlays" and "state""#)
        }
        var topics: [Outbox.Topic] = []
        for element in array {
            guard let name = element.stringValue, let topic = Outbox.Topic(rawValue: name) else {
                throw .invalidParams("invalid params: unknown topic \(element.serialized); topics are \"overlays\" and \"state\"")
            }
            if !topics.contains(topic) { topics.append(topic) }
        }
        return topics
    }
}
