import CCurl
import Synchronization

/// The cancellation flag of one request, set from the cancelling task and read on the worker
/// thread running the transfer.
final class CurlCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// The slot whose multi handle is driving the transfer, while it runs; guarded so that a
    /// wake-up never reaches a slot that was already returned to the pool.
    private let runningSlot = Mutex<CurlConnectionSlot?>(nil)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the request cancelled and wakes the transfer if it is waiting for the network.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        runningSlot.withLock { slot in
            if let slot {
                _ = curl_multi_wakeup(slot.multi)
            }
        }
    }

    func attach(_ slot: CurlConnectionSlot) {
        runningSlot.withLock { $0 = slot }
    }

    func detach() {
        runningSlot.withLock { $0 = nil }
    }
}
