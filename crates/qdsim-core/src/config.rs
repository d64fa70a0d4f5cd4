//! The resolved run configuration: what the core is asked to simulate.
//!
//! This is the contract between the Python package and the core. The Python side parses and
//! validates the human experiment file (units as strings, shorthands such as `dumbbell`,
//! sweeps) and *resolves* it into one [`RunConfig`] per point and seed: plain integers in
//! nanoseconds, bits per second and bytes, every node and link explicit. The core validates it
//! again ([`RunConfig::validate`]) because it can be built from any JSON, and answers a bad
//! value with a [`ConfigError`] naming the key path, the value and what is allowed — never a
//! panic.
//!
//! All types deserialize from JSON with `deny_unknown_fields`, so a misspelt key is an error,
//! not a silently ignored option.

mod shared_sources;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::packet::HEADER_BYTES;
use crate::pcap::PcapConfig;
use crate::qdisc::QdiscConfig;
use crate::tcp::TcpConfig;

/// A set of node or link names, only ever asked whether it holds one (a hash set: with 10⁴
/// flows an ordered set's string comparisons were most of the validation's time; hashed by
/// rustc's fast hash, not the standard SipHash, 9 % of the set-up at 10⁵ flows). Whoever
/// lists one sorts it first.
pub type Names<'a> = rustc_hash::FxHashSet<&'a str>;

/// Returns an empty [`Names`] with room for `n` names.
fn names_with_capacity<'a>(n: usize) -> Names<'a> {
    Names::with_capacity_and_hasher(n, Default::default())
}

/// One simulation run, fully resolved.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The run seed; every random stream of the run is derived from it.
    pub seed: u64,
    /// Simulated duration in nanoseconds; the run stops at this time.
    pub duration_ns: u64,
    /// Start of the measurement window in nanoseconds (warm-up cut); statistics that are
    /// "over the window" count from here to `duration_ns`.
    #[serde(default)]
    pub warmup_ns: u64,
    /// Node names, in index order. Links and flows refer to nodes by name.
    pub nodes: Vec<String>,
    /// Unidirectional links.
    pub links: Vec<LinkConfig>,
    /// Sources that flows name by index (`"source": 0`) instead of each holding a copy: a
    /// group's flows share one, a kilobyte of TCP options written once. Only read
    /// ([`RunConfig::parse_json`] puts each in the flows that name it, `config/shared_sources.rs`),
    /// so empty in a configuration once read, and not written when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceConfig>,
    /// Traffic sources, each one flow from `src` to `dst`.
    pub flows: Vec<FlowConfig>,
    /// Hosts (endpoint nodes) that delay the packets they send by a random processing time
    /// (see [`HostConfig`]); a node not listed sends at once. The Python package lists every
    /// flow endpoint with the experiment file's `[topology] host_jitter`.
    #[serde(default)]
    pub hosts: Vec<HostConfig>,
    /// Optional sampled time series (queue lengths, TCP state).
    #[serde(default)]
    pub sampling: SamplingConfig,
    /// Optional packet capture of some links into libpcap files (`crate::pcap`).
    #[serde(default)]
    pub pcap: Option<PcapConfig>,
}

/// A unidirectional link and the queue discipline at its input.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Unique link name, used in results (e.g. `"r1->r2"`).
    pub name: String,
    /// Name of the transmitting node.
    pub from: String,
    /// Name of the receiving node.
    pub to: String,
    /// Transmission rate in bit/s (> 0).
    pub rate_bps: u64,
    /// One-way propagation delay in nanoseconds.
    pub delay_ns: u64,
    /// Probability in [0, 1) that a packet is lost on the wire after transmission
    /// (Bernoulli, independent per packet).
    #[serde(default)]
    pub loss: f64,
    /// Routing metric; shortest paths minimise the sum of metrics (default 1 = hop count).
    #[serde(default = "default_metric")]
    pub metric: u32,
    /// The output queue discipline of this link.
    pub qdisc: QdiscConfig,
}

fn default_metric() -> u32 {
    1
}

/// The packet processing of one host: each packet its endpoints send waits a time drawn
/// uniformly from `[0, jitter_ns]` (the host's own random stream) before it reaches the host's
/// output link, never overtaking the packets sent before it. It breaks the exact phase
/// relations of a lattice of fixed rates and sizes (Floyd & Jacobson 1992); see
/// `net/host.rs` and `docs/tcp.md`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// The host's node name.
    pub node: String,
    /// Largest processing delay in nanoseconds; 0 = none.
    pub jitter_ns: u64,
}

/// Largest host processing delay the core accepts: 1 s, far above any per-packet processing.
pub const MAX_HOST_JITTER_NS: u64 = 1_000_000_000;

/// One traffic source and its sink.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Flow group name, used to aggregate results (e.g. `"short_rtt"`).
    pub group: String,
    /// Sending node name.
    pub src: String,
    /// Receiving node name.
    pub dst: String,
    /// User (or traffic class) id carried by every packet of the flow, for class-based
    /// classifiers (per-user fair queueing, per-class weights). Default: the index of the
    /// flow's group in order of first appearance.
    #[serde(default)]
    pub user: Option<u32>,
    /// Earliest start time in nanoseconds.
    #[serde(default)]
    pub start_ns: u64,
    /// The start time is drawn uniformly from `[start_ns, start_ns + start_jitter_ns)`
    /// from the run's `flow_start` random stream (0 = start exactly at `start_ns`).
    #[serde(default)]
    pub start_jitter_ns: u64,
    /// The traffic kind and its parameters.
    #[serde(deserialize_with = "shared_sources::deserialize")]
    pub source: SourceConfig,
}

