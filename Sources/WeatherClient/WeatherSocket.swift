// The blocking client and the errors both clients throw: whoever imports WeatherClient has them.
@_exported import WeatherSocket
