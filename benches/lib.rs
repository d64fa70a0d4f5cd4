//! What the whole-run benchmarks share.

/// The extension's allocator (`crates/qdsim-py/src/lib.rs`, where the reason is), so that the
/// benchmarks' binaries measure the core as `qdsim run` runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Returns the process's peak resident set size in MiB (`VmHWM` of `/proc/self/status`), if
/// known (Linux).
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
