import Logging
import Testing

@testable import WeatherDaemon

/// `DaemonLogHandler`'s lines: one per event, whatever the message holds.
@Suite struct DaemonLogHandlerTests {
    @Test("a message and its metadata with newlines are written on one line, each newline a space")
    func newlinesBecomeSpaces() {
        let handler = DaemonLogHandler(label: "weatherd", level: .info, environment: ["JOURNAL_STREAM": "8:1"])
        let line = handler.format(level: .warning, message: "first\nsecond\n", metadata: ["why": "a\nb"])
        #expect(line == "<4>first second  why=a b\n")
    }

    @Test("a line without newlines is written as it is, after the timestamp, level and name")
    func plainLine() {
        let handler = DaemonLogHandler(label: "weatherd", level: .info, environment: [:])
        let line = handler.format(level: .info, message: "listening \u{1F326}\r\n", metadata: nil)
        #expect(line.hasSuffix(" info weatherd: listening \u{1F326}\r\n\n"))
        #expect(DaemonLogHandler.oneLine("a\r\nb") == "a\r\nb")  // one Character, not a newline alone, as before
    }
}
