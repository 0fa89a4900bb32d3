import WeatherCore

/// One HTTP answer of the replay, independent of the network layer.
struct ReplayResponse: Sendable {
    /// How the body goes out (faults set through `/_faults` change it).
    enum Delivery: Sendable, Equatable {
        /// All of `body` at once.
        case whole
        /// `body` in pieces of `bytesPerSecond` bytes, one a second.
        case drip(bytesPerSecond: Int)
        /// Instead of `body`, a JSON object of exactly `bytes` bytes, streamed in pieces; with
        /// `chunked`, without a `Content-Length`.
        case filler(bytes: Int, chunked: Bool)
        /// No answer: the client went away (or the server is stopping); the connection is closed.
        case abandoned
    }

    var status: Int
    var contentType: String
    var body: String
    var extraHeaders: [(name: String, value: String)] = []
    var delivery = Delivery.whole

    /// The length of the body that goes out (its `Content-Length`).
    var contentLength: Int {
        if case .filler(let bytes, _) = delivery { return bytes }
        return body.utf8.count
    }

    static func json(_ status: Int, _ body: String) -> ReplayResponse {
        ReplayResponse(status: status, contentType: "application/json; charset=utf-8", body: body)
    }

    static func weather(_ body: JSONObject) -> ReplayResponse {
        .json(200, JSONValue.object(body).serialized)
    }

    // Error bodies exactly as OpenWeatherMap sends them (see Tests/Fixtures/owm/errors.md).
    static let cityNotFound = json(404, #"{"cod":"404","message":"city not found"}"#)
    static let nothingToGeocode = json(400, #"{"cod":"400","message":"Nothing to geocode"}"#)
    static let wrongLatitude = json(400, #"{"cod":"400","message":"wrong latitude"}"#)
    static let wrongLongitude = json(400, #"{"cod":"400","message":"wrong longitude"}"#)
    /// A geocoding `limit` that is not a whole number of at least 1 (made up in OpenWeatherMap's style).
    static let wrongLimit = json(400, #"{"cod":"400","message":"wrong limit"}"#)
    static let invalidAPIKey = json(
        401,
        #"{"cod":401, "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}"#
    )
    static let notFound = json(404, #"{"cod":"404","message":"Internal error"}"#)
    static let methodNotAllowed = json(405, #"{"cod":"405","message":"Method Not Allowed"}"#)

    static func tooManyRequests(retryAfter: Int?) -> ReplayResponse {
        var response = json(
            429,
            #"{"cod":429,"message":"Your account is temporary blocked due to exceeding of requests limitation of your subscription type. Please choose the proper subscription http://openweathermap.org/price"}"#
        )
        if let retryAfter { response.extraHeaders.append(("Retry-After", String(retryAfter))) }
        return response
    }

    /// The HTML error page of the nginx/openresty proxy in front of the API (not JSON).
    static func proxyError(_ status: Int) -> ReplayResponse {
        let title = "\(status) \(reasonPhrase(status))"
        let body = "<html>\r\n<head><title>\(title)</title></head>\r\n<body>\r\n<center><h1>\(title)</h1></center>\r\n"
            + "<hr><center>openresty</center>\r\n</body>\r\n</html>\r\n"
        return ReplayResponse(status: status, contentType: "text/html", body: body)
    }

    static let garbage = ReplayResponse(status: 200, contentType: "text/html", body: "<html>oops</html>")

    static let abandoned = ReplayResponse(status: 0, contentType: "", body: "", delivery: .abandoned)

    /// A 200 answer whose body is a JSON object of exactly `bytes` (at least 32) bytes.
    static func huge(bytes: Int, chunked: Bool) -> ReplayResponse {
        ReplayResponse(
            status: 200, contentType: "application/json; charset=utf-8", body: "",
            delivery: .filler(bytes: bytes, chunked: chunked))
    }

    /// A 400 answer to a `/_faults` request that cannot be carried out.
    static func badFaultRequest(_ error: FaultError) -> ReplayResponse {
        json(400, JSONValue.object(["cod": "400", "message": .string(error.description)]).serialized)
    }

    /// The answer for a fault set through `/_faults` that is answered at once (a status or not-json).
    static func fault(status: Int, retryAfter: Int?) -> ReplayResponse {
        var response = failure(.status(status), retryAfter: nil)
        if let retryAfter { response.extraHeaders.append(("Retry-After", String(retryAfter))) }
        return response
    }

    /// The answer for `--fail CITY=<outcome>`.
    static func failure(_ outcome: FailRule.Outcome, retryAfter: Int?) -> ReplayResponse {
        switch outcome {
        case .garbage: garbage
        case .status(401): invalidAPIKey
        case .status(404): cityNotFound
        case .status(429): tooManyRequests(retryAfter: retryAfter)
        case .status(let status) where status >= 500: proxyError(status)
        case .status(let status):
            ReplayResponse(status: status, contentType: "text/plain", body: "\(status) \(reasonPhrase(status))\n")
        }
    }
}

/// The reason phrase of the common statuses.
func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Temporarily Unavailable"
    case 504: "Gateway Time-out"
    default: "Error"
    }
}
