import WeatherCore

/// A fault set at run time through `POST /_faults`: how weather requests for a city are answered
/// until it is cleared.
enum Fault: Sendable, Equatable {
    /// An HTTP error status with the body the service (or its proxy) sends, and for any status a
    /// `Retry-After` header when `retryAfter` is set.
    case status(Int, retryAfter: Int?)
    /// No answer at all: the request waits until the fault is cleared (then it is answered as the
    /// rules then say), or the client goes away, or the server stops.
    case hang
    /// Status 200 with a body that is not JSON.
    case notJSON
    /// Status 200 with a JSON body of exactly `bytes` bytes, streamed in pieces, never held in
    /// memory at once; announced in `Content-Length`, or with `chunked` sent without it (chunked
    /// transfer coding), so the client learns its size only by reading it.
    case huge(bytes: Int, chunked: Bool = false)
    /// The answer the request would get otherwise, its body sent `bytesPerSecond` bytes at a time,
    /// one piece a second.
    case drip(bytesPerSecond: Int)

    static let defaultHugeBytes = 10 * 1024 * 1024
    static let hugeBytesRange = 32...(1 << 30)
    static let defaultDripRate = 4

    /// Reads a fault from the parameters of `POST /_faults`: `fault=STATUS|hang|not-json|huge|drip`,
    /// with `retry_after=SECONDS` (for a status), `bytes=N` and `chunked` (huge) or `rate=N` (drip).
    /// `city=` and `service=` (which requests it is for) are read by the caller.
    init(parameters target: RequestTarget) throws(FaultError) {
        guard let kind = target["fault"]?.lowercased(), !kind.isEmpty else {
            throw FaultError("fault= is missing: a status (e.g. 429), hang, not-json, huge or drip")
        }
        let allowed: Set<String>
        switch kind {
        case "hang":
            self = .hang
            allowed = []
        case "not-json", "garbage":
            self = .notJSON
            allowed = []
        case "huge":
            let bytes = try Self.integer(target, "bytes", in: Self.hugeBytesRange) ?? Self.defaultHugeBytes
            let chunked: Bool
            switch target["chunked"]?.lowercased() {
            case nil, "0", "false": chunked = false
            case "", "1", "true": chunked = true
            case let other?: throw FaultError("chunked=\(other): give chunked, chunked=1 or chunked=0")
            }
            self = .huge(bytes: bytes, chunked: chunked)
            allowed = ["bytes", "chunked"]
        case "drip":
            let rate = try Self.integer(target, "rate", in: 1...(1 << 20)) ?? Self.defaultDripRate
            self = .drip(bytesPerSecond: rate)
            allowed = ["rate"]
        default:
            guard let status = Int(kind), (100...599).contains(status), status != 200 else {
                throw FaultError("unknown fault \(kind): a status 100...599 other than 200, hang, not-json, huge or drip")
            }
            self = .status(status, retryAfter: try Self.integer(target, "retry_after", in: 0...86_400))
            allowed = ["retry_after"]
        }
        let known = allowed.union(["city", "service", "fault"])
        if let unknown = target.parameters.first(where: { !known.contains($0.name) }) {
            throw FaultError("\(unknown.name)= does not go with fault=\(kind)")
        }
    }

    private static func integer(_ target: RequestTarget, _ name: String, in range: ClosedRange<Int>) throws(FaultError) -> Int? {
        guard let text = target[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw FaultError("\(name)=\(text) is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The fault as listed by `GET /_faults`, in the parameters that set it.
    var json: JSONObject {
        switch self {
        case .status(let status, let retryAfter):
            var object: JSONObject = ["fault": .string(String(status))]
            if let retryAfter { object["retry_after"] = .integer(Int64(retryAfter)) }
            return object
        case .hang: return ["fault": "hang"]
        case .notJSON: return ["fault": "not-json"]
        case .huge(let bytes, let chunked):
            var object: JSONObject = ["fault": "huge", "bytes": .integer(Int64(bytes))]
            if chunked { object["chunked"] = .bool(true) }
            return object
        case .drip(let rate): return ["fault": "drip", "rate": .integer(Int64(rate))]
        }
    }
}

/// A `/_faults` request that cannot be carried out; answered with status 400 and the message.
struct FaultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
