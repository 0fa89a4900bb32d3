import Testing

@testable import WeatherCore

@Suite("web: listen addresses, Host and Origin")
struct WebHostPolicyTests {
    @Test(
        "listen addresses: IPv4, bracketed IPv6, names; anything else is refused",
        arguments: [
            ("127.0.0.1:8080", "127.0.0.1", 8080), ("[::1]:8080", "::1", 8080), ("0.0.0.0:0", "0.0.0.0", 0),
            ("localhost:80", "localhost", 80),
        ])
    func listen(text: String, host: String, port: Int) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.host == host && address.port == port)
        #expect(address.description == text)
    }

    @Test(
        "malformed listen addresses",
        arguments: [
            "", "8080", "127.0.0.1", "127.0.0.1:", "::1:8080", "[::1]", "[::1]8080",
            "127.0.0.1:65536", "127.0.0.1:-1", "a b:80", "host:８０", "[127.0.0.1]:80",
        ])
    func malformed(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test("loopback: 127.x, ::1 and localhost; not 0.0.0.0 or a LAN address")
    func loopback() {
        #expect(
            ListenAddress("127.0.0.1:1")!.isLoopback && ListenAddress("[::1]:1")!.isLoopback && ListenAddress("localhost:1")!.isLoopback)
        #expect(
            !ListenAddress("0.0.0.0:1")!.isLoopback && !ListenAddress("192.168.1.2:1")!.isLoopback && !ListenAddress("[::]:1")!.isLoopback)
    }

    private let policy = WebHostPolicy(listen: ListenAddress("0.0.0.0:8080")!, boundPort: 8080, allowedHosts: ["Weather.Example"])

    @Test("Host: the local names with the port, allowed hosts with any port; nothing else")
    func host() {
        for host in [
            "127.0.0.1:8080", "localhost:8080", "LocalHost:8080", "[::1]:8080", "0.0.0.0:8080", "weather.example", "weather.example:443",
        ] {
            #expect(policy.accepts(host: host), "\(host)")
        }
        for host in [
            nil, "", "localhost", "127.0.0.1:8081", "evil.example:8080", "127.0.0.1:8080@evil", "127.0.0.1:8080/x", "[::1", ":8080",
            "127.0.0.1:x",
        ] {
            #expect(!policy.accepts(host: host), "\(host ?? "nil")")
        }
    }

    @Test("Origin: http:// and an accepted host; https:// only for allowed hosts; none is not a browser")
    func origin() {
        for origin in [nil, "http://127.0.0.1:8080", "http://localhost:8080", "http://weather.example", "https://weather.example"] {
            #expect(policy.accepts(origin: origin), "\(origin ?? "nil")")
        }
        for origin in [
            "null", "http://evil.example", "https://127.0.0.1:8080", "http://127.0.0.1:8081", "file://", "http://127.0.0.1:8080/page",
        ] {
            #expect(!policy.accepts(origin: origin), "\(origin)")
        }
    }
}