/// Kinds of traffic source.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceConfig {
    /// A TCP connection. With `size_bytes` absent it is saturated (always has data); with it,
    /// a finite transfer whose flow completion time is recorded.
    Tcp {
        /// Bytes of application data to transfer; `None` = infinite (bulk).
        #[serde(default)]
        size_bytes: Option<u64>,
        /// TCP parameters.
        #[serde(default)]
        tcp: TcpConfig,
        /// Repeat the transfer in rounds synchronised with other flows (incast,
        /// partition/aggregate): needs `size_bytes`.
        #[serde(default)]
        repeat: Option<RepeatConfig>,
    },
    /// Finite TCP transfers from `src` to `dst` arriving as a Poisson process (each a new
    /// connection), sizes uniform in `[size_min_bytes, size_max_bytes]` (the short flows of
    /// data-center workloads) or drawn from `sizes`. Stops creating transfers at `stop_ns` (or
    /// the end of the run). With `hosts`, each transfer runs between a pair of hosts of that
    /// pool, each behind its own access links, instead of `src` → `dst` (`sim/apps.rs`).
    ShortFlows {
        /// Mean arrivals per second (> 0).
        arrival_rate_per_s: f64,
        /// Smallest transfer of uniform sizes, bytes (> 0); absent (0) with `sizes`.
        #[serde(default)]
        size_min_bytes: u64,
        /// Largest transfer of uniform sizes, bytes (>= the smallest); absent (0) with `sizes`.
        #[serde(default)]
        size_max_bytes: u64,
        /// Another size law than uniform; `None` = uniform in `[size_min_bytes, size_max_bytes]`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sizes: Option<FlowSizes>,
        /// TCP parameters of every transfer.
        #[serde(default)]
        tcp: TcpConfig,
        /// When arrivals stop (ns); `None` = end of run.
        #[serde(default)]
        stop_ns: Option<u64>,
        /// The pool of (sender, receiver) hosts transfers run between; empty = every transfer
        /// from the flow's `src` to its `dst`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hosts: Vec<HostPair>,
    },
    /// An on-off TCP source (Kantawala & Turner 2005, §4): one connection that is handed a
    /// burst of data, and after the receiver has all of it an exponentially distributed idle
    /// time, then the next burst. Every burst is a row of the transfer table (its round is
    /// the burst's number), with its completion time.
    OnOff {
        /// Burst size in full segments (each `tcp.mss()` bytes); this or `burst_bytes`.
        #[serde(default)]
        burst_pkts: Option<u64>,
        /// Burst size in bytes of application data; this or `burst_pkts`.
        #[serde(default)]
        burst_bytes: Option<u64>,
        /// Mean of the exponential idle time between a burst's completion and the next, ns.
        idle_ns: u64,
        /// When the first burst is handed to TCP.
        #[serde(default)]
        first_burst: FirstBurst,
        /// TCP parameters of the connection.
        #[serde(default)]
        tcp: TcpConfig,
    },
    /// Unresponsive datagrams arriving as a Poisson process that offers `rate_bps`, in
    /// packets of fixed or exponential sizes (`traffic/poisson.rs`), until `stop_ns` (or the
    /// end of the run): the aggregate of many non-bottlenecked flows (Augé & Roberts 2006).
    PoissonPackets {
        /// Offered bit rate, counting whole packets (> 0).
        rate_bps: u64,
        /// Packet size on the wire in bytes; the mean of the exponential law.
        #[serde(default = "default_packet_bytes")]
        packet_bytes: u32,
        /// The size law.
        #[serde(default)]
        size_distribution: PacketSizeLaw,
        /// Smallest exponential size, bytes.
        #[serde(default = "default_min_packet_bytes")]
        min_packet_bytes: u32,
        /// Largest exponential size, bytes.
        #[serde(default = "default_max_packet_bytes")]
        max_packet_bytes: u32,
        /// Time at which the source stops sending (nanoseconds); `None` = end of run.
        #[serde(default)]
        stop_ns: Option<u64>,
    },
    /// A UDP constant-bit-rate source, sending `packet_bytes` packets at `rate_bps` until
    /// `stop_ns` (or the end of the run).
    UdpCbr {
        /// Sending rate in bit/s, counting whole packets (> 0).
        rate_bps: u64,
        /// Packet size on the wire in bytes.
        #[serde(default = "default_packet_bytes")]
        packet_bytes: u32,
        /// Time at which the source stops sending (nanoseconds); `None` = end of run.
        #[serde(default)]
        stop_ns: Option<u64>,
    },
}

/// The size law of transfers arriving at random (`short_flows` with `sizes`), in bytes of
/// application data; a size is rounded to whole bytes, at least 1 (`sim/apps.rs`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(tag = "distribution", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowSizes {
    /// Exponential of mean `mean_bytes`.
    Exponential {
        /// Mean size, bytes (> 0).
        mean_bytes: u64,
    },
    /// Pareto of shape `shape` (> 1, so that the mean is finite) and mean `mean_bytes`: scale
    /// `x_m = mean·(shape − 1)/shape`, `P(X > x) = (x_m/x)^shape` for `x ≥ x_m`, capped at
    /// [`MAX_TRANSFER_BYTES`].
    Pareto {
        /// Mean size, bytes (> 0).
        mean_bytes: u64,
        /// Shape α (> 1; the variance is infinite for α ≤ 2).
        shape: f64,
    },
    /// Every transfer has `bytes`.
    Fixed {
        /// Size, bytes (> 0).
        bytes: u64,
    },
}

