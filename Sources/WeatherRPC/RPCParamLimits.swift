/// The ranges of the socket protocol's numeric params, for the daemon that checks them and for a
/// client that checks its own arguments before it asks.
public enum RPCParamLimits {
    /// How many places `places` may be asked for (`limit`).
    public static let placesLimit = 1...10
    /// The hours a `forecast` may ask for (`hours`).
    public static let forecastHours = 3...120
}
