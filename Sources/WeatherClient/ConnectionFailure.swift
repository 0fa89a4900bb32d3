import NIOCore
import WeatherSocket

/// Whether `error` means the connection to the daemon failed after it was made (reset, closed):
/// the daemon went away, as opposed to answering with an error.
public func isConnectionFailure(_ error: any Error) -> Bool {
    error is IOError || error is ChannelError || error is ConnectionLost
}
