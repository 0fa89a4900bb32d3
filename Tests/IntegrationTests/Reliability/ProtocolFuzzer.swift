import Foundation
import WeatherCore

@testable import TestSupport

// What the protocol fuzz sends and what it must get back, written from docs/protocol.md (the
// socket protocol and its errors), not from the daemon's code: each generated line carries the
// replies it must produce.

/// One acceptable reply: its `id` and whether it is a result or an error with one of `codes`.
struct ExpectedReply: Sendable, CustomStringConvertible {
    /// `.null` for a reply with id null; a number is matched by value (see `idMatches`).
    var id: JSONValue
    var result: Bool
    var codes: Set<Int>

    static func result(_ id: JSONValue) -> ExpectedReply { ExpectedReply(id: id, result: true, codes: []) }
    static func error(_ id: JSONValue, _ codes: Int...) -> ExpectedReply { ExpectedReply(id: id, result: false, codes: Set(codes)) }
    static func resultOrError(_ id: JSONValue, _ codes: Int...) -> ExpectedReply { ExpectedReply(id: id, result: true, codes: Set(codes)) }

    func accepts(_ reply: JSONValue) -> Bool {
        guard let replyID = reply["id"], idMatches(expected: id, reply: replyID) else { return false }
        if reply["result"] != nil { return result }
        guard let code = reply["error"]?["code"]?.intValue else { return false }
        return codes.contains(code)
    }

    var description: String {
        let outcome = [result ? "result" : nil, codes.isEmpty ? nil : "error \(codes.sorted().map(String.init).joined(separator: "|"))"]
            .compactMap { $0 }.joined(separator: " or ")
        return "id \(id.serialized): \(outcome)"
    }
}

/// What one line must be answered with.
enum LineExpectation: Sendable {
    /// No reply at all (a notification, or a batch of notifications only).
    case nothing
    /// Exactly one reply object.
    case single(ExpectedReply)
    /// Exactly one non-empty array of replies, in this order.
    case batch([ExpectedReply])

    var replyLines: Int {
        if case .nothing = self { return 0 }
        return 1
    }
}

/// One generated line (without its newline) and what it must be answered with.
struct FuzzLine: Sendable {
    var bytes: [UInt8]
    var expectation: LineExpectation
    /// The kind of line, for the figures.
    var kind: String

    var preview: String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? text + "… (\(bytes.count) bytes)" : text
    }
}

/// Whether a reply's `id` echoes the request's: a number exactly as it was written (however large,
/// however written: `1.50` comes back as `1.50`), a string as the same string.
func idMatches(expected: JSONValue, reply: JSONValue) -> Bool {
    if case .string = expected { return expected == reply }
    return expected.serialized == reply.serialized
}

/// A number id as the daemon must echo it: the very text sent.
private func exactNumber(_ text: String) -> (String, JSONValue) {
    (text, try! JSONValue.parse(Array(text.utf8)))
}

/// Generates the lines of the fuzz from a seeded generator.
struct ProtocolFuzzer {
    var random: SplitMix64
    private var counter = 1_000_000
    /// Special ids already used on the current connection (each may appear once per connection,
    /// so replies can be told apart).
    private var usedSpecialIDs: Set<Int> = []

    init(random: SplitMix64) {
        self.random = random
    }

    /// Starts a new connection: special ids may be used again.
    mutating func newConnection() {
        usedSpecialIDs = []
    }

    // MARK: Ids

