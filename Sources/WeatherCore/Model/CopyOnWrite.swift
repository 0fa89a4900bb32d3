/// A value kept on the heap and copied only when written while shared: the fields of a large struct
/// (a weather observation, the daemon's state), so that copying the struct, which a turn and its
/// changes do many times, is one reference count instead of hundreds of bytes and a count for each
/// of its strings and arrays.
///
/// It is a value: a copy shares the heap block until one of them is changed, which then gets a block
/// of its own (``modify(_:)``). The block is only ever written while this is its one reference, so a
/// copy handed to another thread never sees it change: that is what makes the `@unchecked Sendable`
/// sound. It is read and written through the buffer's pointer to its header, which a class's stored
/// property would check for overlapping access at run time on every read.
struct CopyOnWrite<Value: Sendable>: @unchecked Sendable {
    private var buffer: ManagedBuffer<Value, Never>

    init(_ value: Value) {
        buffer = .create(minimumCapacity: 0) { _ in value }
    }

    var value: Value {
        buffer.withUnsafeMutablePointerToHeader { $0.pointee }
    }

    /// Changes the value in place, copying it to a block of its own first when the block is shared.
    mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        if !isKnownUniquelyReferenced(&buffer) {
            let value = value
            buffer = .create(minimumCapacity: 0) { _ in value }
        }
        return try buffer.withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }

    /// Whether `self` and `other` share one block (so their values are the same without comparing them).
    func isSame(as other: Self) -> Bool { buffer === other.buffer }
}

extension CopyOnWrite: Equatable where Value: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.isSame(as: rhs) || lhs.value == rhs.value }
}

extension CopyOnWrite: Hashable where Value: Hashable {
    func hash(into hasher: inout Hasher) { value.hash(into: &hasher) }
}
