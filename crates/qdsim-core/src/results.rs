//! What a run produces: per-flow, per-group and per-link summaries plus optional sampled
//! time series: the flows' and links' rows as Arrow columns ([`crate::arrow`]), the rest
//! serialisable to JSON, for the Python side.
//!
//! Summaries over "the window" cover `[warmup, duration)`. Time series are columnar
//! (one vector per column), never per-packet objects.

use std::collections::BTreeMap;

use serde::Serialize;

/// Everything one run produces.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResults {
    /// The run seed.
    pub seed: u64,
    /// Simulated duration in seconds.
    pub duration_s: f64,
    /// Start of the measurement window in seconds.
    pub warmup_s: f64,
    /// Number of events the simulator processed.
    pub events: u64,
    /// Data/UDP packets transmitted on any link (a throughput measure of the simulator).
    pub packets_forwarded: u64,
    /// One entry per flow, in configuration order; not in the JSON: a binding hands the
    /// rows over as Arrow columns ([`FlowResult::to_arrow`]), as it does the links'.
    #[serde(skip)]
    pub flows: Vec<FlowResult>,
    /// One entry per flow group, sorted by name.
    pub groups: Vec<GroupResult>,
    /// One entry per link, in configuration order; not in the JSON: a binding hands the
    /// rows over as Arrow columns ([`LinkResult::to_arrow`]) — a run of 10^5 flows has
    /// 4·10^5 links, 60 MB of JSON that Python parsed into a dict each and took apart again
    /// into the table's columns.
    #[serde(skip)]
    pub links: Vec<LinkResult>,
    /// Every finite TCP transfer (finite flows, incast rounds, short flows), columnar.
    pub transfers: Transfers,
    /// Sampled time series (empty unless sampling was configured).
    pub series: Series,
    /// Transfer generators (`short_flows`) with a host pool, or every one with
    /// `sampling.flows_in_progress`; left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorResult>,
    /// Packets offered to the recorded link (`sampling.packets`) beyond its row cap; `None`
    /// without a packet record (and then left out of the JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_not_recorded: Option<u64>,
}

/// One transfer generator over the window: its arrivals and how many of its transfers were
/// in progress (time-weighted), the quantity processor sharing predicts (`P(n) = (1 − ρ)ρⁿ`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GeneratorResult {
    /// The generator's flow index.
    pub flow: u32,
    /// Its group.
    pub group: String,
    /// Transfers that arrived in the window.
    pub arrivals: u64,
    /// Of those, transfers that found every host pair of the pool busy and shared one
    /// (0 without a pool).
    pub shared_arrivals: u64,
    /// Time-weighted mean number of transfers in progress over the window.
    pub mean_in_progress: f64,
    /// Most transfers in progress at once in the window.
    pub max_in_progress: u64,
    /// Fraction of the window with exactly n transfers in progress, n = 0, 1, ...
    pub in_progress_fraction: Vec<f64>,
}

result_row! {
    /// Columns of the transfer table: one row per finite TCP connection.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct Transfers {
        /// The configured flow it belongs to (a flow, an incast member or a generator).
        pub flow: Vec<u32>,
        /// Round of a repeated transfer (0 for others).
        pub round: Vec<u32>,
        /// Start, seconds.
        pub start_s: Vec<f64>,
        /// Size, bytes.
        pub size_bytes: Vec<u64>,
        /// Completion time, seconds (receiver has every byte); for a transfer unfinished at the
        /// end of the run, the time from its start to the end (censored: see `finished`).
        pub fct_s: Vec<f64>,
        /// Whether the transfer finished before the end of the run.
        pub finished: Vec<bool>,
    }
}

