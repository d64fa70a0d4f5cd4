//! Runs a resolved run configuration in the core alone, for profiling any experiment without
//! the Python around it: the `config.json` that `qdsim run` writes into its results directory
//! (the configuration the core was given). Prints the core's wall time, its events and data packets forwarded,
//! and the peak resident memory.
//!
//! Run: `cargo run --release -p qdsim-benches --bin run_config -- RESULTS_DIR/config.json`
//! (e.g. after `qdsim run benches/vs_ns2.toml --out /tmp/o`), under `valgrind
//! --tool=callgrind` or `perf record` for where the time goes.

use std::time::Instant;

use qdsim_benches::peak_rss_mib;
use qdsim_core::RunConfig;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_config CONFIG.json (a results directory's config.json)");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(1);
    });
    let cfg = RunConfig::parse_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(1);
    });
    let started = Instant::now();
    let results = qdsim_core::run(&cfg).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(1);
    });
    println!("wall time: {:.3} s", started.elapsed().as_secs_f64());
    println!("events: {}", results.events);
    println!("data packets transmitted on links: {}", results.packets_forwarded);
    if let Some(mib) = peak_rss_mib() {
        println!("peak resident memory: {mib:.1} MiB");
    }
}