/// Largest transfer a size law draws: 1 TiB, so that a Pareto tail cannot overflow; with a
/// mean of 1 MB and shape 1.1 a draw exceeds it with probability 10⁻⁷.
pub const MAX_TRANSFER_BYTES: u64 = 1 << 40;

impl FlowSizes {
    /// Returns the mean transfer size in bytes.
    pub fn mean_bytes(&self) -> f64 {
        match *self {
            FlowSizes::Exponential { mean_bytes } | FlowSizes::Pareto { mean_bytes, .. } => mean_bytes as f64,
            FlowSizes::Fixed { bytes } => bytes as f64,
        }
    }

    /// Checks the law's parameters.
    ///
    /// # Errors
    /// The first offending value, with its key (relative to `sizes`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        match *self {
            FlowSizes::Exponential { mean_bytes: 0 } | FlowSizes::Pareto { mean_bytes: 0, .. } => {
                Err(ConfigError::new("mean_bytes", 0, "a mean size > 0 bytes"))
            }
            FlowSizes::Pareto { shape, .. } if !(shape.is_finite() && shape > 1.0) => {
                Err(ConfigError::new("shape", shape, "a finite shape > 1 (the mean is infinite for shape <= 1)"))
            }
            FlowSizes::Fixed { bytes: 0 } => Err(ConfigError::new("bytes", 0, "a size > 0 bytes")),
            _ => Ok(()),
        }
    }
}

/// One (sender, receiver) pair of a transfer pool.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HostPair {
    /// Sending node name.
    pub src: String,
    /// Receiving node name.
    pub dst: String,
}

/// The size law of a Poisson packet source.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PacketSizeLaw {
    /// Every packet has `packet_bytes`.
    #[default]
    Fixed,
    /// Exponential of mean `packet_bytes`, rounded and clamped to
    /// `[min_packet_bytes, max_packet_bytes]` (`traffic/poisson.rs`).
    Exponential,
}

/// Default smallest datagram of a Poisson source: the headers and one byte of payload.
pub fn default_min_packet_bytes() -> u32 {
    HEADER_BYTES + 1
}

/// Default largest datagram of a Poisson source: an IP datagram's largest size.
pub fn default_max_packet_bytes() -> u32 {
    65535
}

/// When an on-off source hands its first burst to TCP.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FirstBurst {
    /// After one idle time drawn from the flow's start: the source starts in its off phase,
    /// so that sources starting together do not send their first bursts together.
    #[default]
    Idle,
    /// At the flow's start.
    Start,
}

/// Rounds of a repeated transfer: every flow naming the same `barrier` starts its next
/// round once all of them have finished the current one (the client of an incast waits for
/// every server's response before its next request). A round is a new connection, or with
/// `persistent` the next `size_bytes` on the flow's one connection.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RepeatConfig {
    /// Name shared by the flows that wait for one another.
    pub barrier: String,
    /// Number of rounds; `None` = until the end of the run.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// Pause between the end of a round and the next requests, ns.
    #[serde(default)]
    pub think_ns: u64,
    /// Serve every round over the same connection, which keeps its window, RTT estimate
    /// and RTO between rounds (the ns-2 incast setups; a server keeps its connection to
    /// the client). Default false: a fresh connection per round.
    #[serde(default)]
    pub persistent: bool,
}

/// Default wire size of a packet: 1500 bytes, an Ethernet MTU.
pub fn default_packet_bytes() -> u32 {
    1500
}

/// Optional time series recorded during the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SamplingConfig {
    /// Sampling interval in nanoseconds; 0 disables sampling.
    #[serde(default)]
    pub interval_ns: u64,
    /// Record the queue length of every link at each sample.
    #[serde(default)]
    pub queues: bool,
    /// Record cwnd, ssthresh, srtt and bytes in flight of every TCP flow at each sample.
    #[serde(default)]
    pub tcp: bool,
    /// Also record a TCP flow's state whenever its cwnd or ssthresh changes (needs no
    /// interval).
    #[serde(default)]
    pub tcp_on_change: bool,
    /// Record a per-flow event log of fast retransmits, retransmissions and timeouts.
    #[serde(default)]
    pub tcp_events: bool,
    /// Record every link's qdisc internals ([`crate::qdisc::Qdisc::internals`]: EWFQ's
    /// `m_fair`, `m_i`, `gamma_i`, `d_i`, ...) at each sample.
    #[serde(default)]
    pub qdisc: bool,
    /// Add to each queue sample the bytes the link finished transmitting since the previous
    /// sample (`tx_bytes`), so its utilization over any multiple of the interval is a sum;
    /// records the queue rows even without `queues`.
    #[serde(default)]
    pub tx_bytes: bool,
    /// Record TCP state (`tcp`, `tcp_on_change`) only for the flows of these groups and the
    /// connections they open; `None` = every TCP flow.
    #[serde(default)]
    pub tcp_groups: Option<Vec<String>>,
    /// Report every transfer generator's arrivals and the time-weighted distribution of its
    /// transfers in progress (`RunResults::generators`); generators with a host pool are
    /// reported anyway.
    #[serde(default)]
    pub flows_in_progress: bool,
    /// Record every packet offered to one link (`RunResults::series.packets`).
    #[serde(default)]
    pub packets: Option<PacketRecordConfig>,
    /// Keep the distribution of sojourn times (the links table's `p50`–`p99_delay_s`) only
    /// at these links; `None` = at every link. The others keep their counters, so their mean
    /// delay is reported still; their ports allocate no histogram (at 10⁴ flows a third of the
    /// memory and most of a tenth of the time the books cost, `docs/performance.md`).
    #[serde(default)]
    pub link_delays: Option<Vec<String>>,
}

