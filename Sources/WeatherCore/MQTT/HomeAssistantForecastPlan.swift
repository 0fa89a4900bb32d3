#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When each watched city's forecast for Home Assistant is fetched and what is published: a
/// forecast is fetched when its city had a good lookup from upstream (a new `fetched_at`: at most
/// once per `cache_ttl`, as an answer from the cache keeps its time); the forecast itself comes
/// through the lookups' cache, so it spends the request budget at most once per `cache_ttl` a
/// city. The payload changes with the city's weather now, too. A city no longer watched has its
/// topic emptied. Pure: the refresher fetches and publishes what it says.
public struct HomeAssistantForecastPlan: Sendable {
    /// A forecast to fetch.
    public struct Fetch: Sendable, Equatable {
        /// The city's place key (``HomeAssistantDiscovery/cityKey(_:)``).
        public var key: String
        /// The watched city, as listed: what is looked up.
        public var city: String
    }

    /// What to do after the watched cities changed.
    public struct Actions: Sendable, Equatable {
        public var publish: [MQTTMessage] = []
        public var fetch: [Fetch] = []
    }

    private struct City {
        var feature: WeatherFeature
        /// The `fetched_at` of the feature the last fetch was started for.
        var fetchedFor: Date?
        var forecast: WeatherForecast?
        var published: String?
    }

    private let topics: MQTTTopics
    private var cities: [String: City] = [:]

    public init(topics: MQTTTopics) {
        self.topics = topics
    }

    /// The watched cities with their latest good features, now: the emptied topics of cities gone,
    /// the payloads changed with the weather now, and the forecasts due.
    public mutating func citiesChanged(_ watched: [(city: String, feature: WeatherFeature)]) -> Actions {
        var actions = Actions()
        var present: Set<String> = []
        for (city, feature) in watched {
            let key = HomeAssistantDiscovery.cityKey(feature.id)
            guard present.insert(key).inserted else { continue }
            var entry = cities[key] ?? City(feature: feature)
            entry.feature = feature
            if feature.observation.fetchedAt != entry.fetchedFor, !feature.stale {
                entry.fetchedFor = feature.observation.fetchedAt
                actions.fetch.append(Fetch(key: key, city: city))
            }
            cities[key] = entry
            if let message = message(key) { actions.publish.append(message) }
        }
        for key in cities.keys.sorted() where !present.contains(key) {
            if cities.removeValue(forKey: key)?.published != nil {
                actions.publish.append(MQTTMessage(topic: topics.forecast(key), payload: ""))
            }
        }
        return actions
    }

    /// The forecast of `key` arrived: its payload, unless the city is gone meanwhile. (One that could
    /// not be fetched changes nothing: the last one stays, and the city's next good lookup fetches
    /// it again.)
    public mutating func fetched(_ key: String, _ forecast: WeatherForecast) -> MQTTMessage? {
        guard cities[key] != nil else { return nil }
        cities[key]?.forecast = forecast
        return message(key)
    }

    /// The payload of `key` when it has a forecast and the payload differs from the one published.
    private mutating func message(_ key: String) -> MQTTMessage? {
        guard let entry = cities[key], let forecast = entry.forecast else { return nil }
        let payload = HomeAssistantForecast.payload(feature: entry.feature, forecast: forecast)
        guard payload != entry.published else { return nil }
        cities[key]?.published = payload
        return MQTTMessage(topic: topics.forecast(key), payload: payload)
    }
}
