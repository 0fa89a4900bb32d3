import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file in a fresh temporary directory, removed at the end of the test.
private final class TemporaryFile {
    let directory: String
    let path: String

    init(name: String = "weatherd.toml") throws {
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("weatherd-config-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/" + name
    }

    func write(_ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

@Suite("Configuration: bytes that are not UTF-8")
struct ConfigUTF8Tests {
    private func problem(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            let config = try ConfigLoader.parse(bytes, file: configTestFile)
            Issue.record("expected a configuration error, parsed \(config)", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.problems.count == 1, "\(error)", sourceLocation: sourceLocation)
            return error.description
        }
    }

    private static func message(_ byte: String) -> String {
        "expected UTF-8 text, found the byte \(byte), which begins no valid UTF-8 sequence"
    }

    @Test("a byte that is never UTF-8 is a syntax error at its line and column")
    func invalidByte() {
        // Line 3: `refresh = "1` is 12 characters, the bad byte is the 13th.
        let bytes = Array("cities = []\n# fine\nrefresh = \"1".utf8) + [0xFF] + Array("m\"\n".utf8)
        #expect(problem(bytes) == "test.toml:3:13: " + Self.message("0xFF"))
    }

    @Test("columns count characters (Unicode scalars) before the bad byte, not bytes")
    func columnsCountScalars() {
        // `cities = ["東京`: 13 scalars (19 bytes) before the bad byte.
        let bytes = Array("refresh = \"1m\"\ncities = [\"東京".utf8) + [0xC0, 0xAF] + Array("\"]\n".utf8)
        #expect(problem(bytes) == "test.toml:2:14: " + Self.message("0xC0"))
    }

    @Test("the column is in the unit of toml++'s own syntax errors")
    func sameUnitAsTOMLErrors() throws {
        // The same place, once a TOML error (after the closing bracket) and once a bad byte there.
        let toml = configProblems("cities = [\"東京\"] x\n")
        try #require(toml.count == 1)
        let utf8 = problem(Array("cities = [\"東京\"] ".utf8) + [0xFE] + [0x0A])
        #expect(toml[0].line == 1 && toml[0].column == 17, "\(toml[0])")
        #expect(utf8 == "test.toml:1:17: " + Self.message("0xFE"))
    }

    @Test(
        "an invalid sequence is reported at its first byte",
        arguments: [
            ([0xC3, 0x22] as [UInt8], "0xC3"),  // a lead byte without its continuation
            ([0xE2, 0x82, 0x22], "0xE2"),  // a 3-byte sequence cut short
            ([0xED, 0xA0, 0x80, 0x22], "0xED"),  // a UTF-16 surrogate written as UTF-8
            ([0xF4, 0x90, 0x80, 0x80, 0x22], "0xF4"),  // beyond U+10FFFF
            ([0x80, 0x22], "0x80"),  // a lone continuation byte
            ([0xE2, 0x82], "0xE2"),  // cut short by the end of the file
        ])
    func invalidSequences(bytes: [UInt8], byte: String) {
        #expect(problem(Array("a = \"é".utf8) + bytes) == "test.toml:1:7: " + Self.message(byte))
    }

    @Test("a byte order mark is not counted in the first line's columns, as toml++ skips it")
    func byteOrderMark() throws {
        #expect(problem([0xEF, 0xBB, 0xBF] + Array("a".utf8) + [0xFF]) == "test.toml:1:2: " + Self.message("0xFF"))
        #expect(
            try ConfigLoader.parse([0xEF, 0xBB, 0xBF] + Array("refresh = \"1m\"\n".utf8), file: configTestFile).config.refresh
                == .seconds(60))
    }

    @Test("valid UTF-8 bytes parse like the text")
    func validBytes() throws {
        let text = "cities = [\"São Paulo,BR\", \"東京\"]\nrefresh = \"1m\"\n"
        #expect(try ConfigLoader.parse(Array(text.utf8), file: configTestFile).config == parseConfig(text))
    }

    @Test("a null character is placed in Unicode scalars too")
    func nullCharacterColumn() {
        // `e` and a combining accent are one character but two scalars, as toml++ counts them.
        #expect(
            configProblemLines("refresh = \"1m\"\n# e\u{301}\u{0}\n")
                == ["test.toml:2:5: null characters are not allowed in TOML documents"])
    }
}

@Suite("Configuration: reading the file", .timeLimit(.minutes(1)))
struct ConfigReadTests {
    @Test("a file with invalid UTF-8 is a syntax error FILE:LINE:COLUMN, not a read error")
    func loadInvalidUTF8() throws {
        let file = try TemporaryFile()
        let path = try file.write(Array("cities = []\n\n[socket]\npath = \"/tmp/".utf8) + [0xE9] + Array("t.sock\"\n".utf8))
        #expect {
            _ = try ConfigLoader.load(path: path)
        } throws: { error in
            (error as? ConfigError)?.description
                == "\(path):4:14: expected UTF-8 text, found the byte 0xE9, which begins no valid UTF-8 sequence"
        }
    }

    @Test("/dev/null is an empty file: every key has its default")
    func devNull() throws {
        #expect(try ConfigLoader.load(path: "/dev/null") == LoadedConfig())
        #expect(try FileReader.bytes(atPath: "/dev/null") == [])
        #expect(FileReader.text(atPath: "/dev/null") == "")
    }

    @Test("a FIFO is read until its writer closes it")
    func fifo() throws {
        let file = try TemporaryFile()
        try #require(mkfifo(file.path, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
        let path = file.path
        // The writer's open waits for the reader's, and the other way round.
        Thread.detachNewThread {
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.write(Data("refresh = \"2m\"\n".utf8))
            try? handle.close()
        }
        var expected = DaemonConfig()
        expected.refresh = .seconds(120)
        #expect(try ConfigLoader.load(path: path).config == expected)
    }

    @Test("a file of more than a few reads is read whole")
    func largeFile() throws {
        let file = try TemporaryFile()
        let comment = "# " + String(repeating: "x", count: 1000) + "\n"
        let text = String(repeating: comment, count: 300) + "refresh = \"3m\"\n"
        let path = try file.write(Array(text.utf8))
        #expect(try ConfigLoader.load(path: path).config.refresh == .seconds(180))
    }

    @Test("a device that never ends is refused after 1 MiB")
    func endlessDevice() {
        #expect {
            _ = try ConfigLoader.load(path: "/dev/zero")
        } throws: { error in
            (error as? ConfigError)?.description == "/dev/zero: cannot read the configuration file: larger than 1 MiB"
        }
    }

    @Test("a directory cannot be read as the configuration file")
    func directory() throws {
        let file = try TemporaryFile()
        #expect {
            _ = try ConfigLoader.load(path: file.directory)
        } throws: { error in
            (error as? ConfigError)?.description == "\(file.directory): cannot read the configuration file: is a directory"
        }
    }

    @Test("a path through a file is no such file")
    func notADirectory() throws {
        let file = try TemporaryFile()
        let path = try file.write(Array("x".utf8))
        #expect(throws: FileReader.Failure(reason: "no such file")) { try FileReader.bytes(atPath: path + "/weatherd.toml") }
    }

    @Test("a key file is read as text; one that is not UTF-8 gives no text")
    func keyFileText() throws {
        let file = try TemporaryFile(name: "owm-api-key")
        let path = try file.write(Array("key-0123\n".utf8))
        #expect(FileReader.text(atPath: path) == "key-0123\n")
        _ = try file.write([0x6B, 0xFF, 0x0A])
        #expect(FileReader.text(atPath: path) == nil)
        #expect(FileReader.text(atPath: path + ".missing") == nil)
    }
}
