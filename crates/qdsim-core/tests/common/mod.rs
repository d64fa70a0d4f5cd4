//! Shared helpers of the core's integration tests.
#![allow(dead_code)]

use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::{plain_tcp, Dumbbell, FlowGroup};

/// Milliseconds in ns.
pub const MS: u64 = 1_000_000;
/// Seconds in ns.
pub const S: u64 = 1_000_000_000;

/// A FIFO of `n` packets.
pub fn fifo(n: u64) -> QdiscConfig {
    QdiscConfig::Fifo(FifoParams { limit_pkts: Some(n), limit_bytes: None })
}

/// A dumbbell with `n` bulk NewReno flows whose round-trip propagation delay is
/// `2 * (access + bottleneck)` ms.
pub fn dumbbell(rate_bps: u64, bottleneck_ms: u64, access_ms: u64, n: usize, buffer_pkts: u64) -> Dumbbell {
    Dumbbell {
        rate_bps,
        delay_ns: bottleneck_ms * MS,
        loss: 0.0,
        qdisc: fifo(buffer_pkts),
        groups: vec![FlowGroup::bulk("bulk", n, access_ms * MS, plain_tcp(false))],
    }
}
