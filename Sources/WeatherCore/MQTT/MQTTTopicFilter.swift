/// MQTT subscription filters (`owntracks/+/+`, `owntracks/#`), as the OwnTracks topics are given.
public enum MQTTTopicFilter {
    /// What is wrong with `filter` as a subscription filter; nil when it is one.
    public static func problem(_ filter: String) -> String? {
        if filter.isEmpty { return "expected a non-empty MQTT topic filter like \"owntracks/+/+\"" }
        if filter.utf8.count > 1024 { return "must be at most 1024 bytes long" }
        if filter.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must not contain control characters"
        }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#" as Character), level != "#" || index != levels.count - 1 {
                return "the wildcard # must be a whole level, and the last"
            }
            if level.contains("+" as Character), level != "+" { return "the wildcard + must be a whole level" }
        }
        return nil
    }

    /// Whether some topic matches both `filter` and everything under `prefix` (`P/#`, which also
    /// matches `P` itself).
    public static func overlaps(_ filter: String, prefix: String) -> Bool {
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = prefix.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in prefixLevels.enumerated() {
            guard index < levels.count else { return false }
            if levels[index] == "#" { return true }
            if levels[index] != "+", levels[index] != level { return false }
        }
        return true
    }

    /// Whether `topic` (a topic name, no wildcards) matches `filter`.
    public static func matches(_ topic: String, filter: String) -> Bool {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in filterLevels.enumerated() {
            if level == "#" { return !(index == 0 && topic.hasPrefix("$")) }
            guard index < levels.count else { return false }
            if level == "+" {
                if index == 0, topic.hasPrefix("$") { return false }
                continue
            }
            if level != levels[index] { return false }
        }
        return levels.count == filterLevels.count
    }
}