result_row! {
    arrow:
    /// Results of one flow.
    #[derive(Debug, Clone, Serialize, PartialEq)]
    pub struct FlowResult {
        /// Index of the flow in the configuration.
        pub id: u32,
        /// Its group.
        pub group: String,
        /// Source node name.
        pub src: String,
        /// Destination node name.
        pub dst: String,
        /// The source's kind (`"tcp"`, `"udp_cbr"`, `"poisson_packets"`, `"short_flows"`, ...).
        pub kind: String,
        /// Congestion control name (`""` for UDP).
        pub cc: String,
        /// Actual start time in seconds (after jitter).
        pub start_s: f64,
        /// Bytes of a finite transfer; `None` for saturated and UDP flows.
        pub size_bytes: Option<u64>,
        /// Application bytes delivered in order to the receiver within the window.
        pub delivered_bytes: u64,
        /// Goodput over the window in bit/s: `delivered_bytes × 8 / window`.
        pub goodput_bps: f64,
        /// Of `delivered_bytes`, those that reached the receiver before the window opened and
        /// waited there out of order for a hole to fill. They crossed the network before the
        /// window, so `goodput_bps` can exceed what the path carried in a short window by
        /// `held_before_window_bytes × 8 / window`; without them it cannot.
        pub held_before_window_bytes: u64,
        /// Application bytes delivered in order over the whole run.
        pub delivered_bytes_total: u64,
        /// Data packets sent in the window (TCP: including retransmissions).
        pub sent_pkts: u64,
        /// TCP segments retransmitted in the window (fast and timeout).
        pub retransmits: u64,
        /// TCP fast retransmits (entries into fast recovery) in the window.
        pub fast_retransmits: u64,
        /// TCP retransmission timeouts in the window.
        pub timeouts: u64,
        /// TCP window reductions in response to ECN echoes in the window.
        pub ecn_reductions: u64,
        /// This flow's data packets dropped in the window, on any link (queues and wire).
        pub drops: u64,
        /// `sent_pkts` over the whole run.
        pub sent_pkts_total: u64,
        /// `retransmits` over the whole run.
        pub retransmits_total: u64,
        /// `fast_retransmits` over the whole run.
        pub fast_retransmits_total: u64,
        /// `timeouts` over the whole run.
        pub timeouts_total: u64,
        /// `ecn_reductions` over the whole run.
        pub ecn_reductions_total: u64,
        /// `drops` over the whole run.
        pub drops_total: u64,
        /// Completion time in seconds of a finite TCP flow's (first) transfer: from start to the
        /// moment the receiver has every byte, or, unfinished, to the end of the run (censored:
        /// see `finished`); `None` for saturated and UDP flows.
        pub fct_s: Option<f64>,
        /// Whether that transfer finished before the end of the run; `None` without one.
        pub finished: Option<bool>,
        /// Mean queueing delay (sum over the path) of this flow's data packets received in the
        /// window, seconds; `None` if none was received.
        pub mean_queue_delay_s: Option<f64>,
        /// Share of the TCP sender's new ACKs in the window (outside loss recovery) after which
        /// its window stood at the receive window: near 1, the flow was limited by `rwnd`, not
        /// by the network. `None` without such ACKs (UDP, or none in the window).
        pub rwnd_limited: Option<f64>,
    }
}

result_row! {
    /// Results aggregated over a flow group.
    #[derive(Debug, Clone, Serialize, PartialEq)]
    pub struct GroupResult {
        /// Group name.
        pub group: String,
        /// Number of flows.
        pub flows: u32,
        /// Sum of the flows' goodput over the window, bit/s.
        pub goodput_bps: f64,
        /// Sum of the flows' `held_before_window_bytes`.
        pub held_before_window_bytes: u64,
        /// Data packets received in the window (the delay sample count).
        pub delay_samples: u64,
        /// Mean path queueing delay of data packets received in the window, seconds.
        pub mean_queue_delay_s: Option<f64>,
        /// Median of the same, seconds.
        pub p50_queue_delay_s: Option<f64>,
        /// 95th percentile, seconds.
        pub p95_queue_delay_s: Option<f64>,
        /// 99th percentile, seconds.
        pub p99_queue_delay_s: Option<f64>,
        /// Mean completion time of the group's transfers that started in the window (finite
        /// flows, incast responses, short flows), seconds, the unfinished ones counted until the
        /// end of the run (censored: a lower bound of their completion time); `None` if none
        /// started.
        pub mean_fct_s: Option<f64>,
        /// Transfers of the group that started in the window and finished.
        pub transfers_completed: u64,
        /// Transfers of the group that started in the window and had not finished at the end.
        pub unfinished_transfers: u64,
    }
}

