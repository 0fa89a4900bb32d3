import NIOCore
import NIOHTTP1
import WeatherCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /owntracks`: the OwnTracks app's HTTP mode. 404 while `owntracks.http` is off, 405 on a
/// read-only listener (as every write), 403 with an `Origin` that is not the page's, 400 without
/// the user and device (`X-Limit-U`/`X-Limit-D`, or the recorder's `?u=&d=`), else 200 `[]`, for a
/// payload that was dropped too (so the app does not send it again for ever). The payload is read
/// on the service's actor, never on an event loop (parsing and opening one takes microseconds).
struct OwnTracksRoute: Sendable {
    static let path = "/owntracks"

    let service: OwnTracksService?

    /// Whether `head` is for this route.
    static func handles(_ head: HTTPRequestHead) -> Bool {
        head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == Substring(path)
    }

    /// The answer to a request for `/owntracks`; `body` nil: it was larger than ``OwnTracksPayload/maxBytes``.
    func respond(
        to head: HTTPRequestHead, body: [UInt8]?, enabled: Bool, readOnly: Bool, originAccepted: Bool
    ) async -> WebResponse {
        guard enabled, let service else { return .text(.notFound, "not found: OwnTracks HTTP mode is off (owntracks.http)\n") }
        guard head.method == .POST else {
            var response = WebResponse.text(.methodNotAllowed, "method not allowed: OwnTracks HTTP mode takes POST\n")
            response.headers = [("Allow", "POST")]
            return response
        }
        if readOnly {
            var response = WebResponse.text(.methodNotAllowed, "method not allowed: this listener is read-only (web.read_only)\n")
            response.headers = [("Allow", "GET, HEAD")]
            return response
        }
        guard originAccepted else { return .text(.forbidden, "forbidden: a page of another origin\n") }
        guard let (user, device) = Self.sender(head) else {
            return .text(.badRequest, "bad request: no user and device (X-Limit-U and X-Limit-D, or ?u=USER&d=DEVICE)\n")
        }
        guard let body else { return .text(.payloadTooLarge, "payload too large: more than \(OwnTracksPayload.maxBytes) bytes\n") }
        await service.receive(body, user: user, device: device, via: .http)
        return .json(.array([]))
    }

    /// The user and device: the app's headers, else the query's `u` and `d`; each one topic level.
    static func sender(_ head: HTTPRequestHead) -> (user: String, device: String)? {
        var user = head.headers.first(name: "X-Limit-U")
        var device = head.headers.first(name: "X-Limit-D")
        if user == nil || device == nil, let items = URLComponents(string: head.uri)?.queryItems {
            user = user ?? items.first { $0.name == "u" }?.value
            device = device ?? items.first { $0.name == "d" }?.value
        }
        guard let user, let device, isLevel(user), isLevel(device) else { return nil }
        return (user, device)
    }

    /// One level of a topic: not empty, at most 128 bytes, no `/`, `+`, `#` or control characters.
    private static func isLevel(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && !text.unicodeScalars.contains { "/+#".unicodeScalars.contains($0) || $0.properties.generalCategory == .control }
    }
}
