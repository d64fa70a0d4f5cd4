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