/// The packet-emission record: one row (time, flow, size, lost) per packet offered to the
/// link `link` in `[start_ns, stop_ns)`, at most `max_rows` rows (`sim/record.rs`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PacketRecordConfig {
    /// The link's name.
    pub link: String,
    /// First offer recorded, ns.
    #[serde(default)]
    pub start_ns: u64,
    /// End of the recording, ns; `None` = end of run.
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// Most rows recorded (> 0); later offers are only counted
    /// (`RunResults::packets_not_recorded`). Each row holds 17 bytes.
    #[serde(default = "default_packet_rows")]
    pub max_rows: u64,
}

/// Default row cap of the packet record: 4 million rows, 68 MB (with about as much again
/// while they are handed to Python) — 13 minutes of a 50 Mb/s link full of 1500 B packets.
pub fn default_packet_rows() -> u64 {
    4_000_000
}

/// Largest row cap of the packet record: 10⁸ rows, 1.7 GB.
pub const MAX_PACKET_ROWS: u64 = 100_000_000;

impl RunConfig {
    /// Parses a run configuration from JSON and validates it.
    ///
    /// # Errors
    /// A JSON syntax or schema error (unknown key, wrong type) or a value out of range.
    pub fn from_json(text: &str) -> Result<RunConfig, ConfigError> {
        let cfg = RunConfig::parse_json(text)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parses a run configuration from JSON without checking its values: for a caller that
    /// runs it at once, since every run checks them ([`Sim::new`](crate::Sim::new),
    /// [`run_watched`](crate::run_watched)) — at 10⁵ flows a second check cost 5 % of the
    /// set-up.
    ///
    /// # Errors
    /// A JSON syntax or schema error (unknown key, wrong type).
    pub fn parse_json(text: &str) -> Result<RunConfig, ConfigError> {
        shared_sources::sharing(|| serde_json::from_str(text))
    }

    /// Checks every value against its allowed range and every name reference.
    ///
    /// # Errors
    /// The first offending value, with its key path.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.duration_ns == 0 {
            return Err(ConfigError::new("duration_ns", 0, "must be > 0"));
        }
        if self.warmup_ns >= self.duration_ns {
            return Err(ConfigError::new(
                "warmup_ns",
                self.warmup_ns,
                format!("must be < duration_ns ({})", self.duration_ns),
            ));
        }
        if !self.sources.is_empty() {
            return Err(ConfigError::new(
                "sources",
                format!("{} sources", self.sources.len()),
                "none once read: flows name them by index in JSON, which RunConfig::parse_json puts in each flow",
            ));
        }
        let nodes = self.node_names()?;
        let mut link_names = names_with_capacity(self.links.len());
        // Key paths are only formatted for an error: at 4·10⁵ links and 2·10⁵ hosts, formatting
        // them for every item was a tenth of checking the configuration.
        for (i, l) in self.links.iter().enumerate() {
            if !link_names.insert(l.name.as_str()) {
                return Err(ConfigError::new(format!("links[{i}].name"), &l.name, "link names must be unique"));
            }
            l.validate(&nodes).map_err(|e| e.within(&format!("links[{i}]")))?;
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.validate(&nodes, self.duration_ns).map_err(|e| e.within(&format!("flows[{i}]")))?;
        }
        let mut hosts = names_with_capacity(self.hosts.len());
        for (i, h) in self.hosts.iter().enumerate() {
            h.validate(&nodes, &mut hosts).map_err(|e| e.within(&format!("hosts[{i}]")))?;
        }
        let sampling = &self.sampling;
        if sampling.interval_ns == 0 && (sampling.queues || sampling.tcp || sampling.qdisc || sampling.tx_bytes) {
            return Err(ConfigError::new(
                "sampling.interval_ns",
                0,
                "> 0 when sampling.queues, sampling.tcp, sampling.qdisc or sampling.tx_bytes is on",
            ));
        }
        if let Some(p) = &self.pcap {
            p.validate(&link_names)?;
        }
        self.validate_sampled_names(&link_names)
    }

    /// Checks the groups and the links the sampling names.
    fn validate_sampled_names(&self, links: &Names<'_>) -> Result<(), ConfigError> {
        let sampling = &self.sampling;
        for (i, g) in sampling.tcp_groups.iter().flatten().enumerate() {
            if !self.flows.iter().any(|f| &f.group == g) {
                return Err(ConfigError::new(format!("sampling.tcp_groups[{i}]"), g, "the name of a flow group"));
            }
        }
        let mut listed = BTreeSet::new();
        for (i, name) in sampling.link_delays.iter().flatten().enumerate() {
            if !links.contains(name.as_str()) {
                return Err(ConfigError::new(
                    format!("sampling.link_delays[{i}]"),
                    name,
                    "the name of a link in `links`",
                ));
            }
            if !listed.insert(name) {
                return Err(ConfigError::new(format!("sampling.link_delays[{i}]"), name, "a link listed once"));
            }
        }
        if let Some(p) = &sampling.packets {
            if !links.contains(p.link.as_str()) {
                return Err(ConfigError::new("sampling.packets.link", &p.link, "the name of a link in `links`"));
            }
            if !(1..=MAX_PACKET_ROWS).contains(&p.max_rows) {
                return Err(ConfigError::new(
                    "sampling.packets.max_rows",
                    p.max_rows,
                    format!("from 1 to {MAX_PACKET_ROWS} rows"),
                ));
            }
            if p.stop_ns.is_some_and(|stop| stop <= p.start_ns) {
                return Err(ConfigError::new(
                    "sampling.packets.stop_ns",
                    format!("{:?}", p.stop_ns),
                    format!("a stop after start_ns ({})", p.start_ns),
                ));
            }
        }
        Ok(())
    }

    /// Returns the configuration with every flow endpoint listed in `hosts` with processing
    /// delays up to `jitter_ns` (replacing any `hosts` it had), endpoints in order of first
    /// use; for the core's tests and benchmarks, as the Python package resolves
    /// `[topology] host_jitter`.
    pub fn with_host_jitter(mut self, jitter_ns: u64) -> Self {
        let mut seen = BTreeSet::new();
        self.hosts = self
            .flows
            .iter()
            .flat_map(|f| [&f.src, &f.dst])
            .filter(|n| seen.insert(n.as_str()))
            .map(|n| HostConfig { node: n.clone(), jitter_ns })
            .collect();
        self
    }

    /// Returns the node names, checked to be unique and at least one.
    fn node_names(&self) -> Result<Names<'_>, ConfigError> {
        if self.nodes.is_empty() {
            return Err(ConfigError::new("nodes", "[]", "at least one node"));
        }
        let mut seen = names_with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            if !seen.insert(n.as_str()) {
                return Err(ConfigError::new(format!("nodes[{i}]"), n, "node names must be unique"));
            }
        }
        Ok(seen)
    }
}

