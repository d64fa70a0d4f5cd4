//! # qdsim-core
//!
//! An exact, deterministic, packet-level discrete-event simulator for one question: what
//! does a router's queue discipline do to TCP and other traffic?
//!
//! ## Layers, bottom up
//!
//! - [`time`]: integer-nanosecond [`Time`](time::Time) and [`Duration`](time::Duration),
//!   integer bit/s [`Rate`](time::Rate). No floating-point clock.
//! - [`columns`]: how a result struct's fields become the results tables' columns.
//! - [`error`]: [`ConfigError`], the one error (a configuration value refused); [`catalog`](mod@catalog):
//!   the types in which every algorithm and option describes its parameters.
//! - [`packet`]: the `Copy` packet.
//! - [`event`]: the event queue, ordered by `(time, scheduling sequence)`.
//! - [`rng`]: named random streams derived from the run seed, and the SplitMix64 mixer.
//! - [`outbox`]: the [`Outbox`](outbox::Outbox) through which endpoints talk to the simulator.
//! - [`stats`]: counters, time-weighted means, delay histograms.
//! - [`qdisc`]: the [`Qdisc`](qdisc::Qdisc) trait, drop reasons, and every discipline,
//!   registered in one list.
//! - [`net`]: links (transmitter, wire loss, delay line, a [`Port`](net::Port) that keeps a
//!   qdisc's books) and static routing.
//! - [`tcp`]: segment-level TCP sender (loss recovery in its own module) and receiver,
//!   congestion controls, and the TCP options' catalog.
//! - [`traffic`]: sources beside TCP (UDP CBR) and the traffic catalog.
//! - [`sim`]: the event loop tying it together; [`config`] is its input and [`results`]
//!   its output; [`scenario`] builds dumbbell configurations for tests and benchmarks.
//!
//! Each module imports only modules listed above it (`config` holds the parameter types of
//! `qdisc` and `tcp`, so it sits with `sim`): the structure reads top-down, without import
//! circles.
//!
//! ## The determinism contract
//!
//! A run is a pure function of its [`RunConfig`]: same configuration (seed included), same
//! binary ⇒ bit-identical [`RunResults`]. Equal-time events fire in the order they were
//! scheduled; every random draw comes from a stream named after its purpose; no hash map is
//! iterated where its order could reach the output.
//!
//! ## Errors and panics
//!
//! Configuration problems are [`ConfigError`]s naming the key, the value and what is
//! allowed. Panics are reserved for broken internal invariants (a simulator bug); the Python
//! binding catches them and raises an exception.

// Denied, not forbidden: `hint::prefetch` holds the one exception, a prefetch instruction.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[macro_use]
mod names;
#[macro_use]
pub mod columns;

pub mod arrow;
pub mod calendar;
pub mod catalog;
pub mod config;
pub mod error;
pub mod event;
mod hint;
pub mod net;
pub mod outbox;
pub mod packet;
pub mod pcap;
pub mod qdisc;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod traffic;

pub use config::RunConfig;
pub use error::ConfigError;
pub use results::RunResults;
pub use sim::Sim;

use catalog::{Catalog, CcInfo};

/// Runs one simulation to the end.
///
/// # Errors
/// A configuration value the core refuses, or an unreachable flow destination.
pub fn run(cfg: &RunConfig) -> Result<RunResults, ConfigError> {
    sim::run_config(cfg)
}

/// Runs one simulation to the end under a memory budget, reporting progress to `on_check`,
/// which may stop it (see [`Sim::run_watched`]); a finished run's results are those of [`run`].
///
/// # Errors
/// A configuration value the core refuses, the budget exceeded, or a stop asked by `on_check`.
pub fn run_watched(
    cfg: RunConfig,
    watch: sim::Watch,
    on_check: &mut dyn FnMut(&sim::Progress) -> std::ops::ControlFlow<()>,
) -> Result<RunResults, sim::RunError> {
    sim::run_watched(cfg, watch, on_check)
}

/// Returns the catalog of algorithms and options, for `qdsim list` and the Python package.
pub fn catalog() -> Catalog {
    Catalog {
        qdiscs: qdisc::catalog(),
        cc: tcp::CcKind::ALL.iter().map(|cc| CcInfo { name: cc.name(), summary: cc.summary() }).collect(),
        traffic: traffic::catalog(),
        tcp: tcp::profiles::option_infos(),
        tcp_profiles: tcp::profiles::PROFILES.iter().map(|p| p.info()).collect(),
        drop_reasons: qdisc::DropReason::ALL.iter().map(|r| r.name()).chain([net::WIRE_LOSS]).collect(),
        mark_reasons: qdisc::MarkReason::ALL.iter().map(|r| r.name()).collect(),
        key_uses: qdisc::key_uses().into_iter().chain(tcp::key_uses()).collect(),
        result_columns: [
            ("flows", results::FlowResult::columns()),
            ("groups", results::GroupResult::columns()),
            ("links", results::LinkResult::columns()),
            ("series_queue", results::QueueSeries::columns()),
            ("series_tcp", results::TcpSeries::columns()),
            ("series_tcp_events", results::TcpEvents::columns()),
            ("series_qdisc", results::QdiscSeries::columns()),
            ("series_packets", results::PacketSeries::columns()),
            ("series_reasons", results::ReasonSeries::columns()),
            ("transfers", results::Transfers::columns()),
        ]
        .into(),
    }
}
