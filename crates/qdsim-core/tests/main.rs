//! The core's integration tests, one test binary: each file beside this one is a module of
//! it (`Cargo.toml` turns off the discovery of one binary per file). Each binary links the
//! whole core with LTO, and sixteen of them took most of `make test`'s build (4 min 15 s of a
//! 2-core machine after a change to the core).

mod common;

mod analytic;
mod apps;
mod aqm;
mod conservation;
mod determinism;
mod ecn;
mod ewfq;
mod fair_queueing;
mod mathis;
mod on_off;
mod pcap;
mod response;
mod series;
mod slow_start;
mod throughput;
mod traffic;

/// Every file in `tests/` is a module of this binary: with one binary per file turned off, a
/// file not named above would be compiled by nothing and its tests never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let listed = include_str!("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the tests directory") {
        let path = entry.expect("a directory entry").path();
        let name = match (path.extension().and_then(|e| e.to_str()), path.file_stem().and_then(|s| s.to_str())) {
            (Some("rs"), Some(stem)) if stem != "main" => stem.to_string(),
            _ if path.join("mod.rs").is_file() => path.file_name().unwrap().to_string_lossy().into_owned(),
            _ => continue,
        };
        if !listed.lines().any(|line| line == format!("mod {name};")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "tests/ files that are no module of tests/main.rs: {missing:?}");
}