    /// Ids that are unusual but valid: (the text sent, the value it must be echoed as).
    static let specialIDs: [(String, JSONValue)] = [
        exactNumber("9223372036854775807"),
        exactNumber("-9223372036854775808"),
        exactNumber("0"),
        exactNumber("9223372036854775808"),
        exactNumber("123456789012345678901234567890"),
        exactNumber("-98765432109876543210987654321098765432109876543210"),
        exactNumber("1.50"),
        exactNumber("1e3"),
        exactNumber("-2.5E-3"),
        exactNumber("1E+300"),
        exactNumber("4.9e-324"),
        (#""""#, .string("")),
        (#""with \"quotes\", a \\ and a \/ slash""#, .string(#"with "quotes", a \ and a / slash"#)),
        (#""\u0000 NUL and \u001f US""#, .string("\u{0} NUL and \u{1F} US")),
        (#""line\nbreak\r\ttab""#, .string("line\nbreak\r\ttab")),
        (#""ünïcødé 🌦 \ud83d\ude00""#, .string("ünïcødé 🌦 😀")),
        (#""\u2028\u2029""#, .string("\u{2028}\u{2029}")),
        ("\"" + String(repeating: "long-id-", count: 250) + "\"", .string(String(repeating: "long-id-", count: 250))),
    ]

    /// A fresh id: mostly a counter (a number or a string), sometimes a special one.
    mutating func id() -> (text: String, value: JSONValue) {
        counter += 1
        if random.chance(0.08) {
            let index = random.int(0...(Self.specialIDs.count - 1))
            if usedSpecialIDs.insert(index).inserted { return Self.specialIDs[index] }
        }
        switch random.int(0...3) {
        case 0: return ("\"r\(counter)\"", .string("r\(counter)"))
        case 1: return ("-\(counter)", .integer(Int64(-counter)))
        default: return ("\(counter)", .integer(Int64(counter)))
        }
    }

    // MARK: Building requests as text

    /// JSON white space between tokens: mostly none, sometimes spaces, tabs or a carriage return
    /// (never a newline: that would end the line).
    private mutating func space() -> String {
        guard random.chance(0.15) else { return "" }
        return String((0..<random.int(1...3)).map { _ in random.pick([" ", "\t", " ", "\r"]) })
    }

    /// An object from members given as (name, JSON text), in random order, with random white space.
    private mutating func object(_ members: [(String, String)]) -> String {
        var members = members
        for index in members.indices.reversed() where index > 0 {
            members.swapAt(index, random.int(0...index))
        }
        let body = members.map { "\(space())\"\($0.0)\"\(space()):\(space())\($0.1)\(space())" }.joined(separator: ",")
        return "{" + body + "}"
    }

    /// A request object's text. `id` nil: no id member (a notification).
    private mutating func request(id: String?, method: String, params: String?, jsonrpc: String? = "\"2.0\"") -> String {
        var members: [(String, String)] = []
        if let jsonrpc { members.append(("jsonrpc", jsonrpc)) }
        if let id { members.append(("id", id)) }
        members.append(("method", method))
        if let params { members.append(("params", params)) }
        return object(members)
    }

    private static func quoted(_ text: String) -> String { JSONValue.string(text).serialized }

    // MARK: Methods and params

    /// Every method of the protocol.
    static let methods = [
        "search", "locate", "region", "overlays", "state", "watch", "unwatch", "cities", "cities.add", "cities.remove", "version",
    ]

    /// Params that are wrong for any method: positional, not an object, an unknown member.
    private mutating func commonBadParams() -> String {
        random.pick([
            "[]", "[\"London\"]", "[1,2]", "\"London\"", "1", "true", "-0.5", #"{"bogus":1}"#, #"{"City":"London"}"#, #"{"":null}"#,
        ])
    }

    /// A value of the wrong type or out of range for `city`.
    private mutating func badCity() -> String {
        random.pick([
            "1", "true", "null", "[]", "{}", "[\"London\"]", "{\"name\":\"London\"}", "1e300", "\"\"", "\"   \"", "\"\\t\\n \\r\"",
            Self.quoted(String(repeating: "x", count: 201)), Self.quoted(String(repeating: "é", count: 201)),
            "\"a\\u0001b\"", "\"\\u0000\"", "\"Lon\\u007fdon\"", "\"London\\u001b[31m\"",
        ])
    }

    /// A city name that is valid but not watched (and that OpenWeatherMap's stand-in does not know).
    private mutating func unknownCity() -> String {
        Self.quoted(
            random.pick(["Nowhere", "  atlantis ", "El Dorado,XX", "Ys", "Lyonesse, GB", "Шамбала", "桃源郷"]) + " \(random.int(1...999))")
    }

    /// A value that is not a valid `{"lat","lon"}` for `center`, or out of range.
    private mutating func badCenter() -> String {
        random.pick([
            "1", "\"0,0\"", "[1,2]", "true", "{}", #"{"lat":1}"#, #"{"lon":1}"#, #"{"lat":1,"lon":2,"alt":3}"#,
            #"{"lat":"1","lon":2}"#, #"{"lat":1,"lon":null}"#, #"{"lat":90.0001,"lon":0}"#, #"{"lat":-91,"lon":0}"#,
            #"{"lat":0,"lon":180.5}"#, #"{"lat":0,"lon":-181}"#, #"{"lat":1e300,"lon":0}"#, #"{"lat":0,"lon":-1e300}"#,
            #"{"lat":9223372036854775807,"lon":0}"#, #"{"lat":[0],"lon":0}"#, #"{"LAT":0,"lon":0}"#,
        ])
    }

    private mutating func badSpan() -> String {
        random.pick([
            "5", "\"3x3\"", "[]", #"{"lat":0,"lon":1}"#, #"{"lat":1,"lon":0}"#, #"{"lat":-1,"lon":1}"#, #"{"lat":180.01,"lon":1}"#,
            #"{"lat":1,"lon":1e300}"#, #"{"lat":1}"#, #"{"lat":1,"lon":1,"x":1}"#, #"{"lat":1,"lon":"1"}"#,
        ])
    }

    private mutating func goodCenter() -> String {
        let lat = random.chance(0.1) ? random.pick([90.0, -90.0, 0.0]) : (random.double(-90, 90) * 1000).rounded() / 1000
        let lon = random.chance(0.1) ? random.pick([180.0, -180.0, 0.0]) : (random.double(-180, 180) * 1000).rounded() / 1000
        return object([("lat", JSONValue.double(lat).serialized), ("lon", JSONValue.double(lon).serialized)])
    }

    /// Params for `method` that are wrong (always `-32602`).
    private mutating func badParams(for method: String) -> String {
        if random.chance(0.3) { return commonBadParams() }
        switch method {
        case "search", "cities.add", "cities.remove":
            if random.chance(0.15) { return random.pick(["{}", "null"]) == "{}" ? "{}" : object([("town", "\"London\"")]) }
            return object([("city", badCity())])
        case "locate":
            return object([
                (
                    "timeout",
                    random.pick([
                        "\"1\"", "true", "[]", "{}", "0", "-1", "0.0009", "3600.001", "3601", "1e300", "-1e300", "1e-300",
                        "9223372036854775807", "-0", "[0.5]",
                    ])
                )
            ])
        case "region":
            switch random.int(0...3) {
            case 0: return random.pick(["{}", #"{"span":{"lat":1,"lon":1}}"#, #"{"center":null}"#])
            case 1: return object([("center", badCenter())])
            case 2: return object([("center", goodCenter()), ("span", badSpan())])
            default: return object([("center", goodCenter()), ("zoom", "3")])
            }
        case "watch":
            return random.pick([
                #"{"replay":1}"#, #"{"replay":"true"}"#, #"{"replay":[]}"#, #"{"topics":"state"}"#, #"{"topics":["weather"]}"#,
                #"{"topics":[1]}"#, #"{"topics":{}}"#, #"{"topics":[null]}"#, #"{"topics":["state","State"]}"#, #"{"diff":1}"#,
                #"{"diff":"true"}"#,
            ])
        default:  // overlays, state, unwatch, cities, version: no params at all
            return object([(random.pick(["x", "city", "replay", "verbose", "id"]), random.pick(["1", "null", "\"London\"", "{}"]))])
        }
    }

    /// Valid params for `method` (nil: none sent), and the outcome they must have. With gpsd off,
    /// no watched city removed and no city added, only `search` and `region` reach the stand-in.
    private mutating func goodParams(for method: String, id: JSONValue) -> (params: String?, reply: ExpectedReply) {
        let empty: String? = random.pick([nil, "{}", "null"])
        switch method {
        case "search":
            // Rare (see `method(for:)`): the stand-in knows London and Paris; the other names are
            // not found; the budget may be spent, and a lookup superseded still gets its answer.
            let city = random.chance(0.3) ? Self.quoted(random.pick(["London", " london ", "PARIS,fr", "Paris"])) : unknownCity()
            return (object([("city", city)]), .resultOrError(id, -32001, -32003, -32004))
        case "locate":
            // Explicit timeouts of at most a second (never the 30 s default), though with gpsd
            // disabled the answer is gps_disabled at once.
            let params = random.pick([
                #"{"timeout":0.001}"#, #"{"timeout":1}"#, #"{"timeout":0.25}"#, #"{"timeout":1E-3}"#, #"{"timeout":5e-1}"#,
            ])
            return (params, .error(id, -32006))
        case "region":
            var members = [("center", goodCenter())]
            if random.chance(0.5) {
                let span =
                    random.chance(0.2)
                    ? random.pick(["null", #"{"lat":180,"lon":180}"#, #"{"lat":1e-9,"lon":0.5}"#])
                    : object([
                        ("lat", JSONValue.double(random.double(0.01, 20)).serialized),
                        ("lon", JSONValue.double(random.double(0.01, 20)).serialized),
                    ])
                members.append(("span", span))
            }
            return (object(members), .result(id))
        case "watch":
            let params: String? = random.pick([
                nil, "{}", #"{"replay":false}"#, #"{"replay":true,"topics":["state"]}"#, #"{"topics":[]}"#,
                #"{"topics":["overlays","state","overlays"]}"#, #"{"replay":null,"topics":null}"#, #"{"diff":true}"#,
                #"{"diff":false,"replay":false}"#,
            ])
            return (params, .result(id))
        case "cities.remove":
            return (object([("city", unknownCity())]), .error(id, -32602))  // not a watched city
        case "cities.add":
            // Adding stores the list and looks the city up: left to the crash suite.
            return (object([("city", badCity())]), .error(id, -32602))
        default:  // overlays, state, unwatch, cities, version
            return (empty, .result(id))
        }
    }

    /// A method name for a request: the upstream ones (`search`, `region`) are rare.
    private mutating func method() -> String {
        if random.chance(0.03) { return random.pick(["search", "region"]) }
        return random.pick(Self.methods.filter { $0 != "search" && $0 != "region" })
    }

    // MARK: Lines

    /// A request with an id and its expected reply.
    mutating func requestWithID() -> (text: String, reply: ExpectedReply) {
        let (idText, id) = id()
        let method = method()
        switch random.int(0...9) {
        case 0...4:
            let (params, reply) = goodParams(for: method, id: id)
            return (request(id: idText, method: Self.quoted(method), params: params), reply)
        case 5...7:
            return (request(id: idText, method: Self.quoted(method), params: badParams(for: method)), .error(id, -32602))
        default:
            return envelopeFault(idText: idText, id: id)
        }
    }

    /// A request whose envelope is wrong: the jsonrpc member, the method, the id's type.
    private mutating func envelopeFault(idText: String, id: JSONValue) -> (text: String, reply: ExpectedReply) {
        switch random.int(0...5) {
        case 0:
            let jsonrpc: String? = random.pick([nil, "\"1.0\"", "\"2\"", "2.0", "2", "null", "\"2.0 \"", "[\"2.0\"]"])
            return (request(id: idText, method: "\"version\"", params: nil, jsonrpc: jsonrpc), .error(id, -32600))
        case 1:
            let method = random.pick(["1", "null", "[]", "{}", "true", "[\"version\"]"])
            return (request(id: idText, method: method, params: nil), .error(id, -32600))
        case 2:
            return (object([("jsonrpc", "\"2.0\""), ("id", idText), ("params", "{}")]), .error(id, -32600))  // no method
        case 3:
            let badID = random.pick(["true", "false", "[]", "{}", "[1]", "{\"id\":1}"])
            return (request(id: badID, method: "\"version\"", params: nil), .error(.null, -32600))
        default:
            let name = random.pick([
                "", "Search", "search ", " version", "forecasts", "rpc.discover", "cities.clear", "cities.", "ver\\u0000sion",
                "😀", "state\\n", String(repeating: "m", count: 1000), "__proto__", "constructor", "toString",
            ])
            // params must be an object (or absent): positional params are -32602 before the method is looked at.
            let params: String? = random.pick([nil, "{}", "null", #"{"city":"London"}"#])
            return (request(id: idText, method: "\"\(name)\"", params: params), .error(id, -32601))
        }
    }

    /// A notification: a request without an id; never answered, whatever it says.
    mutating func notification() -> String {
        let method = random.chance(0.1) ? random.pick(["nope", "forecasts", ""]) : method()
        let params: String?
        if random.chance(0.5) {
            params = badParams(for: method)
        } else if method == "search" {
            params = object([("city", unknownCity())])
        } else {
            params = goodParams(for: method, id: .null).params
        }
        return request(id: nil, method: Self.quoted(method), params: params)
    }

    /// One element of a batch: (its text, the reply it must have in the reply array, if any).
    private mutating func batchElement() -> (String, ExpectedReply?) {
        switch random.int(0...19) {
        case 0...11:
            let (text, reply) = requestWithID()
            return (text, reply)
        case 12...15:
            return (notification(), nil)
        case 16:
            return (random.pick(["1", "\"x\"", "null", "true", "[]", "[1]", "-0.5", "[{}]"]), .error(.null, -32600))
        case 17:
            return (object([]), .error(.null, -32600))  // no jsonrpc, no method, no id
        case 18:
            // Not a request (no method): answered with id null, even without an id member.
            return (object([("jsonrpc", "\"2.0\""), ("params", "{}")]), .error(.null, -32600))
        default:
            let (text, reply) = requestWithID()
            return (text, reply)
        }
    }

    /// A batch of `count` elements (kept under the line limit).
    mutating func batch(count: Int) -> FuzzLine {
        var texts: [String] = []
        var replies: [ExpectedReply] = []
        var bytes = 2
        for _ in 0..<count {
            let (text, reply) = batchElement()
            guard bytes + text.utf8.count + 1 < 60_000 else { break }
            bytes += text.utf8.count + 1
            texts.append(text)
            if let reply { replies.append(reply) }
        }
        let line = "[" + space() + texts.joined(separator: "," + space()) + space() + "]"
        return FuzzLine(
            bytes: Array(line.utf8), expectation: replies.isEmpty ? .nothing : .batch(replies),
            kind: count >= 100 ? "large batch" : "batch")
    }

    /// A line that is not one valid JSON text: always -32700 with id null.
    mutating func parseErrorLine() -> FuzzLine {
        let parseError = LineExpectation.single(.error(.null, -32700))
        let (request, _) = requestWithID()
        var bytes = Array(request.utf8)
        switch random.int(0...9) {
        case 0, 1:
            // A proper prefix of an object or array is never valid JSON (its brackets do not close).
            let text = random.chance(0.3) ? batch(count: random.int(1...5)).bytes : bytes
            return FuzzLine(bytes: Array(text.prefix(random.int(0...(text.count - 1)))), expectation: parseError, kind: "truncated")
        case 2, 3:
            // Invalid UTF-8 inside a string (after an opening quote) or between tokens.
            let invalid = random.pick(
                [
                    [0xFF], [0xFE], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
                    [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xBF],
                    [0xE2, 0x82], [0xF0, 0x9F, 0x8C],
                ] as [[UInt8]])
            bytes.insert(contentsOf: invalid, at: insertionPoint(in: bytes, insideString: random.chance(0.8)))
            return FuzzLine(bytes: bytes, expectation: parseError, kind: "invalid UTF-8")
        case 4, 5:
            // A raw NUL or another control character inside a string; a NUL between tokens. (Not a
            // carriage return or a tab: between tokens those are white space.)
            let inside = random.chance(0.7)
            let byte: UInt8 = inside ? random.pick([0x00, 0x00, 0x01, 0x07, 0x08, 0x0B, 0x0C, 0x1B, 0x1F]) : 0x00
            bytes.insert(byte, at: insertionPoint(in: bytes, insideString: inside))
            return FuzzLine(bytes: bytes, expectation: parseError, kind: "NUL or control byte")
        case 6:
            // Text after the value: a second request, a comma, a stray character.
            let tail = random.pick([request, ",", "}", "]", " x", "\u{0}", "null", "//", "#"])
            return FuzzLine(bytes: bytes + Array(tail.utf8), expectation: parseError, kind: "trailing text")
        case 7:
            // Garbage that starts with a byte no JSON text can start with.
            let first = random.pick([
                UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "@"), UInt8(ascii: "'"), 0xFF,
                0x00,
            ])
            let rest = (0..<random.int(0...300)).map { _ -> UInt8 in
                let byte = random.byte()
                return byte == UInt8(ascii: "\n") ? UInt8(ascii: " ") : byte
            }
            return FuzzLine(bytes: [first] + rest, expectation: parseError, kind: "random bytes")
        case 8:
            // Not JSON, though close to it.
            let text = random.pick([
                "", " ", "\t \t", "{'jsonrpc':'2.0','id':1,'method':'version'}", #"{"jsonrpc":"2.0","id":1,"method":"version",}"#,
                #"{"jsonrpc":"2.0","id":01,"method":"version"}"#, #"{"jsonrpc":"2.0","id":+1,"method":"version"}"#,
                #"{"jsonrpc":"2.0","id":.5,"method":"version"}"#, #"{"jsonrpc":"2.0","id":1.,"method":"version"}"#,
                #"{"jsonrpc":"2.0","id":0x10,"method":"version"}"#, #"{"jsonrpc":"2.0","id":NaN,"method":"version"}"#,
                #"{"jsonrpc":"2.0","id":Infinity,"method":"version"}"#, #"{"jsonrpc":"2.0","id":-,"method":"version"}"#,
                #"{"jsonrpc":"2.0","id":1e,"method":"version"}"#, #"{"jsonrpc":"2.0","id":1,"method":"vers\xion"}"#,
                #"{"jsonrpc":"2.0","id":1,"method":"\u12"}"#, #"{"jsonrpc":"2.0","id":1,"method":"version"]"#,
                #"{jsonrpc:"2.0",id:1,method:"version"}"#, #"{"jsonrpc":"2.0","id":1,"method":"version"}}"#,
                #"{"jsonrpc" "2.0","id":1,"method":"version"}"#, #"[{"jsonrpc":"2.0","id":1,"method":"version"},]"#,
                #"{"jsonrpc":"2.0","id":1,"method":"version","params":{"a":tru}}"#,
                #"{"jsonrpc":"2.0","id":1,"method":"version","params":nul}"#,
                "[", "{", "\"", "\"\\", "[[[[", "{\"a\":[}",
            ])
            return FuzzLine(bytes: Array(text.utf8), expectation: parseError, kind: "almost JSON")
        default:
            // Unbalanced nesting (far below the line limit): never valid, however deep.
            let text: [UInt8] =
                random.chance(0.5)
                ? [UInt8](repeating: UInt8(ascii: "["), count: random.int(1...60_000))
                : Array(String(repeating: "{\"a\":", count: random.int(1...12_000)).utf8)
            return FuzzLine(bytes: text, expectation: parseError, kind: "unbalanced nesting")
        }
    }

    /// Where to insert a byte: right after an opening or inner position of a string (inside one),
    /// or before a structural character (between tokens).
    private mutating func insertionPoint(in bytes: [UInt8], insideString: Bool) -> Int {
        let quote = UInt8(ascii: "\"")
        if insideString {
            // After any quote that opens a string: the byte lands inside that string (or, after a
            // closing quote, between tokens: equally invalid for the bytes inserted here).
            let quotes = bytes.indices.filter { bytes[$0] == quote }
            return random.pick(quotes) + 1
        }
        let structural = bytes.indices.filter {
            [UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "}")].contains(bytes[$0])
        }
        return random.pick(structural)
    }

    /// A well-formed line that needs no solo connection: a request, a notification, a batch, or
    /// JSON that is not a request.
    mutating func line() -> FuzzLine {
        let roll = random.int(0...99)
        switch roll {
        case 0..<45:
            let (text, reply) = requestWithID()
            return FuzzLine(bytes: Array(text.utf8), expectation: .single(reply), kind: "request")
        case 45..<55:
            return FuzzLine(bytes: Array(notification().utf8), expectation: .nothing, kind: "notification")
        case 55..<62:
            return batch(count: random.int(1...12))
        case 62..<64:
            return batch(count: random.int(100...600))
        case 64..<67:
            // A batch of notifications only: no reply at all.
            let texts = (0..<random.int(1...20)).map { _ in notification() }
            return FuzzLine(
                bytes: Array(("[" + texts.joined(separator: ",") + "]").utf8), expectation: .nothing, kind: "batch of notifications")
        case 67..<70:
            let text = random.pick(["[]", "[ ]", " [\t] "])
            return FuzzLine(bytes: Array(text.utf8), expectation: .single(.error(.null, -32600)), kind: "empty batch")
        case 70..<73:
            // Valid JSON that is no request object.
            let text = random.pick([
                "1", "-0", "\"version\"", "null", "true", "false", "1e300", "{}", #"{"jsonrpc":"2.0"}"#, #"{"method":"version"}"#,
            ])
            return FuzzLine(bytes: Array(text.utf8), expectation: .single(.error(.null, -32600)), kind: "not a request")
        case 73..<78:
            // Nesting the parser must take: a batch whose only element is an array (not a request).
            let depth = random.int(2...16)
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            return FuzzLine(bytes: Array(text.utf8), expectation: .batch([.error(.null, -32600)]), kind: "nesting")
        default:
            return parseErrorLine()
        }
    }
}
