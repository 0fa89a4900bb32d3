/// A JSON object that remembers the order of its members (for stable, readable output).
///
/// Its members are kept in order in one array, searched in order while there are few: a request
/// (`jsonrpc`, `id`, `method`, `params`) is then one allocation, with no hash table to grow. From
/// `indexedFrom` members on, a table of each key's position makes lookups constant-time, so an
/// object with many members (a hostile one included) is not searched member by member.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    struct Member: Sendable {
        let key: String
        var value: JSONValue
    }

    /// The members in insertion order.
    private(set) var ordered: [Member] = []
    /// Each key's position in `ordered`, once there are `indexedFrom` members or more.
    private var positions: [String: Int]?

    static let indexedFrom = 16

    public init() {}

    /// The members of a literal in its order. Its keys are distinct, as a `Dictionary` literal's
    /// must be (checked in debug builds): they are not looked up one by one, and no table of
    /// positions is made, since the daemon's own literals (a feature's properties, the state) are
    /// only written out. A member set later (``subscript(_:)``) makes the table if there are many.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        ordered = elements.map { Member(key: $0.0, value: $0.1) }
        assert(Set(ordered.map(\.key)).count == ordered.count, "a JSONObject literal with a key twice")
    }

    /// Members in insertion order.
    public var members: [(key: String, value: JSONValue)] { ordered.map { ($0.key, $0.value) } }
    /// The member names, in order.
    public var keys: [String] { ordered.map(\.key) }
    public var isEmpty: Bool { ordered.isEmpty }
    public var count: Int { ordered.count }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { ordered[$0].value } }
        set {
            if let newValue {
                if let position = position(of: key) {
                    ordered[position].value = newValue
                    return
                }
                if ordered.capacity == 0 { ordered.reserveCapacity(4) }  // a request's four; a literal reserved its own
                ordered.append(Member(key: key, value: newValue))
                if positions != nil {
                    positions![key] = ordered.count - 1
                } else if ordered.count >= Self.indexedFrom {
                    indexPositions()
                }
            } else if let position = position(of: key) {
                ordered.remove(at: position)
                if positions != nil { indexPositions() }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return ordered.firstIndex { $0.key == key }
    }

    private mutating func indexPositions() {
        var table = [String: Int](minimumCapacity: ordered.count)
        for (position, member) in ordered.enumerated() { table[member.key] = position }
        positions = table
    }

    /// Equal when they have the same members, in any order (as JSON objects are).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.ordered.count == rhs.ordered.count && lhs.ordered.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// In any order of the members, as `==`: each member hashed alone, the results combined
    /// commutatively (as `Dictionary` does).
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in ordered {
            var one = hasher
            one.combine(member.key)
            one.combine(member.value)
            combined ^= one.finalize()
        }
        hasher.combine(ordered.count)
        hasher.combine(combined)
    }
}
