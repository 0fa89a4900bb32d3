import Synchronization

/// A value that one service changes (a configuration reload) and others read.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    var current: Value { value.withLock { $0 } }

    /// Stores `new` and returns what was there before.
    @discardableResult
    func replace(with new: Value) -> Value {
        value.withLock { stored in
            defer { stored = new }
            return stored
        }
    }
}
