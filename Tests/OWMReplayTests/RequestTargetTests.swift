import Testing

@testable import owm_replay

@Suite("RequestTarget")
struct RequestTargetTests {
    @Test("the path and the query parameters are split at the first ?")
    func pathAndQuery() {
        let target = RequestTarget("/data/2.5/weather?q=London&units=metric&appid=k?ey")
        #expect(target.path == "/data/2.5/weather")
        #expect(target.parameters.map(\.name) == ["q", "units", "appid"])
        #expect(target["q"] == "London")
        #expect(target["units"] == "metric")
        #expect(target["appid"] == "k?ey")
    }

    @Test("a target without a query has no parameters")
    func noQuery() {
        let target = RequestTarget("/_stats")
        #expect(target.path == "/_stats")
        #expect(target.parameters.isEmpty)
        #expect(target["q"] == nil)
    }

    @Test("+ and %20 in the query are spaces")
    func spaces() {
        let target = RequestTarget("/w?q=New+York&r=New%20York")
        #expect(target["q"] == "New York")
        #expect(target["r"] == "New York")
    }

    @Test("+ in the path stays a plus, %20 is a space")
    func pathPlus() {
        #expect(RequestTarget("/a+b%20c").path == "/a+b c")
    }

    @Test("%XX escapes are UTF-8 bytes, in either case of hex digit")
    func utf8Escapes() {
        #expect(RequestTarget("/w?q=Reykjav%C3%ADk").parameters.first?.value == "Reykjavík")
        #expect(RequestTarget("/w?q=Reykjav%c3%adk")["q"] == "Reykjavík")
    }

    @Test("escapes decode in names too, and an escaped & or = is data")
    func escapedNamesAndDelimiters() {
        let target = RequestTarget("/w?%71=a%26b%3Dc")
        #expect(target["q"] == "a&b=c")
    }

    @Test("a % not followed by two hex digits is kept as it is")
    func invalidEscapes() {
        #expect(RequestTarget("/w?q=100%zz")["q"] == "100%zz")
        #expect(RequestTarget("/w?q=50%")["q"] == "50%")
        #expect(RequestTarget("/w?q=%4")["q"] == "%4")
    }

    @Test("bytes that are not UTF-8 become U+FFFD")
    func invalidUTF8() {
        #expect(RequestTarget("/w?q=a%FFb")["q"] == "a\u{FFFD}b")
    }

    @Test("parameter names are case-sensitive")
    func caseSensitiveNames() {
        let target = RequestTarget("/w?Q=London&APPID=x")
        #expect(target["q"] == nil)
        #expect(target["appid"] == nil)
        #expect(target["Q"] == "London")
    }

    @Test("the first of repeated parameters counts")
    func firstValueWins() {
        #expect(RequestTarget("/w?units=imperial&units=metric")["units"] == "imperial")
    }

    @Test("a parameter without = or with an empty value has the empty value")
    func emptyValues() {
        let target = RequestTarget("/w?q&lat=&lon==1")
        #expect(target["q"] == "")
        #expect(target["lat"] == "")
        #expect(target["lon"] == "=1")
    }

    @Test("empty pieces between & are skipped")
    func emptyPieces() {
        #expect(RequestTarget("/w?&&q=Paris&").parameters.map(\.name) == ["q"])
    }

    @Test("the redacted target hides the appid value whatever the case of its name")
    func redacted() {
        #expect(
            RequestTarget("/data/2.5/weather?q=Paris&appid=secret&units=metric").redacted
                == "/data/2.5/weather?q=Paris&appid=<redacted>&units=metric")
        #expect(RequestTarget("/w?APPID=secret").redacted == "/w?APPID=<redacted>")
    }

    @Test("the redacted target keeps everything else as it was sent")
    func redactedRaw() {
        #expect(RequestTarget("/w?q=New+York%2C").redacted == "/w?q=New+York%2C")
        #expect(RequestTarget("/_stats").redacted == "/_stats")
    }
}