result_row! {
    arrow:
    /// Results of one link (its qdisc included), over the window.
    #[derive(Debug, Clone, Serialize, PartialEq)]
    pub struct LinkResult {
        /// Link name.
        pub name: String,
        /// Transmitting node.
        pub from: String,
        /// Receiving node.
        pub to: String,
        /// Rate, bit/s.
        pub rate_bps: u64,
        /// Propagation delay, seconds.
        pub delay_s: f64,
        /// The qdisc's algorithm name.
        pub qdisc: String,
        /// Fraction of the window the link was transmitting.
        pub utilization: f64,
        /// Packets whose transmission finished in the window.
        pub tx_pkts: u64,
        /// Bytes whose transmission finished in the window.
        pub tx_bytes: u64,
        /// Packets offered to the qdisc in the window.
        pub arrivals: u64,
        /// Packets dropped in the window, all reasons (qdisc and wire).
        pub drops: u64,
        /// Drops in the window by reason name.
        pub drops_by_reason: BTreeMap<String, u64>,
        /// ECN marks in the window, all reasons.
        pub marks: u64,
        /// ECN marks in the window by reason name.
        pub marks_by_reason: BTreeMap<String, u64>,
        /// `drops / arrivals` in the window (0 if nothing arrived).
        pub loss_rate: f64,
        /// Time-weighted mean number of packets queued (not counting the one on the wire).
        pub mean_queue_pkts: f64,
        /// Time-weighted mean number of bytes queued.
        pub mean_queue_bytes: f64,
        /// Largest number of packets queued at any moment of the window.
        pub max_queue_pkts: u64,
        /// Mean sojourn time in the qdisc of packets dequeued in the window, seconds.
        pub mean_delay_s: Option<f64>,
        /// Median sojourn time, seconds.
        pub p50_delay_s: Option<f64>,
        /// 95th percentile sojourn time, seconds.
        pub p95_delay_s: Option<f64>,
        /// 99th percentile sojourn time, seconds.
        pub p99_delay_s: Option<f64>,
    }
}

/// Sampled time series, columnar.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Series {
    /// Queue samples: time (s), link index, packets, bytes, cumulative drops.
    pub queue: QueueSeries,
    /// TCP samples: time (s), flow index, cwnd (segments), ssthresh (segments; 2^31 − 1
    /// while still "arbitrarily high"), smoothed RTT (s, 0 before the first sample), bytes
    /// in flight, timeout state.
    pub tcp: TcpSeries,
    /// TCP events (with `sampling.tcp_events`): time (s), flow, kind, segment.
    pub tcp_events: TcpEvents,
    /// Qdisc internals (with `sampling.qdisc`): time (s), link, variable, class, value.
    /// Left out of the JSON when empty, so runs without it serialise as before.
    #[serde(skip_serializing_if = "QdiscSeries::is_empty")]
    pub qdisc: QdiscSeries,
    /// The packet-emission record (with `sampling.packets`): one row per packet offered to
    /// the link. Left out of the JSON when empty.
    #[serde(skip_serializing_if = "PacketSeries::is_empty")]
    pub packets: PacketSeries,
    /// Drops and marks by reason over time (with `sampling.queues`): a row when a link's count
    /// of a reason changed. Left out of the JSON when empty.
    #[serde(skip_serializing_if = "ReasonSeries::is_empty")]
    pub reasons: ReasonSeries,
}

result_row! {
    /// Columns of the packet-emission record: every packet offered to one link's queue.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct PacketSeries {
        /// When the packet was offered, seconds.
        pub t: Vec<f64>,
        /// The configured flow it belongs to (a generator for its transfers' packets).
        pub flow: Vec<u32>,
        /// Wire size, bytes.
        pub size_bytes: Vec<u32>,
        /// Whether the link lost it: dropped by the qdisc (on arrival or later) or on the wire.
        pub lost: Vec<bool>,
    }
}

