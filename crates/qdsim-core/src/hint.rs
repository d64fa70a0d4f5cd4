//! A prefetch: the processor asked to bring a value's cache line in, without waiting for it.
//!
//! The one `unsafe` block of the core (`lib.rs` denies `unsafe_code` everywhere else). Once a
//! network outgrows the caches, the next event will first wait on memory for its packet, and
//! an endpoint's answer for its host's line; the simulator asks for those lines ahead
//! (`Sim::read_next_link`, `Sim::deliver`). A plain read does the same only while the
//! processor can run ahead of it, and through a long handler it cannot: at 10⁴ flows the
//! prefetch of the packet made a whole run 0.93 and 1/1.14 of the CPU of the read
//! (docs/performance.md, "Prefetching the next arrival's packet").

/// Asks for the cache line `value` starts in, for a read soon. Nothing about the program's
/// state changes: the line is only fetched. A no-op on processors other than x86-64 and
/// AArch64.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_at((value as *const T).cast());
}

/// Asks for every cache line `value` spans.
#[inline(always)]
pub(crate) fn prefetch_all<T>(value: &T) {
    let at: *const u8 = (value as *const T).cast();
    let first = at as usize & !63;
    let end = at as usize + std::mem::size_of::<T>();
    for line in (first..end).step_by(64) {
        prefetch_at(at.wrapping_add(line - at as usize));
    }
}

/// Asks for the cache line of `at`, any address.
#[inline(always)]
fn prefetch_at(at: *const u8) {
    // SAFETY: a prefetch is a hint. It reads nothing into the program and cannot fault, at
    // any address. x86-64: `PREFETCHT0`, of SSE, which every x86-64 processor has. AArch64:
    // `PRFM PLDL1KEEP`, which touches neither the stack nor the flags.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    }
    #[cfg(target_arch = "aarch64")]
    #[allow(unsafe_code)]
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) at, options(nostack, preserves_flags, readonly))
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = at;
}
