// The wire format (JSON values, JSON-RPC messages, the protocol's small value types) is its own
// target, `WeatherRPC`, so that `weatherctl` links it without the core's configuration (TOMLKit and
// the C++ runtime under it). Everything that imports the core sees it as part of the core.
@_exported import WeatherRPC