/// Checks that `name`, the value of `key`, is one of the `nodes`.
fn known_node(nodes: &Names<'_>, key: &str, name: &str) -> Result<(), ConfigError> {
    if nodes.contains(name) {
        Ok(())
    } else {
        Err(ConfigError::new(key, name, "the name of a node in `nodes`"))
    }
}

impl HostConfig {
    /// Checks the host is one of `nodes` and not among the `listed` before it (it joins them).
    ///
    /// # Errors
    /// The first offending value, with its key (relative to the host).
    fn validate<'a>(&'a self, nodes: &Names<'_>, listed: &mut Names<'a>) -> Result<(), ConfigError> {
        known_node(nodes, "node", &self.node)?;
        if !listed.insert(self.node.as_str()) {
            return Err(ConfigError::new("node", &self.node, "a node not listed before in `hosts`"));
        }
        if self.jitter_ns > MAX_HOST_JITTER_NS {
            return Err(ConfigError::new("jitter_ns", self.jitter_ns, "at most 1 s (1000000000 ns)"));
        }
        Ok(())
    }
}

impl LinkConfig {
    /// Checks the link between two of `nodes`, and its qdisc as installed on it.
    ///
    /// # Errors
    /// The first offending value, with its key (relative to the link).
    pub fn validate(&self, nodes: &Names<'_>) -> Result<(), ConfigError> {
        known_node(nodes, "from", &self.from)?;
        known_node(nodes, "to", &self.to)?;
        if self.from == self.to {
            return Err(ConfigError::new("to", &self.to, "a node other than `from`"));
        }
        if self.rate_bps == 0 {
            return Err(ConfigError::new("rate_bps", 0, "a rate > 0 bit/s"));
        }
        if !(0.0..1.0).contains(&self.loss) {
            return Err(ConfigError::new("loss", self.loss, "a probability in [0, 1)"));
        }
        if self.metric == 0 {
            return Err(ConfigError::new("metric", 0, "a routing metric >= 1"));
        }
        self.qdisc.on_link(self.rate_bps).validate().map_err(|e| e.within("qdisc"))
    }
}

impl FlowConfig {
    /// Checks the flow between two of `nodes`, starting in a run of `duration_ns`.
    ///
    /// # Errors
    /// The first offending value, with its key (relative to the flow).
    pub fn validate(&self, nodes: &Names<'_>, duration_ns: u64) -> Result<(), ConfigError> {
        known_node(nodes, "src", &self.src)?;
        known_node(nodes, "dst", &self.dst)?;
        if self.src == self.dst {
            return Err(ConfigError::new("dst", &self.dst, "a node other than `src`"));
        }
        if self.start_ns >= duration_ns {
            return Err(ConfigError::new(
                "start_ns",
                self.start_ns,
                format!("a start before the end of the run ({duration_ns} ns)"),
            ));
        }
        if let SourceConfig::ShortFlows { hosts, .. } = &self.source {
            for (j, h) in hosts.iter().enumerate() {
                let p = format!("source.hosts[{j}]");
                known_node(nodes, &format!("{p}.src"), &h.src)?;
                known_node(nodes, &format!("{p}.dst"), &h.dst)?;
                if h.src == h.dst {
                    return Err(ConfigError::new(format!("{p}.dst"), &h.dst, "a node other than `src`"));
                }
            }
        }
        self.source.validate().map_err(|e| e.within("source"))
    }

