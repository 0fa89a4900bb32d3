/*
 * weatherd links FoundationEssentials, not all of Foundation: no CoreFoundation, no ICU and its
 * 34 MB of data, no CoreFoundation constructor at start (1.1–1.5 MB less resident at idle).
 *
 * TOMLKit imports Foundation (for `Data` only), so every link names `-lFoundation` ahead of
 * `-lFoundationEssentials`: swift-autolink-extract puts the runtime's libraries last, in its own
 * fixed order. A function both archives define (a specialisation of `Data.init(count:)`, which
 * FoundationEssentials' base64 decoding calls, and TOMLKit's decoder calls that) is then taken from
 * Foundation's archive, the first one the linker read that has it, and that one member brings in
 * Foundation, CoreFoundation and ICU behind it.
 *
 * This entry names FoundationEssentials first, in the section Swift's own objects name their libraries
 * in (".swift1_autolink_entries", which the linker leaves out of the binary). Written "-l NAME", it is
 * not one of the runtime's entries that the extractor moves to the end, and the driver reads it as
 * "-lFoundationEssentials": the static archive in a static link (the release build), the shared
 * library, linked anyway, in a dynamic one. scripts/systest.py checks the packaged binary.
 */
__asm__(".section .swift1_autolink_entries,\"e\",@progbits\n"
        ".asciz \"-l FoundationEssentials\"\n"
        ".previous\n");
