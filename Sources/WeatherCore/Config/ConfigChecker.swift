import TOMLKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads the values of a parsed TOML document into a `DaemonConfig` by the keys of ``ConfigSchema``,
/// collecting every problem, every warning and the origin of every value read.
struct ConfigChecker {
    let file: String
    var problems: [ConfigProblem] = []
    var warnings: [ConfigProblem] = []
    var origins = ConfigOrigins()

    init(file: String) {
        self.file = file
    }

    mutating func problem(_ keyPath: String, _ message: String) {
        problems.append(ConfigProblem(file: file, keyPath: keyPath, message: message))
    }

    /// The configuration `root` describes: every key found is checked and read; every problem is kept.
    ///
    /// Problems come in a stable order: the top-level keys, the unknown top-level names, then each table
    /// (not a table; its unknown keys; its keys in order; its deprecated keys in order).
    mutating func check(_ root: TOMLTable) -> DaemonConfig {
        var config = DaemonConfig()
        for table in ConfigSchema.tables {
            let values: TOMLTable
            if table.isEmpty {
                values = root
            } else {
                guard let value = root[table] else { continue }
                guard let found = value.table else {
                    problem(table, "expected a table, found \(ConfigText.typeName(value))")
                    continue
                }
                values = found
                reportUnknownKeys(in: values, at: table)
            }
            for key in ConfigSchema.keys where key.table == table {
                guard let value = values[key.name] else { continue }
                let before = problems.count
                key.read(value, into: &config) { path, message in problem(path, message) }
                if problems.count == before { origins[key.path] = .file(file) }
            }
            for key in ConfigSchema.movedKeys where key.table == table {
                guard let value = values[key.name], let newPath = key.movedTo else { continue }
                readMoved(key, value, newPath: newPath, root: root, into: &config)
            }
            if table.isEmpty { reportUnknownKeys(in: root, at: "") }
        }
        checkOwnTracks(config)
        return config
    }

    /// The `[owntracks]` keys that need another table: MQTT topics need the broker connection (and
    /// must not take weatherd's own topics), HTTP mode the web listener.
    private mutating func checkOwnTracks(_ config: DaemonConfig) {
        let ownTracks = config.ownTracks
        if !ownTracks.mqttTopics.isEmpty {
            if config.mqtt.broker.isEmpty {
                problem("owntracks.mqtt_topics", "needs mqtt.broker: the topics are subscribed on the [mqtt] connection")
            } else {
                let prefix = config.mqtt.topicPrefix
                for (index, filter) in ownTracks.mqttTopics.enumerated() where MQTTTopicFilter.overlaps(filter, prefix: prefix) {
                    problem(
                        "owntracks.mqtt_topics[\(index)]",
                        "overlaps weatherd's own topics \(ConfigText.quoted(prefix + "/#")) (mqtt.topic_prefix), found \(ConfigText.quoted(filter))"
                    )
                }
            }
        }
        if ownTracks.http, config.web.listen.isEmpty {
            problem("owntracks.http", "needs web.listen: POST /owntracks is served on the web listener")
        }
    }

    /// Reads the deprecated `key` (checked the same either way) into `config` when the key it moved to
    /// is not given in `root`, and warns once.
    private mutating func readMoved(
        _ key: ConfigKey, _ value: TOMLValueConvertible, newPath: String, root: TOMLTable, into config: inout DaemonConfig
    ) {
        let newGiven = Self.value(at: newPath, in: root) != nil
        let before = problems.count
        if newGiven {
            var ignored = config
            key.read(value, into: &ignored) { path, message in problem(path, message) }
        } else {
            key.read(value, into: &config) { path, message in problem(path, message) }
            if problems.count == before { origins[newPath] = .movedKey(key.path) }
        }
        let outcome = newGiven ? "ignored because \(newPath) is set" : "it applies because \(newPath) is not set"
        warnings.append(ConfigProblem(file: file, keyPath: key.path, message: "deprecated, moved to \(newPath); \(outcome)"))
    }

    /// The value at the dotted `path` (a top-level key, or `table.key`) of `root`, if there is one.
    private static func value(at path: String, in root: TOMLTable) -> TOMLValueConvertible? {
        guard let dot = path.firstIndex(of: ".") else { return root[path] }
        return root[String(path[..<dot])]?.table?[String(path[path.index(after: dot)...])]
    }

    // MARK: Unknown keys

    private mutating func reportUnknownKeys(in table: TOMLTable, at parent: String) {
        let known = ConfigSchema.knownKeys.first(where: { $0.table == parent })?.keys ?? []
        for key in table.keys.sorted() where !known.contains(key) {
            var message = "unknown key"
            if let suggestion = ConfigSchema.suggestions[ConfigText.path(parent, key)] {
                message += "; did you mean `\(suggestion)`?"
            } else if let suggestion = Self.suggestion(for: key, in: parent, known: known) {
                // A deprecated key is suggested by the path it moved to.
                let path = ConfigText.path(parent, suggestion)
                let moved = ConfigSchema.movedKeys.first { $0.path == path || $0.path == suggestion }?.movedTo
                message += "; did you mean `\(moved ?? suggestion)`?"
            }
            problem(ConfigText.path(parent, key), message)
        }
    }

    /// A known key the unknown `key` was probably meant to be: one of the same table spelled alike
    /// (case, `_`/`-`, up to two typos), else the same key of another table (given as its full path).
    static func suggestion(for key: String, in parent: String, known: [String]) -> String? {
        let folded = fold(key)
        if let match = known.first(where: { fold($0) == folded }) { return match }
        let limit = key.count <= 4 ? 1 : 2
        let close =
            known
            .map { (key: $0, distance: editDistance(folded, fold($0))) }
            .filter { $0.distance <= limit }
            .min(by: { $0.distance < $1.distance })
        if let close { return close.key }
        for (table, keys) in ConfigSchema.knownKeys where table != parent && keys.contains(where: { fold($0) == folded }) {
            let match = keys.first(where: { fold($0) == folded })!
            return table.isEmpty ? match : "\(table).\(match)"
        }
        return nil
    }

    private static func fold(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Edits (insertion, deletion, substitution, swap of neighbours) that turn `a` into `b`.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
