import Testing
import WeatherCore

@testable import owm_replay

@Suite("Fault")
struct FaultTests {
    static func fault(_ query: String) throws -> Fault {
        try Fault(parameters: RequestTarget("/_faults?" + query))
    }

    @Test("a status, with Retry-After or without")
    func status() throws {
        #expect(try Self.fault("city=Paris&fault=429&retry_after=2") == .status(429, retryAfter: 2))
        #expect(try Self.fault("city=Paris&fault=429") == .status(429, retryAfter: nil))
        #expect(try Self.fault("city=*&fault=503") == .status(503, retryAfter: nil))
    }

    @Test("hang, not-json (or garbage), huge and drip, with their defaults")
    func kinds() throws {
        #expect(try Self.fault("city=Paris&fault=hang") == .hang)
        #expect(try Self.fault("city=Paris&fault=not-json") == .notJSON)
        #expect(try Self.fault("city=Paris&fault=GARBAGE") == .notJSON)
        #expect(try Self.fault("city=Paris&fault=huge") == .huge(bytes: 10 * 1024 * 1024))
        #expect(try Self.fault("city=Paris&fault=huge&bytes=4096") == .huge(bytes: 4096))
        #expect(try Self.fault("city=Paris&fault=huge&chunked") == .huge(bytes: 10 * 1024 * 1024, chunked: true))
        #expect(try Self.fault("city=Paris&fault=huge&bytes=64&chunked=1") == .huge(bytes: 64, chunked: true))
        #expect(try Self.fault("city=Paris&fault=huge&chunked=0") == .huge(bytes: 10 * 1024 * 1024, chunked: false))
        #expect(try Self.fault("city=Paris&fault=drip") == .drip(bytesPerSecond: 4))
        #expect(try Self.fault("city=Paris&fault=drip&rate=100") == .drip(bytesPerSecond: 100))
    }

    @Test(
        "a missing or unknown fault, a bad number, or a parameter of another kind is refused",
        arguments: [
            "city=Paris", "city=Paris&fault=", "city=Paris&fault=boom", "city=Paris&fault=200", "city=Paris&fault=99",
            "city=Paris&fault=600", "city=Paris&fault=429&retry_after=-1", "city=Paris&fault=429&retry_after=soon",
            "city=Paris&fault=huge&bytes=31", "city=Paris&fault=huge&bytes=2147483648", "city=Paris&fault=drip&rate=0",
            "city=Paris&fault=hang&retry_after=1", "city=Paris&fault=drip&bytes=10", "city=Paris&fault=404&delay=1",
            "city=Paris&fault=huge&chunked=maybe", "city=Paris&fault=drip&chunked",
        ])
    func refused(query: String) throws {
        #expect(throws: FaultError.self, "\(query)") { try Self.fault(query) }
    }

    @Test("each fault is listed in the parameters that set it")
    func listed() throws {
        for query in [
            "fault=429&retry_after=2", "fault=500", "fault=hang", "fault=not-json", "fault=huge&bytes=4096",
            "fault=huge&bytes=4096&chunked=true", "fault=drip&rate=7",
        ] {
            let fault = try Self.fault("city=X&" + query)
            let listed = fault.json.members.map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized)" }.joined(separator: "&")
            #expect(listed == query)
        }
    }
}
