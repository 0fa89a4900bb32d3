import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// An eventfd that ends a thread's wait in poll(2) (the gpsd reader's, the MQTT loop's, the wait
/// for a wall-clock jump): `signal()` from any thread; the waiting thread drains it before it looks
/// at why it was woken, so a signal that comes before the wait still ends it. `fd` is -1 when no
/// eventfd could be made (errno says why).
final class WakeFD: Sendable {
    let fd: Int32 = weatherd_wake_fd_make()

    var isValid: Bool { fd >= 0 }

    func signal() { if fd >= 0 { weatherd_wake_fd_write(fd) } }
    func drain() { if fd >= 0 { weatherd_wake_fd_drain(fd) } }

    deinit { if fd >= 0 { Glibc.close(fd) } }
}
