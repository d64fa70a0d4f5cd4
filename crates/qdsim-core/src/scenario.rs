//! Ready-made configurations for tests and benchmarks: a dumbbell builder, and a plain TCP
//! ([`plain_tcp`]) for tests of physics that do not want a stack's details.
//!
//! Users describe scenarios in experiment files (the Python package resolves those); this
//! builder exists so the core's own tests and benchmarks can build the same shapes without
//! Python. Layout: sender hosts `s<i>` → `r1` → (bottleneck) → `r2` → receivers `d<i>`,
//! every link duplex; the bottleneck `r1->r2` carries the qdisc under test, every other link
//! an unlimited FIFO.

use crate::config::{FlowConfig, LinkConfig, RunConfig, SamplingConfig, SourceConfig};
use crate::qdisc::{FifoParams, QdiscConfig};
use crate::tcp::{
    ByteCounting, CcKind, HyStartKind, InitialWindow, LimitedTransmit, PrrBound, RecoverCheck, RecoveryExit,
    RecoveryKind, ReductionBase, RescueRetransmit, RtoFormula, RtoRestart, SynLoss, TcpConfig, TimeoutSsthresh,
    WindowArithmetic, WireFormat,
};

/// A TCP without the profiles' stack details, for tests of physics (the Mathis law, response
/// functions, slow start): what the core's defaults were before profiles. NewReno (RFC 6582,
/// the "Impatient" timer restart; with `sack`, RFC 6675 and a restart on every ACK; the fast
/// retransmission restarts the timer too), IW 10,
/// RTO per RFC 6298 with an exact clock and a 200-ms minimum, no delayed ACKs, no limited
/// transmit, no timestamps, RFC 3465 byte counting, no handshake, a 6-MiB receiver window.
pub fn plain_tcp(sack: bool) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Newreno,
        packet_bytes: 1500,
        initial_cwnd_pkts: InitialWindow::Pkts(10),
        initial_ssthresh_pkts: None,
        rwnd_bytes: 6 * 1024 * 1024,
        min_rto_ns: 200_000_000,
        max_rto_ns: 60_000_000_000,
        initial_rto_ns: 1_000_000_000,
        rto_formula: RtoFormula::Rfc6298,
        clock_granularity_ns: 0,
        rto_restart: if sack { RtoRestart::EveryAck } else { RtoRestart::FirstPartialAck },
        fast_retransmit_restarts_rto: true,
        dupack_threshold: 3,
        delayed_ack: false,
        delayed_ack_count: 2,
        delayed_ack_timeout_ns: 40_000_000,
        quick_acks: 0,
        ecn: false,
        sack,
        recovery: RecoveryKind::Rfc6675,
        prr_bound: PrrBound::Rfc9937,
        prr_dupack_segment: false,
        rescue_retransmit: RescueRetransmit::Rfc6675,
        reduction_base: ReductionBase::Flightsize,
        limited_transmit: LimitedTransmit::Off,
        recover_check: RecoverCheck::Rfc,
        recovery_exit: RecoveryExit::Flightsize,
        window_arithmetic: WindowArithmetic::Segments,
        syn_loss: SynLoss::Rfc,
        timeout_ssthresh: TimeoutSsthresh::NewEpisode,
        hystart: HyStartKind::Off,
        idle_restart: true,
        timestamps: false,
        byte_counting: ByteCounting::Rfc3465,
        handshake: false,
        wire: WireFormat::Ietf,
    }
}

/// One group of identical flows in a [`Dumbbell`].
#[derive(Debug, Clone)]
pub struct FlowGroup {
    /// Group name.
    pub name: String,
    /// Number of flows.
    pub count: usize,
    /// One-way delay of each sender's access link, ns.
    pub access_delay_ns: u64,
    /// Rate of each sender's access link, bit/s.
    pub access_rate_bps: u64,
    /// The source (TCP bulk, finite, or CBR).
    pub source: SourceConfig,
    /// Earliest start, ns.
    pub start_ns: u64,
    /// Start jitter window, ns.
    pub start_jitter_ns: u64,
}

impl FlowGroup {
    /// Returns `count` saturated TCP flows with `tcp` parameters and access delay `access_delay_ns`
    /// over 1 Gb/s access links, starting at 0.
    pub fn bulk(name: &str, count: usize, access_delay_ns: u64, tcp: TcpConfig) -> Self {
        FlowGroup {
            name: name.into(),
            count,
            access_delay_ns,
            access_rate_bps: 1_000_000_000,
            source: SourceConfig::Tcp { size_bytes: None, tcp, repeat: None },
            start_ns: 0,
            start_jitter_ns: 0,
        }
    }
}

/// A dumbbell topology description.
#[derive(Debug, Clone)]
pub struct Dumbbell {
    /// Bottleneck rate, bit/s.
    pub rate_bps: u64,
    /// Bottleneck one-way delay, ns.
    pub delay_ns: u64,
    /// Random loss probability on the bottleneck (forward direction).
    pub loss: f64,
    /// The bottleneck's qdisc.
    pub qdisc: QdiscConfig,
    /// Flow groups.
    pub groups: Vec<FlowGroup>,
}

impl Dumbbell {
    /// Returns the run configuration for `duration_ns` with window from `warmup_ns`.
    pub fn config(&self, seed: u64, duration_ns: u64, warmup_ns: u64) -> RunConfig {
        let mut nodes = vec!["r1".to_string(), "r2".to_string()];
        let mut links = vec![];
        let unlimited = QdiscConfig::Fifo(FifoParams::default());
        let mut duplex = |a: &str, b: &str, rate: u64, delay: u64, fwd: QdiscConfig, loss: f64, name: &str| {
            links.push(LinkConfig {
                name: if name.is_empty() { format!("{a}->{b}") } else { name.into() },
                from: a.into(),
                to: b.into(),
                rate_bps: rate,
                delay_ns: delay,
                loss,
                metric: 1,
                qdisc: fwd,
            });
            links.push(LinkConfig {
                name: format!("{b}->{a}"),
                from: b.into(),
                to: a.into(),
                rate_bps: rate,
                delay_ns: delay,
                loss: 0.0,
                metric: 1,
                qdisc: unlimited.clone(),
            });
        };
        duplex("r1", "r2", self.rate_bps, self.delay_ns, self.qdisc.clone(), self.loss, "bottleneck");
        let mut flows = vec![];
        let mut i = 0;
        for g in &self.groups {
            for _ in 0..g.count {
                let (s, d) = (format!("s{i}"), format!("d{i}"));
                nodes.push(s.clone());
                nodes.push(d.clone());
                duplex(&s, "r1", g.access_rate_bps, g.access_delay_ns, unlimited.clone(), 0.0, "");
                duplex("r2", &d, g.access_rate_bps, 0, unlimited.clone(), 0.0, "");
                flows.push(FlowConfig {
                    group: g.name.clone(),
                    src: s,
                    dst: d,
                    user: None,
                    start_ns: g.start_ns,
                    start_jitter_ns: g.start_jitter_ns,
                    source: g.source.clone(),
                });
                i += 1;
            }
        }
        RunConfig {
            seed,
            duration_ns,
            warmup_ns,
            nodes,
            links,
            sources: vec![],
            flows,
            hosts: vec![],
            sampling: SamplingConfig::default(),
            pcap: None,
        }
    }
}
