/// FNV-1a (64 bit) of `text`'s UTF-8: the same for the same text in every run, unlike `Hasher`, so
/// what the stand-in makes up from a name or a point is the same each time it is asked.
func stableHash(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}
