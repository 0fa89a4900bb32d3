import Synchronization
import WeatherCore

/// The faults set at run time (`/_faults`), one per city pattern and service (one of the two, or
/// both), and the requests hanging on them.
final class FaultBoard: Sendable {
    struct Rule: Sendable {
        let id: Int
        let pattern: CityPattern
        /// The service it is for; nil: both.
        let service: WeatherProviderName?
        let fault: Fault
    }

    /// Which rules `clear` clears, by their service.
    enum ServiceFilter: Sendable, Equatable {
        /// Whatever service they are for.
        case any
        /// Those for this service (nil: those for both).
        case only(WeatherProviderName?)

        func includes(_ service: WeatherProviderName?) -> Bool {
            switch self {
            case .any: true
            case .only(let wanted): wanted == service
            }
        }
    }

    private struct State {
        var rules: [Rule] = []
        var nextRuleID = 0
        /// The requests waiting on a `hang` rule: the rule's id and the gate that releases them.
        var hanging: [Int: (rule: Int, gate: Gate)] = [:]
        var nextHangID = 0
    }

    private let state = Mutex(State())

    /// How `/_faults` tells patterns apart: `*`, `q=paris`, `q=paris,fr`.
    private static func key(_ pattern: CityPattern) -> String {
        pattern.city?.statsKey ?? "*"
    }

    /// Sets `fault` for `pattern` and `service` (nil: both), replacing the fault of that pattern and
    /// service (whose hanging requests go on).
    func set(_ fault: Fault, for pattern: CityPattern, service: WeatherProviderName? = nil) {
        let released = state.withLock { state -> [Gate] in
            let key = Self.key(pattern)
            let replaced = Set(state.rules.filter { Self.key($0.pattern) == key && $0.service == service }.map(\.id))
            state.rules.removeAll { replaced.contains($0.id) }
            state.rules.append(Rule(id: state.nextRuleID, pattern: pattern, service: service, fault: fault))
            state.nextRuleID += 1
            return Self.gates(of: replaced, in: state)
        }
        for gate in released { gate.open() }
    }

    /// Clears the faults of `pattern` (nil: of every pattern) that `services` includes; the requests
    /// hanging on them go on. Returns how many faults were cleared.
    @discardableResult
    func clear(_ pattern: CityPattern?, services: ServiceFilter = .any) -> Int {
        let (count, released) = state.withLock { state -> (Int, [Gate]) in
            let key = pattern.map(Self.key)
            let cleared = Set(
                state.rules.filter {
                    (key == nil || Self.key($0.pattern) == key) && services.includes($0.service)
                }.map(\.id))
            state.rules.removeAll { cleared.contains($0.id) }
            return (cleared.count, Self.gates(of: cleared, in: state))
        }
        for gate in released { gate.open() }
        return count
    }

    private static func gates(of rules: Set<Int>, in state: State) -> [Gate] {
        state.hanging.values.filter { rules.contains($0.rule) }.map(\.gate)
    }

    /// The fault for a request to `service` that asked for, or resolved to, one of `cities`: the one
    /// naming one of them, else the `*` one; of those alike, the one for `service` before the one for
    /// both (`bestRule`).
    func rule(for service: WeatherProviderName, matching cities: [(name: String, country: String?)]) -> Rule? {
        state.withLock { state in
            bestRule(state.rules, pattern: \.pattern, service: \.service, request: service, cities: cities)
        }
    }

    /// Waits while `rule` stands. Returns true when it was cleared or replaced (the request goes
    /// on), false when `clientGone` opened first or the task was cancelled (it is abandoned).
    func hang(on rule: Rule, clientGone: Gate?) async -> Bool {
        let released = Gate()
        let id = state.withLock { state -> Int? in
            guard state.rules.contains(where: { $0.id == rule.id }) else { return nil }
            defer { state.nextHangID += 1 }
            state.hanging[state.nextHangID] = (rule.id, released)
            return state.nextHangID
        }
        guard let id else { return true }  // cleared in the meantime
        defer { _ = state.withLock { $0.hanging.removeValue(forKey: id) } }
        await Gate.first(of: [released] + (clientGone.map { [$0] } ?? []))
        return released.isOpen && !Task.isCancelled
    }

    /// Requests waiting on a `hang` fault now.
    var hangingCount: Int { state.withLock { $0.hanging.count } }

    /// `{"faults":[{"city":"Paris","fault":"hang"},{"city":"*","service":"open-meteo","fault":"500"},...],"hanging":N}`,
    /// in the order they were set; `service` only for a fault of one service.
    var json: JSONValue {
        state.withLock { state in
            let faults = state.rules.map { rule -> JSONValue in
                var object: JSONObject = ["city": .string(rule.pattern.description)]
                if let service = rule.service { object["service"] = .string(service.rawValue) }
                for (name, value) in rule.fault.json.members { object[name] = value }
                return .object(object)
            }
            return .object(["faults": .array(faults), "hanging": .integer(Int64(state.hanging.count))])
        }
    }
}
