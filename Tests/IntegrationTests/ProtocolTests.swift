import Foundation
import Testing
import WeatherClient
import WeatherCore

@testable import TestSupport

/// The socket protocol's error handling and limits.
@Suite("protocol")
struct ProtocolTests {
    @Test("parse errors, batches, unknown methods; the connection stays usable")
    func errors() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))

        try await daemon.withConnection { connection in
            try await connection.send(#"{"jsonrpc":"2.0","id":7,"method":"version""#)
            let parseError = try #require(try await connection.receive())
            #expect(parseError["error"]?["code"]?.intValue == -32700, "\(parseError.serialized)")
            #expect(parseError["error"]?["data"]?["name"] == "parse_error")
            #expect(parseError["id"] == JSONValue.null)
            #expect(parseError["jsonrpc"] == "2.0")

            let version = try await connection.call("version")
            #expect(version["protocol"]?.intValue == 1)
            #expect(version["version"]?.stringValue?.split(separator: ".").count == 3)

            try await connection.send(
                #"[{"jsonrpc":"2.0","id":1,"method":"version"},{"jsonrpc":"2.0","id":"two","method":"state"},{"jsonrpc":"2.0","method":"version"},{"jsonrpc":"2.0","id":3,"method":"nope"}]"#
            )
            let batch = try #require(try await connection.receive())
            let replies = try #require(batch.arrayValue, "a batch is answered with an array: \(batch.serialized)")
            #expect(replies.count == 3, "no reply to the notification in the batch: \(batch.serialized)")
            #expect(replies.first { $0["id"] == .integer(1) }?["result"]?["protocol"]?.intValue == 1)
            #expect(replies.first { $0["id"] == "two" }?["result"]?["phase"] != nil)
            #expect(replies.first { $0["id"] == .integer(3) }?["error"]?["code"]?.intValue == -32601)

            try await connection.send("[]")
            #expect(try await connection.receive()?["error"]?["code"]?.intValue == -32600)
            try await connection.send(#"{"jsonrpc":"1.0","id":4,"method":"version"}"#)
            let wrongVersion = try await connection.receive()
            #expect(wrongVersion?["error"]?["code"]?.intValue == -32600)
            #expect(wrongVersion?["id"] == .integer(4))

            let unknown = try await remoteError { try await connection.call("bogus") }
            #expect(unknown.code == -32601, "\(unknown.json.serialized)")
            #expect(unknown.name == "method_not_found")
            // locate and region are being built: until then they are unknown methods (-32601);
            // once there, locate with gpsd disabled is gps_disabled and region checks its params.
            let locate = try await remoteError { try await connection.call("locate", ["timeout": .double(1)]) }
            #expect([-32601, -32006].contains(locate.code), "\(locate.json.serialized)")
            if locate.code == -32006 { #expect(locate.name == "gps_disabled") }
            let region = try await remoteError {
                try await connection.call("region", ["center": .object(["lat": .double(91), "lon": .double(0)])])
            }
            #expect([-32601, -32602].contains(region.code), "latitude 91: \(region.json.serialized)")
            let badParams = try await remoteError { try await connection.call("search", ["town": "London"]) }
            #expect(badParams.code == -32602)
            let emptyCity = try await remoteError { try await connection.call("search", ["city": "   "]) }
            #expect(emptyCity.code == -32602)

            #expect(try await connection.call("version")["protocol"]?.intValue == 1, "still usable")
        }
    }

    @Test("an id is echoed exactly as sent: a number of any size or form digit for digit, alone and in a batch")
    func numberIDsEchoedAsSent() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))
        let socket = try RawSocket(path: daemon.socketPath)
        let ids = [
            "18446744073709551616", "-18446744073709551617", "1e400", "0.10", "1.0", "-0",
            "123456789012345678901234567890.5", "1E+2", "42",
        ]

        for id in ids {
            try socket.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"version"}"#)
            let line = try #require(try await socket.readLine())
            #expect(line.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"result":{"version":"#), "\(line)")
        }

        // In a batch, with an error reply among them; the spaces around an id are not part of it.
        let requests =
            ids.map { #"{"jsonrpc":"2.0","id": \#($0) ,"method":"version"}"# }
            + [#"{"jsonrpc":"2.0","id":-1e-400,"method":"nope"}"#]
        try socket.send("[" + requests.joined(separator: ",") + "]")
        let line = try #require(try await socket.readLine())
        let replies = try #require(try JSONValue.parse(Array(line.utf8)).arrayValue, "\(line)")
        #expect(replies.count == ids.count + 1, "\(line)")
        for id in ids {
            #expect(line.contains(#"{"jsonrpc":"2.0","id":\#(id),"result":{"version":"#), "\(id) in \(line)")
        }
        #expect(line.contains(#"{"jsonrpc":"2.0","id":-1e-400,"error":{"code":-32601"#), "\(line)")
    }

    @Test("a string id comes back as the same string, escapes written as the characters they stand for")
    func stringIDsEchoed() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))
        let socket = try RawSocket(path: daemon.socketPath)
        let ids = [#""\u00e9\/\ud83d\ude00""#, #""q\"b\\c\n\t\u0000""#, #""é 東京 \u2028""#, #""""#]
        for id in ids {
            try socket.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"version"}"#)
            let line = try #require(try await socket.readLine())
            #expect(try JSONValue.parse(Array(line.utf8))["id"] == JSONValue.parse(Array(id.utf8)), "\(id) → \(line)")
        }
        try socket.send("[" + ids.map { #"{"jsonrpc":"2.0","id":\#($0),"method":"version"}"# }.joined(separator: ",") + "]")
        let line = try #require(try await socket.readLine())
        let replies = try #require(try JSONValue.parse(Array(line.utf8)).arrayValue, "\(line)")
        #expect(try replies.map { $0["id"] ?? JSONValue.null } == ids.map { try JSONValue.parse(Array($0.utf8)) }, "\(line)")
        #expect(line.contains(#""id":"é/😀""#), "\\u00e9 and \\/ need no escape when written: \(line)")
    }

    @Test("a line over 64 KiB is an invalid request and closes that connection only")
    func oversizedLine() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess.start(DaemonSetup(directory: directory, replay: nil))
        let bystander = try await Watcher.start(socketPath: daemon.socketPath)

        let (reply, end) = try await daemon.withConnection { connection -> (JSONValue?, String) in
            let city = String(repeating: "x", count: 70 * 1024)
            try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"search","params":{"city":""# + city + #""}}"#)
            let reply = try await connection.receive()
            // Then the daemon closes: end of file, or a reset when it did not read all we sent.
            do {
                let next = try await connection.receive()
                return (reply, next.map { "another message: \($0.serialized)" } ?? "closed")
            } catch {
                return (reply, "closed (\(error))")
            }
        }
        #expect(reply?["error"]?["code"]?.intValue == -32600, "\(reply?.serialized ?? "nil")")
        #expect(reply?["id"] == JSONValue.null)
        #expect(end.hasPrefix("closed"), "\(end)")

        // Other clients are served as before.
        #expect(try await daemon.call("version")["protocol"]?.intValue == 1)
        #expect(bystander.inbox.value.ended == false)
    }

    @Test("socket.max_clients: one client too many gets busy (-32007) and is closed")
    func maxClients() async throws {
        let replay = try await ReplayServer.start()
        let directory = try TemporaryDirectory()
        var setup = DaemonSetup(directory: directory, replay: replay)
        setup.maxClients = 2
        let daemon = try await DaemonProcess.start(setup)

        let version = #"{"jsonrpc":"2.0","id":1,"method":"version","params":{}}"#
        let first = try RawSocket(path: daemon.socketPath)
        let second = try RawSocket(path: daemon.socketPath)
        for client in [first, second] {
            try client.send(version)
            #expect(try await client.readLine()?.contains(#""protocol":1"#) == true)
        }

        let third = try RawSocket(path: daemon.socketPath)
        let busyLine = try #require(try await third.readLine())
        let busy = try JSONValue.parse(Array(busyLine.utf8))
        #expect(busy["error"]?["code"]?.intValue == -32007, "\(busyLine)")
        #expect(busy["error"]?["data"]?["name"] == "busy")
        #expect(busy["id"] == JSONValue.null)
        #expect(try await third.readLine() == nil, "the daemon closes the refused connection")

        // Clients see the refusal as the busy error, though the daemon may close before their
        // request is written; weatherctl reports it as the daemon's answer (exit 1).
        for _ in 0..<10 {
            let refused = try await remoteError { try await daemon.call("version") }
            #expect(refused.code == -32007 && refused.name == "busy", "\(refused.json.serialized)")
        }
        let ctl = try await daemon.weatherctl(["state"])
        #expect(ctl.status == 1, "\(ctl)")
        #expect(ctl.stderr.hasPrefix("weatherctl: busy"), "\(ctl)")

        // The first two are still served.
        try second.send(version)
        #expect(try await second.readLine()?.contains(#""protocol":1"#) == true)

        // One leaves; the daemon notices asynchronously, so a newcomer may still be refused for a
        // moment: retry on busy (each try is a round trip) until one is served.
        first.shutdown()
        let socket = daemon.socketPath
        let served = try await withTimeout(safetyDeadline, "a client to be served after one left") {
            while true {
                do {
                    return try await DaemonConnection.with(socketPath: socket) { try await $0.call("search", ["city": "London"]) }
                } catch let error as RemoteError where error.code == -32007 {
                    await Task.yield()
                }
            }
        }
        #expect(served["id"]?.stringValue == Fixtures.londonID)
    }
}
