//! A prefetch: the processor asked to bring a value's cache line in, without waiting for it.
//!
//! The one `unsafe` block of the core (`lib.rs` denies `unsafe_code` everywhere else). Once a
//! network outgrows the caches, the next event will first wait on memory for its packet, and
//! an endpoint's answer for its host's line; the simulator asks for those lines ahead
//! (`Sim::read_events_ahead`, `Sim::deliver`). A plain read does the same only while the
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
    for line in lines(at as usize, std::mem::size_of::<T>()) {
        // The first line may start before `at`: the offset wraps, as the pointer does.
        prefetch_at(at.wrapping_add(line.wrapping_sub(at as usize)));
    }
}

/// Returns the address of each 64-byte cache line that `size` bytes from `addr` touch.
#[inline(always)]
fn lines(addr: usize, size: usize) -> impl Iterator<Item = usize> {
    (addr & !63..addr + size).step_by(64)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_asks_for_every_line_it_touches_and_no_other() {
        let cases: [(usize, usize, &[usize]); 4] = [
            (128, 64, &[128]),      // one line, aligned
            (130, 64, &[128, 192]), // the same size across a boundary
            (100, 88, &[64, 128]),  // a host line in its vector, starting mid-line
            (192, 304, &[192, 256, 320, 384, 448]),
        ];
        for (addr, size, want) in cases {
            assert_eq!(lines(addr, size).collect::<Vec<_>>(), want, "{size} bytes at {addr}");
        }
        // And the call itself, in a debug build's overflow checks too: a value off a boundary.
        let bytes = [0u8; 200];
        let from = if (bytes.as_ptr() as usize + 3) % 64 == 0 { 4 } else { 3 };
        let inside: &[u8; 100] = bytes[from..from + 100].try_into().unwrap();
        prefetch_all(inside);
    }
}
