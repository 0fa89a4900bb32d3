import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("JSON writer")
struct JSONWriterTests {
    @Test(
        "compact text round-trips through the parser byte for byte",
        arguments: [
            #"{"type":"Feature","id":"owm:2643743","n":[1,-2,8.94,0.5,true,false,null],"o":{}}"#,
            #"[[],{},"",[{"a":[{"b":null}]}]]"#,
            #""São Paulo ☁ 😀""#,
            #"{"z":{"y":{"x":1}},"a":"\n\t\"\\"}"#,
        ])
    func roundTrip(_ text: String) throws {
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value.serialized == text)
        #expect(try JSONValue.parse(value.serializedBytes) == value)
    }

    @Test("doubles are written in their shortest form: 8.94 stays 8.94")
    func shortestDoubles() {
        #expect(JSONValue.double(8.94).serialized == "8.94")
        #expect(JSONValue.double(-0.1257).serialized == "-0.1257")
        #expect(JSONValue.double(51.5085).serialized == "51.5085")
        #expect(JSONValue.double(0.1 + 0.2).serialized == "0.30000000000000004")
    }

    @Test("an integral double is written without fraction: 90.0 is 90")
    func integralDoubles() {
        #expect(JSONValue.double(90.0).serialized == "90")
        #expect(JSONValue.double(-3.0).serialized == "-3")
        #expect(JSONValue.double(0).serialized == "0")
    }

    @Test("a huge double is still valid JSON")
    func hugeDouble() throws {
        let text = JSONValue.double(1e20).serialized
        #expect(try JSONValue.parse(Array(text.utf8)).doubleValue == 1e20)
    }

    @Test("NaN and infinities are written as null")
    func nonFinite() {
        #expect(JSONValue.double(.nan).serialized == "null")
        #expect(JSONValue.double(.infinity).serialized == "null")
        #expect(JSONValue.double(-.infinity).serialized == "null")
        #expect(JSONValue.number(.nan) == .null)
        #expect(JSONValue.number(nil) == .null)
    }

    @Test("control characters are escaped; the output has no raw newline")
    func escapesControlCharacters() {
        #expect(JSONValue.string("a\u{0}b\u{1}c\u{1F}d").serialized == #""a\u0000b\u0001c\u001fd""#)
        #expect(JSONValue.string("\n\r\t\u{08}\u{0C}").serialized == #""\n\r\t\u0008\u000c""#)
        #expect(JSONValue.string("\"\\").serialized == #""\"\\""#)
        #expect(JSONValue.string("line\u{2028}sep\u{2029}").serialized == #""line\u2028sep\u2029""#)
        let written = JSONValue.object(["k\n": .string("v\r\n")]).serialized
        #expect(!written.contains("\n") && !written.contains("\r"))
    }

    @Test("non-ASCII text is written as UTF-8, not escaped")
    func unicodeAsIs() {
        #expect(JSONValue.string("☁ São").serialized == "\"☁ São\"")
    }

    @Test("members are written in insertion order; removing one keeps the others' order")
    func writtenOrder() {
        var object: JSONObject = ["type": "FeatureCollection", "seq": .integer(1), "focus": .null]
        object["features"] = .array([])
        object["seq"] = .integer(2)
        #expect(JSONValue.object(object).serialized == #"{"type":"FeatureCollection","seq":2,"focus":null,"features":[]}"#)
        object["seq"] = nil
        #expect(JSONValue.object(object).serialized == #"{"type":"FeatureCollection","focus":null,"features":[]}"#)
    }

    @Test("objects are equal, and hash alike, with the same members in any order; a value or a member more makes them differ")
    func equalInAnyOrder() {
        let a: JSONObject = ["a": .integer(1), "b": "x", "c": .object(["d": .null])]
        let b: JSONObject = ["c": .object(["d": .null]), "a": .integer(1), "b": "x"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([JSONValue.object(a), .object(b)]).count == 1)
        #expect(a != ["a": .integer(1), "b": "y", "c": .object(["d": .null])])
        var more = b
        more["e"] = .integer(2)
        #expect(a != more)
        #expect(more != a)
    }

    @Test("an object of many members (looked up through a table past 16): members found, replaced in place, removed, in order")
    func manyMembers() throws {
        var object = JSONObject()
        for i in 0..<40 { object["k\(i)"] = .integer(Int64(i)) }
        object["k3"] = "three"
        object["k0"] = nil
        object["k39"] = nil
        object["k40"] = .integer(40)
        #expect(object.count == 39)
        #expect(object["k3"] == "three")
        #expect(object["k0"] == nil)
        #expect(object["k20"] == .integer(20))
        #expect(object["k40"] == .integer(40))
        #expect(object.keys == ["k1", "k2", "k3"] + (4..<39).map { "k\($0)" } + ["k40"])
        var reversed = JSONObject()
        for member in object.members.reversed() { reversed[member.key] = member.value }
        #expect(reversed == object)
        #expect(reversed.hashValue == object.hashValue)
        // A duplicate member in the text: the last value, at the first one's place.
        let parsed = try JSONValue.parse(Array(#"{"a":1,"b":2,"a":3}"#.utf8))
        #expect(parsed.serialized == #"{"a":3,"b":2}"#)
    }

    @Test("a reply or notification made from its result's or params' text is the same line as one made from the value")
    func envelopeTexts() {
        let params: JSONValue = .object(["seq": .integer(4), "focus": .null, "name": "a \"quoted\" ünï"])
        for method in ["overlays", "overlays.diff", #"odd "name""#] {
            #expect(
                RPCMessage.notification(method: method, text: params.serialized) == RPCMessage.notification(method: method, params: params))
        }
        for id: JSONValue in [.integer(7), "req-7", .null] {
            #expect(RPCMessage.result(id: id, text: params.serialized) == RPCMessage.result(id: id, params).serialized)
        }
    }
}
