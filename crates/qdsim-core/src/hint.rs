//! A prefetch: the processor asked to bring a value's cache line in, without waiting for it.
//!
//! The one `unsafe` block of the core (`lib.rs` denies `unsafe_code` everywhere else). Once a
//! network outgrows the caches, the event after the one being handled will first wait on
//! memory for its packet; the simulator asks for that line ahead (`Sim::read_next_link`). A
//! plain read does the same only while the processor can run ahead of it, and in a long
//! handler it cannot: at 10⁴ flows the prefetch made a whole run 0.93 and 1/1.14 of the CPU
//! of the read (docs/performance.md, "Prefetching the next arrival's packet").

/// Asks for the cache line of `value` (the line it starts in), for a read soon. Nothing
/// about the program's state changes: the line is only fetched.
#[inline(always)]
pub(crate) fn prefetch<T: Copy>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: `PREFETCHT0` is a hint. It reads nothing into the program, cannot fault (the
    // address is a live reference's in any case), and SSE, which it needs, is part of every
    // x86-64 processor.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast())
    }
    // Elsewhere (no stable prefetch), a read that the compiler must keep: the line is
    // fetched, and the processor waits for it where it cannot run ahead.
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(*value);
}
