import Synchronization

/// Hands the engine's changes to its ``ChangePublisher`` after the turn that made them, outside the
/// engine's isolation, in the order they were made.
///
/// A turn posts its changes (``post(_:)``, under a short lock); whoever made them then calls
/// ``deliver()`` once outside the engine. One caller delivers at a time: a caller that finds another
/// delivering leaves its changes to it (it delivers until nothing is left), so nobody waits for a
/// lock held across a publish. The publisher then offers each change to the watchers' outboxes, and
/// each watcher's writer writes it on its own connection's loop. The decisions are
/// ``ChangeDeliveryState``'s.
final class ChangeDelivery: Sendable {
    private let state = Mutex(ChangeDeliveryState())
    private let publisher: any ChangePublisher

    init(_ publisher: any ChangePublisher) {
        self.publisher = publisher
    }

    /// Queues the changes of a turn, in order.
    func post(_ changes: [ChangeDeliveryState.Change]) {
        guard !changes.isEmpty else { return }
        state.withLock { $0.post(changes) }
    }

    /// Delivers every change posted so far, unless another caller is delivering (then it does).
    func deliver() {
        var batch = state.withLock { $0.startDelivering() }
        while let changes = batch {
            for change in changes {
                switch change {
                case .state(let state): publisher.publish(state: state)
                case .overlays(let overlays): publisher.publish(overlays: overlays)
                }
            }
            batch = state.withLock { $0.delivered() }
        }
    }
}

/// The decisions of a ``ChangeDelivery``: a plain state machine. Changes are handed out in the order
/// posted, to one deliverer at a time.
struct ChangeDeliveryState {
    enum Change: Sendable, Equatable {
        case state(DaemonState)
        case overlays(Overlays)
    }

    private var queued: [Change] = []
    /// A caller is delivering: it takes what is posted meanwhile too.
    private(set) var delivering = false

    mutating func post(_ changes: [Change]) {
        queued.append(contentsOf: changes)
    }

    /// A caller would deliver: the changes to deliver now, or nil (nothing queued, or another caller
    /// is delivering and will take them).
    mutating func startDelivering() -> [Change]? {
        guard !delivering, !queued.isEmpty else { return nil }
        delivering = true
        return takeQueued()
    }

    /// The deliverer delivered its batch: the next batch (changes posted meanwhile), or nil when none
    /// is left (it is done delivering).
    mutating func delivered() -> [Change]? {
        guard !queued.isEmpty else {
            delivering = false
            return nil
        }
        return takeQueued()
    }

    private mutating func takeQueued() -> [Change] {
        defer { queued.removeAll(keepingCapacity: true) }
        return queued
    }
}

extension SearchStream.Effect {
    /// The change to publish, for a publishing effect.
    var change: ChangeDeliveryState.Change? {
        switch self {
        case .publishState(let state): .state(state)
        case .publishOverlays(let overlays): .overlays(overlays)
        case .armNoticeTimer, .cancelRegion, .followSearch: nil
        }
    }
}