impl PacketSeries {
    /// Returns whether no row was recorded.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

result_row! {
    /// Columns of the qdisc-internals series: one row per variable (and class) per sample.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct QdiscSeries {
        /// Sample time, seconds.
        pub t: Vec<f64>,
        /// Link index.
        pub link: Vec<u32>,
        /// Variable name, as the algorithm's documentation names it (`m_fair`, `d_i`, ...).
        pub var: Vec<&'static str>,
        /// The class (queue index) the value belongs to; −1 for a variable of the whole qdisc.
        pub class: Vec<i64>,
        /// The value, in the variable's own unit (documented with the algorithm).
        pub value: Vec<f64>,
    }
}

impl QdiscSeries {
    /// Returns whether no row was recorded.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

result_row! {
    /// Columns of the TCP event log.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct TcpEvents {
        /// Event time, seconds.
        pub t: Vec<f64>,
        /// Flow index.
        pub flow: Vec<u32>,
        /// `"fast_retransmit"` (entry into loss recovery), `"retransmit"` (any segment resent),
        /// `"timeout"`, `"ecn_reduction"` (window reduced for an ECN echo) or `"hystart_exit"`.
        pub kind: Vec<&'static str>,
        /// The segment concerned (the first unacknowledged one for recovery and timeouts).
        pub seq: Vec<u64>,
    }
}

result_row! {
    /// Columns of the drop and mark series (with `sampling.queues`): a link's cumulative count
    /// of one reason, written at a sample when it changed since the link's previous sample.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct ReasonSeries {
        /// Sample time, seconds.
        pub t: Vec<f64>,
        /// Link index.
        pub link: Vec<u32>,
        /// `"drop"` or `"mark"` (ECN's CE set instead of a drop).
        pub kind: Vec<&'static str>,
        /// The reason, as the links table's `drops_<reason>` and `marks_<reason>` columns name it
        /// (`random_loss` for the wire's).
        pub reason: Vec<&'static str>,
        /// Packets dropped or marked for this reason since the start of the run.
        pub count: Vec<u64>,
    }
}

impl ReasonSeries {
    /// Returns whether no row was recorded.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

result_row! {
    /// Columns of the queue-length series.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct QueueSeries {
        /// Sample time, seconds.
        pub t: Vec<f64>,
        /// Link index.
        pub link: Vec<u32>,
        /// Packets queued.
        pub pkts: Vec<u64>,
        /// Bytes queued.
        pub bytes: Vec<u64>,
        /// Packets dropped by the qdisc since the start of the run (all reasons).
        pub drops: Vec<u64>,
        /// Of those, drops because the buffer was full (`overflow`); the rest are the
        /// algorithm's own (AQM) decisions.
        pub overflow_drops: Vec<u64>,
        /// Mean time the packets dequeued since the link's previous sample spent in its queue,
        /// seconds; none (null) when none left it.
        pub sojourn_s: Vec<Option<f64>>,
        /// Bytes whose transmission finished since the previous sample (with
        /// `sampling.tx_bytes`; empty otherwise, and then left out of the JSON).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        pub tx_bytes: Vec<u64>,
    }
}

result_row! {
    /// Columns of the TCP sender series.
    #[derive(Debug, Clone, Default, Serialize, PartialEq)]
    pub struct TcpSeries {
        /// Sample time, seconds.
        pub t: Vec<f64>,
        /// Flow index.
        pub flow: Vec<u32>,
        /// Congestion window, segments.
        pub cwnd: Vec<u32>,
        /// Slow-start threshold, segments.
        pub ssthresh: Vec<u32>,
        /// Smoothed RTT, seconds.
        pub srtt_s: Vec<f64>,
        /// Bytes in flight.
        pub inflight_bytes: Vec<u64>,
        /// Whether the flow is recovering from a retransmission timeout (from the timeout until
        /// everything outstanding at it is acknowledged).
        pub in_timeout: Vec<bool>,
    }
}
