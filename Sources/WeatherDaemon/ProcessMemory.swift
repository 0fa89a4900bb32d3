import CLinux

/// Process-wide settings of the memory allocator, made once at start, before the daemon's threads.
public enum ProcessMemory {
    /// Caps glibc's allocator at `arenas` arenas (the main arena and those its threads share) instead
    /// of up to 8 per CPU: one each for the event loops, the libcurl workers, the state writer and
    /// the gpsd reader, each keeping what its thread freed, is memory the daemon holds at idle.
    public static func limitAllocatorArenas(to arenas: Int32 = 2) {
        _ = weatherd_malloc_arena_max(arenas)
    }
}
