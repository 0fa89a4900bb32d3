import NIOHTTP1
import Testing
import WeatherCore

@testable import TestSupport
@testable import WeatherDaemon

@Suite(.timeLimit(.minutes(1))) struct CurlTransportTests {
    /// Runs `body` against a fresh server and transport, and shuts both down afterwards (the
    /// server first, so that no transfer can hold up the transport's shutdown).
    private func withServer(
        _ reply: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Reply,
        numberOfThreads: Int = 4,
        _ body: (LocalHTTPServer, CurlTransport) async throws -> Void
    ) async throws {
        let server = try await LocalHTTPServer.start(reply)
        let transport = CurlTransport(userAgent: "weatherd/test", numberOfThreads: numberOfThreads)
        do {
            try await body(server, transport)
        } catch {
            try? await server.shutdown()
            await transport.shutdown()
            throw error
        }
        try await server.shutdown()
        await transport.shutdown()
    }

    @Test func returnsStatusHeadersAndBody() async throws {
        try await withServer({ _ in
            .respond(status: 200, headers: [("Retry-After", "120"), ("X-Thing", " a b ")], body: Array("hello".utf8))
        }) { server, transport in
            let response = try await transport.get(server.url("/data/2.5/weather?q=Oslo"), timeout: .seconds(5))
            #expect(response.status == 200)
            #expect(response.body == Array("hello".utf8))
            #expect(response.headers["retry-after"] == "120")
            #expect(response.headers["x-thing"] == "a b")
            #expect(response.headers["content-length"] == "5")

            var requests = server.requests.makeAsyncIterator()
            let request = try #require(await requests.next())
            #expect(request.method == .GET)
            #expect(request.uri == "/data/2.5/weather?q=Oslo")
            #expect(request.headers["user-agent"] == ["weatherd/test"])
            #expect(request.headers["accept-encoding"].first?.contains("gzip") == true)
        }
    }

    @Test(arguments: [404, 500])
    func errorStatusesAreResponses(status: Int) async throws {
        try await withServer({ _ in .respond(status: status, body: Array("nope".utf8)) }) { server, transport in
            let response = try await transport.get(server.url("/x"), timeout: .seconds(5))
            #expect(response.status == status)
            #expect(response.body == Array("nope".utf8))
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        try await withServer({ request in
            request.uri == "/old" ? .respond(status: 302, headers: [("Location", "/new")]) : .respond(status: 200)
        }) { server, transport in
            let response = try await transport.get(server.url("/old"), timeout: .seconds(5))
            #expect(response.status == 302)
            #expect(response.headers["location"] == "/new")
            #expect(server.requestCount == 1)
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await withServer({ _ in .respond(status: 200, body: Array("ok".utf8)) }) { server, transport in
            for _ in 0..<5 {
                let response = try await transport.get(server.url("/data/2.5/weather?q=Oslo"), timeout: .seconds(5))
                #expect(response.status == 200)
            }
            #expect(server.requestCount == 5)
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func concurrentRequestsUseAtMostOneConnectionPerThread() async throws {
        try await withServer({ _ in .respond(status: 200, body: Array("ok".utf8)) }, numberOfThreads: 3) {
            server, transport in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for round in 0..<24 {
                    group.addTask { try await transport.get(server.url("/r\(round)"), timeout: .seconds(5)).status }
                }
                for try await status in group {
                    #expect(status == 200)
                }
            }
            #expect(server.requestCount == 24)
            #expect(server.acceptedConnections <= 3)
        }
    }

    @Test func bodyOverTheCapIsRejected() async throws {
        try await withServer({ request in
            let size = CurlTransport.maxBodyBytes + (request.uri == "/big" ? 1 : 0)
            return .respond(status: 200, body: [UInt8](repeating: 0x61, count: size))
        }) { server, transport in
            let exact = try await transport.get(server.url("/exact"), timeout: .seconds(10))
            #expect(exact.body.count == CurlTransport.maxBodyBytes)

            let error = await #expect(throws: HTTPTransportError.self) {
                _ = try await transport.get(server.url("/big"), timeout: .seconds(10))
            }
            #expect(error?.kind == .other)
            #expect(error?.message.contains("response too large") == true)
        }
    }

    @Test func unansweredRequestTimesOut() async throws {
        // The server never answers: only the request's own timeout ends it (how soon is for make
        // bench, not a test on a busy machine).
        try await withServer({ _ in .never }) { server, transport in
            let error = await #expect(throws: HTTPTransportError.self) {
                _ = try await transport.get(server.url("/data/2.5/weather?appid=secret123"), timeout: .milliseconds(200))
            }
            #expect(error?.kind == .timedOut)
            #expect(error.map { "\($0)".contains("secret123") } == false)
        }
    }

    @Test func closedPortFailsToConnect() async throws {
        let port = try await LocalHTTPServer.closedPort()
        let transport = CurlTransport(userAgent: "weatherd/test")
        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await transport.get("http://127.0.0.1:\(port)/data/2.5/weather?appid=secret123", timeout: .seconds(5))
        }
        await transport.shutdown()
        #expect(error?.kind == .connectionFailed)
        #expect(error.map { "\($0)".contains("secret123") || "\($0)".contains("appid") } == false)
    }

    @Test(arguments: [
        "ftp://127.0.0.1/data/2.5/weather?appid=secret123",
        "http://[::1/data/2.5/weather?appid=secret123",
        "file:///etc/passwd?appid=secret123",
    ])
    func otherFailuresNeverQuoteTheURL(url: String) async throws {
        let transport = CurlTransport(userAgent: "weatherd/test")
        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await transport.get(url, timeout: .seconds(5))
        }
        await transport.shutdown()
        #expect(error?.kind == .other)
        #expect(error?.message.isEmpty == false)
        #expect(error.map { "\($0)".contains("secret123") || "\($0)".contains("appid") } == false)
    }

    @Test func cancellingDuringASlowResponseAbortsPromptly() async throws {
        try await withServer(
            { request in
                request.uri.hasPrefix("/slow") ? .never : .respond(status: 200, body: Array("fast".utf8))
            }, numberOfThreads: 1
        ) { server, transport in
            // The request's own timeout is a day: only the cancellation can end it (the test's time
            // limit fails it otherwise); how soon is for make bench.
            var requests = server.requests.makeAsyncIterator()
            let task = Task { try await transport.get(server.url("/slow?appid=secret123"), timeout: .seconds(86_400)) }
            let arrived = try #require(await requests.next())
            #expect(arrived.uri.hasPrefix("/slow"))

            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }

            // The single worker thread and its handle are free again (the transfer was aborted, or
            // this one would wait behind it for a day).
            let response = try await transport.get(server.url("/fast"), timeout: .seconds(5))
            #expect(response.body == Array("fast".utf8))
        }
    }

    @Test func alreadyCancelledTaskSendsNothing() async throws {
        try await withServer({ _ in .respond(status: 200) }) { server, transport in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.get(server.url("/x"), timeout: .seconds(5))
            }
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(server.acceptedConnections == 0)
            #expect(server.requestCount == 0)
        }
    }

    @Test func requestsAfterShutdownFail() async throws {
        try await withServer({ _ in .respond(status: 200) }) { server, transport in
            let first = try await transport.get(server.url("/x"), timeout: .seconds(5))
            #expect(first.status == 200)
            await transport.shutdown()
            await transport.shutdown()
            let error = await #expect(throws: HTTPTransportError.self) {
                _ = try await transport.get(server.url("/x"), timeout: .seconds(5))
            }
            #expect(error?.kind == .other)
        }
    }

    @Test func onlyTheLastResponsesHeadersAreKept() {
        let state = CurlTransferState(maxBodyBytes: 10, cancellation: CurlCancellation())
        for line in [
            "HTTP/1.1 100 Continue\r\n", "X-Early: 1\r\n", "\r\n", "HTTP/1.1 200 OK\r\n",
            "Retry-After:  30 \r\n", "Content-Type: a:b\r\n", "\r\n",
        ] {
            Array(line.utf8).withUnsafeBytes { state.addHeaderLine($0) }
        }
        #expect(state.headers == ["retry-after": "30", "content-type": "a:b"])
    }

    @Test func timeoutsAreWholePositiveMilliseconds() {
        #expect(CurlTransport.milliseconds(.milliseconds(200)) == 200)
        #expect(CurlTransport.milliseconds(.seconds(2.5)) == 2_500)
        #expect(CurlTransport.milliseconds(.zero) == 1)
        #expect(CurlTransport.milliseconds(.microseconds(300)) == 1)
        #expect(CurlTransport.milliseconds(.seconds(-3)) == 1)
    }
}
