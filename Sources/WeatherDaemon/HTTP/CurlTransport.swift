import NIOPosix
import Synchronization
import WeatherCore

/// The daemon's `HTTPTransport`: HTTP GET over libcurl.
///
/// Transfers block, so they run on a fixed set of dedicated worker threads (a `NIOThreadPool`),
/// never on the daemon's executor or an event loop. Each worker transfer borrows a pooled
/// libcurl handle, so consecutive requests to the same host reuse the kept-alive connection;
/// DNS and TLS session caches are shared between handles.
///
/// Requests honour task cancellation: cancelling the calling task aborts the transfer at once and
/// `get` throws `CancellationError`. Error messages are libcurl's fixed texts and never contain
/// the URL (whose query carries the API key).
///
/// Call ``shutdown()`` when done; dropping the transport without it also releases everything,
/// without blocking.
public final class CurlTransport: HTTPTransport {
    /// The largest response body accepted; a larger one fails with "response too large" as soon
    /// as it is announced (`Content-Length`) or, without one, once that much has arrived. An
    /// OpenWeatherMap answer is a few KB, so 1 MiB is far above any real one and keeps the memory of
    /// a transfer bounded.
    public static let maxBodyBytes = 1024 * 1024

    private let core: CurlCore
    private let threadPool: NIOThreadPool
    private let shutdownStarted = Atomic<Bool>(false)

    /// Creates a transport and starts its worker threads.
    /// - Parameters:
    ///   - userAgent: The `User-Agent` header sent with every request, e.g. `weatherd/1.2.0`.
    ///   - numberOfThreads: How many transfers may run at the same time; further requests wait
    ///     for a free thread.
    public init(userAgent: String, numberOfThreads: Int = 4) {
        precondition(numberOfThreads > 0, "CurlTransport needs at least one thread")
        _ = CurlGlobal.initialized
        self.core = CurlCore(userAgent: userAgent, maxBodyBytes: Self.maxBodyBytes)
        self.threadPool = NIOThreadPool(numberOfThreads: numberOfThreads)
        self.threadPool.start()
    }

    deinit {
        // No request is in flight (each holds a reference to the transport), so this only has to
        // stop the threads, which the pool does asynchronously, without blocking here.
        if !shutdownStarted.load(ordering: .acquiring) {
            threadPool.shutdownGracefully { _ in }
            core.close()
        }
    }

    /// Fetches `url` with libcurl and returns the response, whatever its status.
    ///
    /// - Parameters:
    ///   - url: An `http` or `https` URL. Redirects are not followed.
    ///   - timeout: The limit for the whole request, connecting included (connecting alone is
    ///     further limited to 5 seconds).
    /// - Throws: `CancellationError` if the calling task is or gets cancelled;
    ///   `HTTPTransportError` with kind `.timedOut`, `.connectionFailed` or `.other` (also after
    ///   ``shutdown()`` and for bodies over ``maxBodyBytes``, 1 MiB) when no usable response arrived.
    public func get(_ url: String, timeout: Duration) async throws -> HTTPResponse {
        try Task.checkCancellation()
        guard CurlGlobal.initialized else {
            throw HTTPTransportError(.other, "libcurl could not be initialised")
        }
        let core = self.core
        let timeoutMilliseconds = Self.milliseconds(timeout)
        let cancellation = CurlCancellation()
        do {
            return try await withTaskCancellationHandler {
                try await threadPool.runIfActive {
                    try core.perform(url: url, timeoutMilliseconds: timeoutMilliseconds, cancellation: cancellation)
                }
            } onCancel: {
                cancellation.cancel()
            }
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            throw HTTPTransportError(.other, "the HTTP transport is shut down")
        } catch is CancellationError where !Task.isCancelled {
            // The pool drops queued work when it shuts down.
            throw HTTPTransportError(.other, "the HTTP transport is shut down")
        }
    }

    /// Stops the worker threads after the running transfers finish, and closes idle connections.
    /// Later requests fail with `HTTPTransportError` kind `.other`. Calls after the first return
    /// at once.
    public func shutdown() async {
        guard
            shutdownStarted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
                .exchanged
        else { return }
        try? await threadPool.shutdownGracefully()
        core.close()
    }

    /// `timeout` in whole milliseconds, at least 1 (libcurl reads 0 as "no timeout").
    static func milliseconds(_ timeout: Duration) -> Int {
        let (seconds, attoseconds) = timeout.components
        guard seconds >= 0 else { return 1 }
        let (wholeMilliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return Int.max }
        let total = wholeMilliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if total.overflow { return Int.max }
        return max(1, Int(clamping: total.partialValue))
    }
}
