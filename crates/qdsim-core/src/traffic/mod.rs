//! Traffic sources and their sinks.
//!
//! Kinds: TCP flows (saturated bulk when no size is given, finite transfers otherwise; the
//! endpoints are `tcp`'s), UDP constant-bit-rate sources ([`CbrSource`]) and Poisson packet
//! sources ([`PoissonSource`]). Every endpoint
//! talks to the simulator through an [`Outbox`](crate::outbox::Outbox). Start times are
//! drawn by the simulator from the `flow_start` random stream.

mod cbr;
mod poisson;

pub use cbr::CbrSource;
pub use poisson::{PacketSizes, PoissonSource};

use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::tcp;

/// Returns the help of the `profile` key, naming every profile (built once).
fn profile_help() -> &'static str {
    static HELP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HELP.get_or_init(|| {
        let names: Vec<&str> = tcp::profiles::PROFILES.iter().map(|p| p.name).collect();
        let (last, rest) = names.split_last().expect("at least one profile");
        format!("TCP profile (tcp = {{ profile = ... }}): {} or {last}; the options below override it", rest.join(", "))
    })
}

/// Returns every traffic kind with its parameters.
pub fn catalog() -> Vec<AlgorithmInfo> {
    let tcp_flow = [
        ParamInfo { name: "size", unit: "bytes", default: "none", help: "bytes to transfer; none = saturated" },
        ParamInfo {
            name: "cc",
            unit: "name",
            default: "the profile's",
            help: "congestion control; without it, the profile's (its stack's default, or the agent it names)",
        },
        ParamInfo { name: "profile", unit: "name", default: tcp::profiles::DEFAULT, help: profile_help() },
    ];
    vec![
        AlgorithmInfo {
            name: "tcp",
            summary: "A TCP connection: saturated (bulk) without `size`, a finite transfer with it (FCT recorded)",
            params: tcp_flow.into_iter().chain(tcp::profiles::option_infos().iter().map(|o| o.as_param())).collect(),
        },
        AlgorithmInfo {
            name: "udp_cbr",
            summary: "UDP constant bit rate: fixed-size packets at a fixed rate, unresponsive",
            params: vec![
                ParamInfo { name: "rate", unit: "bit/s", default: "(required)", help: "sending rate" },
                ParamInfo { name: "packet_size", unit: "bytes", default: "1500B", help: "wire size of each packet" },
                ParamInfo { name: "stop", unit: "time", default: "end of run", help: "when the source stops" },
            ],
        },
        AlgorithmInfo {
            name: "poisson_packets",
            summary: "Unresponsive packets arriving as a Poisson process of a given bit rate, fixed or exponential sizes (the aggregate of many non-bottlenecked flows)",
            params: vec![
                ParamInfo { name: "rate", unit: "bit/s", default: "(required)", help: "offered bit rate (λ = rate / (8 × mean size))" },
                ParamInfo { name: "packet_size", unit: "bytes", default: "1500B", help: "wire size of each packet; the mean of exponential sizes" },
                ParamInfo { name: "size_distribution", unit: "name", default: "fixed", help: "fixed or exponential (rounded to whole bytes, clamped to [min_packet_size, max_packet_size])" },
                ParamInfo { name: "min_packet_size", unit: "bytes", default: "41B", help: "smallest exponential size: the 40 B of headers and one byte" },
                ParamInfo { name: "max_packet_size", unit: "bytes", default: "65535B", help: "largest exponential size: an IP datagram's largest" },
                ParamInfo { name: "stop", unit: "time", default: "end of run", help: "when the source stops" },
            ],
        },
    ]
}
