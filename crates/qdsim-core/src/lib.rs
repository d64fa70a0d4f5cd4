//! # qdsim-core
//!
//! An exact, deterministic, packet-level discrete-event simulator for one question: what
//! does a router's queue discipline do to TCP and other traffic?
//!
//! ## Layers, bottom up
//!
//! - [`time`]: integer-nanosecond [`Time`](time::Time) and [`Duration`](time::Duration),
//!   integer bit/s [`Rate`](time::Rate). No floating-point clock.
//! - [`event`]: the event queue, ordered by `(time, scheduling sequence)`.
//! - [`rng`]: named random streams derived from the run seed.
//! - [`packet`]: the `Copy` packet.
//! - [`qdisc`]: the [`Qdisc`](qdisc::Qdisc) trait, drop reasons, and every discipline.
//! - [`net`]: links (transmitter, delay line, a [`Port`](net::Port) that keeps a qdisc's
//!   books) and static routing.
//! - [`tcp`]: segment-level TCP sender and receiver, congestion controls.
//! - [`traffic`]: sources (TCP bulk/finite, UDP CBR) and the [`Outbox`](traffic::Outbox)
//!   through which endpoints talk to the simulator.
//! - [`stats`]: counters, time-weighted means, delay histograms.
//! - [`sim`]: the event loop tying it together; [`config`] is its input and [`results`]
//!   its output.
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

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod event;
pub mod net;
pub mod packet;
pub mod qdisc;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod traffic;

pub use config::{ConfigError, RunConfig};
pub use results::RunResults;
pub use sim::Sim;

use serde::Serialize;

/// Runs one simulation to the end.
///
/// # Errors
/// A configuration value the core refuses, or an unreachable flow destination.
pub fn run(cfg: &RunConfig) -> Result<RunResults, ConfigError> {
    sim::run_config(cfg)
}

/// Everything that can be selected by name in an experiment, with parameters and defaults.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// Queue disciplines.
    pub qdiscs: Vec<qdisc::AlgorithmInfo>,
    /// Congestion controls.
    pub cc: Vec<CcInfo>,
    /// Traffic kinds.
    pub traffic: Vec<qdisc::AlgorithmInfo>,
}

/// A congestion control's name and description.
#[derive(Debug, Clone, Serialize)]
pub struct CcInfo {
    /// Name used as `cc` in experiment files.
    pub name: &'static str,
    /// Description with its source.
    pub summary: &'static str,
}

/// Returns the catalog of algorithms for `qdsim list`.
pub fn catalog() -> Catalog {
    Catalog {
        qdiscs: qdisc::catalog(),
        cc: tcp::CcKind::ALL.iter().map(|(_, name, summary)| CcInfo { name, summary }).collect(),
        traffic: traffic::catalog(),
    }
}