    /// Returns every (sender, receiver) pair the flow's packets may run between: its own,
    /// then its transfer pool's.
    pub fn endpoints(&self) -> impl Iterator<Item = (&str, &str)> {
        let pool = match &self.source {
            SourceConfig::ShortFlows { hosts, .. } => hosts.as_slice(),
            _ => &[],
        };
        std::iter::once((self.src.as_str(), self.dst.as_str()))
            .chain(pool.iter().map(|h| (h.src.as_str(), h.dst.as_str())))
    }
}

impl SourceConfig {
    /// Returns the kind's name (the `kind` tag), as results report it.
    pub fn kind(&self) -> &'static str {
        match self {
            SourceConfig::Tcp { .. } => "tcp",
            SourceConfig::ShortFlows { .. } => "short_flows",
            SourceConfig::OnOff { .. } => "on_off",
            SourceConfig::UdpCbr { .. } => "udp_cbr",
            SourceConfig::PoissonPackets { .. } => "poisson_packets",
        }
    }

    /// Returns the TCP configuration of the source's connections, if it opens any.
    pub fn tcp(&self) -> Option<&TcpConfig> {
        match self {
            SourceConfig::Tcp { tcp, .. } | SourceConfig::ShortFlows { tcp, .. } | SourceConfig::OnOff { tcp, .. } => {
                Some(tcp)
            }
            SourceConfig::UdpCbr { .. } | SourceConfig::PoissonPackets { .. } => None,
        }
    }

    /// Returns the burst size in bytes of an on-off source (`None` for other kinds).
    pub fn burst_bytes(&self) -> Option<u64> {
        match self {
            SourceConfig::OnOff { burst_pkts, burst_bytes, tcp, .. } => {
                burst_bytes.or(burst_pkts.map(|n| n.saturating_mul(tcp.mss() as u64)))
            }
            _ => None,
        }
    }

    /// Checks the source's parameters.
    ///
    /// # Errors
    /// The first offending value, with its key (relative to the source).
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            SourceConfig::Tcp { size_bytes, tcp, repeat } => {
                if *size_bytes == Some(0) {
                    return Err(ConfigError::new("size_bytes", 0, "> 0 bytes, or absent for a saturated flow"));
                }
                if let Some(r) = repeat {
                    if size_bytes.is_none() {
                        return Err(ConfigError::new("repeat", &r.barrier, "only with a finite size_bytes"));
                    }
                    if r.rounds == Some(0) {
                        return Err(ConfigError::new("repeat.rounds", 0, "at least 1 round, or absent"));
                    }
                }
                tcp.validate().map_err(|e| e.within("tcp"))
            }
            SourceConfig::ShortFlows { arrival_rate_per_s, size_min_bytes, size_max_bytes, sizes, tcp, .. } => {
                if !(arrival_rate_per_s.is_finite() && *arrival_rate_per_s > 0.0) {
                    return Err(ConfigError::new(
                        "arrival_rate_per_s",
                        arrival_rate_per_s,
                        "a finite rate > 0 per second",
                    ));
                }
                if let Some(law) = sizes {
                    for (key, v) in [("size_min_bytes", size_min_bytes), ("size_max_bytes", size_max_bytes)] {
                        if *v != 0 {
                            return Err(ConfigError::new(key, v, "absent with `sizes` (uniform sizes only)"));
                        }
                    }
                    law.validate().map_err(|e| e.within("sizes"))?;
                    return tcp.validate().map_err(|e| e.within("tcp"));
                }
                if *size_min_bytes == 0 {
                    return Err(ConfigError::new("size_min_bytes", 0, "> 0 bytes"));
                }
                if size_max_bytes < size_min_bytes {
                    return Err(ConfigError::new(
                        "size_max_bytes",
                        size_max_bytes,
                        format!(">= size_min_bytes ({size_min_bytes})"),
                    ));
                }
                tcp.validate().map_err(|e| e.within("tcp"))
            }
            SourceConfig::OnOff { burst_pkts, burst_bytes, idle_ns, tcp, .. } => {
                match (burst_pkts, burst_bytes) {
                    (Some(_), Some(_)) | (None, None) => {
                        return Err(ConfigError::new(
                            "burst_pkts",
                            format!("{burst_pkts:?} / {burst_bytes:?}"),
                            "exactly one burst size, in packets (burst_pkts) or bytes (burst_bytes)",
                        ))
                    }
                    (Some(0), _) => return Err(ConfigError::new("burst_pkts", 0, "at least 1 packet")),
                    (_, Some(0)) => return Err(ConfigError::new("burst_bytes", 0, "at least 1 byte")),
                    _ => {}
                }
                if *idle_ns == 0 {
                    return Err(ConfigError::new("idle_ns", 0, "a mean idle time > 0"));
                }
                tcp.validate().map_err(|e| e.within("tcp"))
            }
            SourceConfig::UdpCbr { rate_bps, packet_bytes, .. } => {
                if *rate_bps == 0 {
                    return Err(ConfigError::new("rate_bps", 0, "a rate > 0 bit/s"));
                }
                datagram_size("packet_bytes", *packet_bytes)
            }
            SourceConfig::PoissonPackets { rate_bps, packet_bytes, min_packet_bytes, max_packet_bytes, .. } => {
                if *rate_bps == 0 {
                    return Err(ConfigError::new("rate_bps", 0, "a rate > 0 bit/s"));
                }
                datagram_size("packet_bytes", *packet_bytes)?;
                datagram_size("min_packet_bytes", *min_packet_bytes)?;
                if max_packet_bytes < packet_bytes {
                    return Err(ConfigError::new(
                        "max_packet_bytes",
                        max_packet_bytes,
                        format!(">= packet_bytes ({packet_bytes})"),
                    ));
                }
                if min_packet_bytes > packet_bytes {
                    return Err(ConfigError::new(
                        "min_packet_bytes",
                        min_packet_bytes,
                        format!("<= packet_bytes ({packet_bytes})"),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// Checks a datagram size: at least the headers plus one payload byte.
fn datagram_size(key: &str, bytes: u32) -> Result<(), ConfigError> {
    if bytes < HEADER_BYTES + 1 {
        return Err(ConfigError::new(
            key,
            bytes,
            format!("at least {} bytes (headers plus one payload byte)", HEADER_BYTES + 1),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes, a link each way, one TCP flow: valid.
    fn base() -> serde_json::Value {
        serde_json::json!({
            "seed": 1, "duration_ns": 1_000_000_000u64, "nodes": ["a", "b"],
            "links": [
                {"name": "a->b", "from": "a", "to": "b", "rate_bps": 1_000_000, "delay_ns": 0, "qdisc": {"kind": "fifo"}},
                {"name": "b->a", "from": "b", "to": "a", "rate_bps": 1_000_000, "delay_ns": 0, "qdisc": {"kind": "fifo"}}
            ],
            "flows": [{"group": "g", "src": "a", "dst": "b", "source": {"kind": "tcp"}}]
        })
    }

    /// Returns the key of the error `base()` changed by `change` gives.
    fn key(change: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v = base();
        change(&mut v);
        RunConfig::from_json(&v.to_string()).unwrap_err().key
    }

    #[test]
    fn parsing_alone_leaves_the_checks_to_the_run() {
        let mut v = base();
        v["links"][0]["rate_bps"] = 0.into();
        let cfg = RunConfig::parse_json(&v.to_string()).expect("well-formed JSON of the schema");
        assert_eq!(cfg.validate().unwrap_err().key, "links[0].rate_bps");
        assert_eq!(RunConfig::from_json(&v.to_string()).unwrap_err().key, "links[0].rate_bps");
        assert_eq!(RunConfig::parse_json(r#"{"seed": 1}"#).unwrap_err().key, "config", "a schema error");
    }

    #[test]
    fn errors_name_the_full_key_path() {
        assert!(RunConfig::from_json(&base().to_string()).is_ok());
        assert_eq!(key(|v| v["nodes"][1] = "a".into()), "nodes[1]");
        assert_eq!(key(|v| v["links"][1]["name"] = "a->b".into()), "links[1].name");
        assert_eq!(key(|v| v["links"][0]["to"] = "c".into()), "links[0].to");
        assert_eq!(key(|v| v["links"][1]["loss"] = 1.0.into()), "links[1].loss");
        assert_eq!(key(|v| v["links"][0]["qdisc"]["limit_pkts"] = 0.into()), "links[0].qdisc.limit_pkts");
        assert_eq!(key(|v| v["flows"][0]["dst"] = "a".into()), "flows[0].dst");
        assert_eq!(key(|v| v["flows"][0]["start_ns"] = 2_000_000_000u64.into()), "flows[0].start_ns");
        assert_eq!(key(|v| v["flows"][0]["source"]["size_bytes"] = 0.into()), "flows[0].source.size_bytes");
        assert_eq!(
            key(|v| v["flows"][0]["source"]["tcp"] = serde_json::json!({"min_rto_ns": 0})),
            "flows[0].source.tcp.min_rto_ns"
        );
        assert_eq!(
            key(|v| v["flows"][0]["source"] = serde_json::json!({"kind": "udp_cbr", "rate_bps": 0})),
            "flows[0].source.rate_bps"
        );
        assert_eq!(key(|v| v["sampling"] = serde_json::json!({"queues": true})), "sampling.interval_ns");
        assert_eq!(key(|v| v["sampling"] = serde_json::json!({"tx_bytes": true})), "sampling.interval_ns");
        assert_eq!(key(|v| v["sampling"] = serde_json::json!({"tcp_groups": ["g", "x"]})), "sampling.tcp_groups[1]");
        assert_eq!(
            key(|v| v["sampling"] = serde_json::json!({"link_delays": ["a->b", "a->c"]})),
            "sampling.link_delays[1]"
        );
        assert_eq!(
            key(|v| v["sampling"] = serde_json::json!({"link_delays": ["b->a", "b->a"]})),
            "sampling.link_delays[1]"
        );
        assert_eq!(key(|v| v["sampling"] = serde_json::json!({"packets": {"link": "c->d"}})), "sampling.packets.link");
        assert_eq!(
            key(|v| v["sampling"] = serde_json::json!({"packets": {"link": "a->b", "max_rows": 0}})),
            "sampling.packets.max_rows"
        );
        assert_eq!(
            key(|v| v["sampling"] = serde_json::json!({"packets": {"link": "a->b", "start_ns": 5, "stop_ns": 5}})),
            "sampling.packets.stop_ns"
        );
        assert_eq!(key(|v| v["hosts"] = serde_json::json!([{"node": "c", "jitter_ns": 1}])), "hosts[0].node");
        assert_eq!(
            key(|v| v["hosts"] = serde_json::json!([{"node": "a", "jitter_ns": 1}, {"node": "a", "jitter_ns": 2}])),
            "hosts[1].node"
        );
        assert_eq!(
            key(|v| v["hosts"] = serde_json::json!([{"node": "a", "jitter_ns": 2_000_000_000u64}])),
            "hosts[0].jitter_ns"
        );
        let source = |source: serde_json::Value| key(|v| v["flows"][0]["source"] = source);
        let poisson = |extra: serde_json::Value| {
            let mut s = serde_json::json!({"kind": "poisson_packets", "rate_bps": 1_000_000});
            s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            source(s)
        };
        assert_eq!(poisson(serde_json::json!({"rate_bps": 0})), "flows[0].source.rate_bps");
        assert_eq!(poisson(serde_json::json!({"packet_bytes": 40})), "flows[0].source.packet_bytes");
        assert_eq!(poisson(serde_json::json!({"min_packet_bytes": 2000})), "flows[0].source.min_packet_bytes");
        assert_eq!(poisson(serde_json::json!({"max_packet_bytes": 1000})), "flows[0].source.max_packet_bytes");
        assert_eq!(
            poisson(serde_json::json!({"size_distribution": "pareto"})),
            "config",
            "an unknown size law is a schema error"
        );
        let short = |extra: serde_json::Value| {
            let mut s = serde_json::json!({"kind": "short_flows", "arrival_rate_per_s": 1.0});
            s.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            source(s)
        };
        assert_eq!(short(serde_json::json!({})), "flows[0].source.size_min_bytes");
        assert_eq!(
            short(serde_json::json!({"sizes": {"distribution": "pareto", "mean_bytes": 1000, "shape": 1.0}})),
            "flows[0].source.sizes.shape"
        );
        assert_eq!(
            short(serde_json::json!({"sizes": {"distribution": "exponential", "mean_bytes": 0}})),
            "flows[0].source.sizes.mean_bytes"
        );
        assert_eq!(
            short(serde_json::json!({"size_min_bytes": 5, "sizes": {"distribution": "fixed", "bytes": 9}})),
            "flows[0].source.size_min_bytes"
        );
        assert_eq!(
            short(
                serde_json::json!({"sizes": {"distribution": "fixed", "bytes": 9}, "hosts": [{"src": "a", "dst": "c"}]})
            ),
            "flows[0].source.hosts[0].dst"
        );
        assert_eq!(
            short(serde_json::json!({"sizes": {"distribution": "lognormal", "mean_bytes": 9}})),
            "config",
            "an unknown size law is a schema error"
        );
        let on_off = source;
        assert_eq!(on_off(serde_json::json!({"kind": "on_off", "idle_ns": 1})), "flows[0].source.burst_pkts");
        assert_eq!(
            on_off(serde_json::json!({"kind": "on_off", "burst_bytes": 0, "idle_ns": 1})),
            "flows[0].source.burst_bytes"
        );
        assert_eq!(
            on_off(serde_json::json!({"kind": "on_off", "burst_pkts": 2, "idle_ns": 0})),
            "flows[0].source.idle_ns"
        );
    }

    #[test]
    fn with_host_jitter_lists_every_flow_endpoint_once() {
        let mut cfg = RunConfig::from_json(&base().to_string()).unwrap();
        cfg.flows.push(FlowConfig { src: "b".into(), dst: "a".into(), ..cfg.flows[0].clone() });
        let cfg = cfg.with_host_jitter(10_000);
        let hosts: Vec<(&str, u64)> = cfg.hosts.iter().map(|h| (h.node.as_str(), h.jitter_ns)).collect();
        assert_eq!(hosts, vec![("a", 10_000), ("b", 10_000)]);
        assert!(cfg.validate().is_ok());
    }

    #[test]
    fn an_on_off_burst_in_packets_is_that_many_full_segments() {
        let s: SourceConfig = serde_json::from_value(serde_json::json!({
            "kind": "on_off", "burst_pkts": 256, "idle_ns": 1, "tcp": {"packet_bytes": 1540, "timestamps": false}
        }))
        .unwrap();
        // 1540 bytes on the wire without options: 40 of headers, 1500 of payload.
        assert_eq!(s.burst_bytes(), Some(256 * 1500));
        assert_eq!(SourceConfig::UdpCbr { rate_bps: 1, packet_bytes: 100, stop_ns: None }.burst_bytes(), None);
    }

    #[test]
    fn a_source_s_kind_is_its_serde_tag() {
        for source in [
            serde_json::json!({"kind": "tcp"}),
            serde_json::json!({"kind": "short_flows", "arrival_rate_per_s": 1.0, "size_min_bytes": 1, "size_max_bytes": 2}),
            serde_json::json!({"kind": "udp_cbr", "rate_bps": 1}),
            serde_json::json!({"kind": "on_off", "burst_pkts": 256, "idle_ns": 2_000_000_000u64}),
            serde_json::json!({"kind": "poisson_packets", "rate_bps": 1, "size_distribution": "exponential"}),
        ] {
            let s: SourceConfig = serde_json::from_value(source.clone()).unwrap();
            assert_eq!(s.kind(), source["kind"]);
            assert_eq!(s.tcp().is_some(), !["udp_cbr", "poisson_packets"].contains(&s.kind()));
        }
    }
}
