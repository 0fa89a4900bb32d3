import Foundation

/// Where the sun is: enough astronomy for `is_day` (the usual low-precision formulas of the
/// Astronomical Almanac, good to a fraction of a degree).
enum Sun {
    /// The sun's elevation above the horizon, in degrees, at the point at `time` (Unix seconds).
    static func elevation(latitude: Double, longitude: Double, at time: Int) -> Double {
        let radians = Double.pi / 180
        let days = Double(time) / 86400 - 10957.5  // since 2000-01-01 12:00 UTC
        let meanLongitude = 280.460 + 0.9856474 * days
        let meanAnomaly = (357.528 + 0.9856003 * days) * radians
        let eclipticLongitude = (meanLongitude + 1.915 * sin(meanAnomaly) + 0.020 * sin(2 * meanAnomaly)) * radians
        let obliquity = (23.439 - 0.0000004 * days) * radians
        let declination = asin(sin(obliquity) * sin(eclipticLongitude))
        let rightAscension = atan2(cos(obliquity) * sin(eclipticLongitude), cos(eclipticLongitude)) / radians
        let siderealDegrees = (18.697374558 + 24.06570982441908 * days) * 15
        let hourAngle = (siderealDegrees + longitude - rightAscension) * radians
        let lat = latitude * radians
        return asin(sin(lat) * sin(declination) + cos(lat) * cos(declination) * cos(hourAngle)) / radians
    }

    /// Whether the sun is up (its upper edge above the horizon, refraction included) at the point.
    static func isUp(latitude: Double, longitude: Double, at time: Int) -> Bool {
        elevation(latitude: latitude, longitude: longitude, at: time) > -0.833
    }
}
