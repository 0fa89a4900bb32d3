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
        let body =
            "<html>\r\n<head><title>\(title)</title></head>\r\n<body>\r\n<center><h1>\(title)</h1></center>\r\n"
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

    /// The answer of `service` for a fault set through `/_faults` that is answered at once (a status
    /// or not-json).
    static func fault(status: Int, retryAfter: Int?, service: WeatherProviderName = .openWeatherMap) -> ReplayResponse {
        var response = failure(.status(status), retryAfter: nil, service: service)
        if let retryAfter { response.extraHeaders.append(("Retry-After", String(retryAfter))) }
        return response
    }

    /// The answer of `service` for `--fail CITY=<outcome>`.
    static func failure(
        _ outcome: FailRule.Outcome, retryAfter: Int?, service: WeatherProviderName = .openWeatherMap
    ) -> ReplayResponse {
        if service == .openMeteo { return openMeteoFailure(outcome, retryAfter: retryAfter) }
        return switch outcome {
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

// Open-Meteo's answers (its API is a Vapor application behind nginx): errors are JSON objects
// `{"error":true,"reason":…}`, but for the proxy's 5xx pages.
extension ReplayResponse {
    static func openMeteoError(_ status: Int, _ reason: String) -> ReplayResponse {
        json(status, JSONValue.object(["error": .bool(true), "reason": .string(reason)]).serialized)
    }

    static let openMeteoInvalidAPIKey = openMeteoError(401, "API key invalid")
    static let openMeteoNotFound = openMeteoError(404, "Not Found")
    static let openMeteoMethodNotAllowed = openMeteoError(405, "Method Not Allowed")
    /// The reason of a `400` fault (set through `/_faults` or `--fail`), which no request caused.
    static let openMeteoFaultReason = "Bad Request (a fault set at owm-replay)"

    static func openMeteoTooManyRequests(retryAfter: Int?) -> ReplayResponse {
        var response = openMeteoError(429, "Minutely API request limit exceeded. Please try again in one minute.")
        if let retryAfter { response.extraHeaders.append(("Retry-After", String(retryAfter))) }
        return response
    }

    /// Open-Meteo's answer for `--fail` and for the status faults: 401 its bad key, 429 its limit,
    /// 500 Vapor's internal error, another 5xx the proxy's HTML page, any other status JSON with the
    /// status's reason phrase (400 with `openMeteoFaultReason`).
    static func openMeteoFailure(_ outcome: FailRule.Outcome, retryAfter: Int?) -> ReplayResponse {
        switch outcome {
        case .garbage: garbage
        case .status(400): openMeteoError(400, openMeteoFaultReason)
        case .status(401): openMeteoInvalidAPIKey
        case .status(429): openMeteoTooManyRequests(retryAfter: retryAfter)
        case .status(500): openMeteoError(500, "Internal Server Error")
        case .status(let status) where status >= 500: proxyError(status)
        case .status(let status): openMeteoError(status, reasonPhrase(status))
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
