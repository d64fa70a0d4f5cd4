//! TCP endpoint parameters: [`TcpConfig`] and the named choices its options take.
//!
//! Every value of a `TcpConfig` comes from a profile (`profiles.rs`): deserializing a
//! `TcpConfig` fills each field absent from the input from the default profile, and
//! [`TcpConfig::default`] *is* that profile, so the defaults are written once, in its table.
//! The options' names, units and help are the catalog in `options.rs`.

use serde::{Deserialize, Serialize, Serializer};

use super::wire::{WireFormat, WireSizes};
use crate::error::ConfigError;

named_enum! {
    /// Congestion control (and loss-recovery flavour) of a TCP sender, by the name papers use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum CcKind {
        /// TCP Tahoe: fast retransmit but no fast recovery; every loss restarts slow start
        /// (Jacobson 1988, as in ns-2's `Agent/TCP`).
        Tahoe = "tahoe",
        /// TCP Reno (RFC 5681): fast retransmit and fast recovery; any new ACK ends recovery.
        Reno = "reno",
        /// TCP NewReno (RFC 6582): stays in fast recovery until all data outstanding at the
        /// loss is acknowledged, retransmitting one segment per partial ACK.
        #[default]
        Newreno = "newreno",
        /// CUBIC (RFC 9438) with NewReno loss recovery (or SACK with `sack = true`).
        Cubic = "cubic",
        /// HighSpeed TCP (RFC 3649) with NewReno loss recovery (or SACK with `sack = true`).
        Highspeed = "highspeed",
        /// HighSpeed TCP with ns-2's decrease rules (`TcpAgent::slowdown`, `windowOption_ 8`):
        /// halve on the first decrease, in slow start and after a timeout (`cc/highspeed.rs`).
        HighspeedNs2 = "highspeed_ns2",
    }
}

impl CcKind {
    /// Returns a one-line description (for `qdsim list`).
    pub const fn summary(self) -> &'static str {
        match self {
            CcKind::Tahoe => "Tahoe: fast retransmit, then slow start from one segment (no fast recovery)",
            CcKind::Reno => "RFC 5681 Reno: AIMD, fast retransmit, fast recovery ended by any new ACK",
            CcKind::Newreno => "RFC 6582 NewReno: Reno whose fast recovery retransmits on partial ACKs",
            CcKind::Cubic => "RFC 9438 CUBIC: C = 0.4, beta = 0.7, fast convergence, Reno-friendly region; no HyStart",
            CcKind::Highspeed => "RFC 3649 HighSpeed TCP: a(w), b(w) above Low_Window 38; w = 0.12/p^0.835",
            CcKind::HighspeedNs2 => {
                "HighSpeed TCP as ns-2 runs it: same a(w), b(w); halves on the first decrease, in slow start and after a timeout"
            }
        }
    }
}

/// The initial congestion window: a number of segments, or a rule of the MSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InitialWindow {
    /// A fixed number of segments.
    Pkts(u32),
    /// A rule of the MSS.
    Rule(IwRule),
}

named_enum! {
    /// A rule that sets the initial window from the MSS.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum IwRule {
        /// RFC 3390 (RFC 5681 §3.1): `min(4·MSS, max(2·MSS, 4380 B))` — 4 segments up to an MSS
        /// of 1095 B, 3 up to 2190 B, else 2.
        Rfc3390 = "rfc3390",
    }
}

impl InitialWindow {
    /// Returns the initial window in segments for segments of `mss` payload bytes.
    pub fn segments(self, mss: u32) -> u32 {
        match self {
            InitialWindow::Pkts(n) => n,
            InitialWindow::Rule(IwRule::Rfc3390) => (4380 / mss).clamp(2, 4),
        }
    }
}

named_enum! {
    /// What the window reduction after a loss starts from: the slow-start threshold is the
    /// congestion control's decrease (Reno: half, CUBIC: β) of it, and PRR's RecoverFS is it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ReductionBase {
        /// RFC 5681 eq. 4 and RFC 6937: FlightSize, the data outstanding (`snd_max − snd_una`),
        /// capped at cwnd (see `docs/tcp.md`).
        Flightsize = "flightsize",
        /// Linux (`tcp_reno_ssthresh`, `bictcp_recalc_ssthresh`, PRR's `prior_cwnd`) and ns-2
        /// (`slowdown`, half of `min(cwnd_, window_)`): the congestion window.
        Cwnd = "cwnd",
        /// ns-3 (`TcpSocketBase::EnterRecovery`: `BytesInFlight()` after `MarkHeadAsLost`): RFC
        /// 6675's pipe, the segments still in the network with the head counted lost.
        Pipe = "pipe",
        /// ns-3's rule per congestion control: `TcpSocketBase` hands every control's
        /// `GetSsThresh` the pipe, which `TcpNewReno` and `TcpHighSpeed` cut (`tcp-congestion-
        /// ops.cc`, `tcp-highspeed.cc:141-153`), while `TcpCubic` cuts its own window and ignores
        /// it (`tcp-cubic.cc:407-432` in ns-3.37, the same in 3.44): [`Self::Cwnd`] for CUBIC,
        /// [`Self::Pipe`] for the others ([`Self::for_cc`]).
        Ns3 = "ns3",
    }
}

impl ReductionBase {
    /// Returns the base a sender running `cc` cuts from: [`Self::Ns3`] resolved per
    /// congestion control, any other base as it is.
    pub fn for_cc(self, cc: CcKind) -> ReductionBase {
        match self {
            ReductionBase::Ns3 if cc == CcKind::Cubic => ReductionBase::Cwnd,
            ReductionBase::Ns3 => ReductionBase::Pipe,
            base => base,
        }
    }
}

named_enum! {
    /// How a SACK connection recovers from a loss detected by duplicate ACKs.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RecoveryKind {
        /// RFC 6675: `cwnd = ssthresh` at once, then `pipe` and `NextSeg` decide what is sent.
        Rfc6675 = "rfc6675",
        /// Proportional Rate Reduction (RFC 6937, RFC 9937; ns-3's `TcpPrrRecovery`, Linux ≥ 3.2):
        /// the window falls to ssthresh in proportion to the data delivered. Without SACK: over
        /// NewReno's retransmissions, a duplicate ACK counting one segment delivered.
        Prr = "prr",
        /// Linux 2.6 rate-halving with FACK loss marking: cwnd is not cut at entry but falls by one
        /// segment per two ACKs that deliver data, never above `in_flight + 1`; SACK only.
        RateHalving = "rate_halving",
        /// ns-2.35 `Agent/TCP/Sack1`: `cwnd = ssthresh` at once, a `pipe_` counter, every hole
        /// below the highest SACK retransmitted once in order; SACK only.
        Ns2Sack1 = "ns2_sack1",
    }
}

named_enum! {
    /// PRR's reduction bound, used once `pipe` has fallen to `ssthresh`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PrrBound {
        /// RFC 6937 PRR-CRB: never send more than was delivered (`prr_delivered − prr_out`).
        Crb = "crb",
        /// RFC 6937 PRR-SSRB: one segment more than delivered, per ACK (Linux 3.2–4.x).
        Ssrb = "ssrb",
        /// RFC 9937 (ns-3.43+): SSRB on a "safe" ACK — one that advances `snd_una` and reveals no
        /// new loss — else CRB, with `max(prr_delivered − prr_out, DeliveredData)` as the base.
        Rfc9937 = "rfc9937",
    }
}

named_enum! {
    /// How a SACK recovery resends a loss that no later segment has revealed (a tail loss).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RescueRetransmit {
        /// RFC 6675 `NextSeg` rule 4: once per recovery, the highest unSACKed segment.
        Rfc6675 = "rfc6675",
        /// ns-3 (`ProcessAck`): each partial ACK retransmits the new first unacknowledged
        /// segment unless it was already retransmitted, outside cwnd.
        PartialAck = "partial_ack",
        /// None (Linux 2.6, ns-2 Sack1): a lost tail waits for the timer.
        Off = "off",
    }
}

named_enum! {
    /// Sending new data on duplicate ACKs before recovery starts.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum LimitedTransmit {
        /// Nothing is sent on duplicate ACKs before the fast retransmit.
        Off = "off",
        /// RFC 3042 (ns-2 `singledup_`): each of the first two duplicate ACKs releases one new
        /// segment, at most two beyond cwnd.
        Rfc3042 = "rfc3042",
        /// Linux and ns-3 with SACK: new data goes out while `pipe < cwnd`, where pipe leaves out
        /// what was SACKed (without SACK: one segment per duplicate ACK) — one new segment per
        /// SACKed segment, with no bound of two.
        Pipe = "pipe",
        /// ns-2's `send_one` (`singledup_`, tcp.cc:1576-1588): each duplicate ACK before the
        /// fast retransmit sends the next segment in sequence (`t_seqno_`: after a timeout, a
        /// go-back-N resend) if it lies within cwnd + the duplicates of the cumulative ACK,
        /// whatever `recover_` — Sack1 only once a new ACK has followed a timeout (`timeout_`).
        Ns2 = "ns2",
    }
}

named_enum! {
    /// How the retransmission timeout is computed from RTT samples.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RtoFormula {
        /// RFC 6298 (ns-3's `RttMeanDeviation`): `RTO = max(min_rto, SRTT + max(G, 4·RTTVAR))`;
        /// with timestamps, samples are whole ticks of G (ns-3's 1 ms TS clock), 0 taken as 1 µs.
        Rfc6298 = "rfc6298",
        /// Linux (`tcp_rtt_estimator`, `tcp_set_rto`) in jiffies of G: `RTO = SRTT + rttvar`,
        /// rttvar the largest mean deviation ×4 over the last RTT, at least `min_rto`.
        Linux = "linux",
        /// ns-2 (`TcpAgent::rtt_update`, `rtt_timeout`) in ticks of G (`tcpTick_`): integer
        /// SRTT ×8 and RTTVAR ×4, `RTO = max(min_rto, SRTT + 4·RTTVAR)`, at least two ticks;
        /// without timestamps one segment per RTT is timed.
        Ns2 = "ns2",
    }
}

named_enum! {
    /// When an ACK of new data restarts the retransmission timer.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RtoRestart {
        /// RFC 6298 §5.3 (Linux `tcp_rearm_rto`, ns-2 `newtimer`): every ACK of new data, partial
        /// ACKs in recovery included.
        EveryAck = "every_ack",
        /// ns-3, RFC 6582's "Impatient" NewReno: as `every_ack`, but during a recovery only the
        /// first partial ACK restarts it.
        FirstPartialAck = "first_partial_ack",
    }
}

named_enum! {
    /// When duplicate ACKs may start another fast retransmit after a recovery or a timeout:
    /// only once the cumulative ACK reaches the data outstanding then (`recover`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RecoverCheck {
        /// RFC 6582 §3.2 and RFC 6675 §5.1: NewReno and SACK once `snd_una` reaches `recover`
        /// (Tahoe, whose go-back-N draws echoes of the resent segments, once it is past it);
        /// Reno (RFC 5681) never checks.
        Rfc = "rfc",
        /// ns-2.35's `bugFix_ true` (every agent: `tcp-reno.cc`, `tcp-newreno.cc`,
        /// `tcp-sack1.cc` `dupack_action`): Reno, NewReno, SACK and Tahoe alike, only once the
        /// cumulative ACK is past `recover` (`highest_ack_ > recover_`).
        Ns2 = "ns2",
    }
}

named_enum! {
    /// How the congestion window counts.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum WindowArithmetic {
        /// Whole segments and a growth counter (Linux `snd_cwnd`, `snd_cwnd_cnt`): one segment
        /// per `cwnd` ACKed segments, a decrease to whole segments.
        Segments = "segments",
        /// ns-2.35's double `cwnd_`: `+1` per ACK in slow start, `+1/cwnd_` per ACK after (so the
        /// next whole segment takes fewer ACKs than the window), a decrease to the exact half,
        /// what is sent its integer part (`TcpAgent::opencwnd`, `slowdown`, `window()`); during a
        /// Reno or NewReno recovery the duplicate ACKs' inflation kept apart (`dupwnd_`) and
        /// the window opened on the ACK that ends it.
        Ns2 = "ns2",
    }
}

named_enum! {
    /// The window when NewReno's fast recovery ends (a full ACK, without PRR).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RecoveryExit {
        /// RFC 6582 §3.2 step 3 option 1: `min(ssthresh, max(FlightSize, SMSS) + SMSS)`.
        Flightsize = "flightsize",
        /// RFC 6582 option 2, ns-2 (`exit_recovery_fix_ 0`: the inflation dropped, `cwnd_` =
        /// ssthresh) and ns-3 (`TcpClassicRecovery::ExitRecovery`): `cwnd = ssthresh`.
        Ssthresh = "ssthresh",
    }
}

named_enum! {
    /// What a sender does once a handshake whose SYN was retransmitted completes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SynLoss {
        /// RFC 6298 §5.7 and RFC 5681 §3.1 (Linux 2.6's `TCP_TIMEOUT_FALLBACK` and one-segment
        /// window): no RTT sample, the backoff cleared, the RTO at least 3 s until the first
        /// sample, and a window of one segment.
        Rfc = "rfc",
        /// ns-2.35: no sample, the RTO as the SYN's timeouts backed it off until the first RTT
        /// sample of data ends the backoff (`TcpAgent::newack`), no floor; a window of one
        /// segment (`TcpAgent::timeout` sets `wnd_init_ = 1`).
        Ns2 = "ns2",
        /// ns-3: the SYN-ACK's timestamp gives an RTT sample; without timestamps the RTO is the
        /// estimator's, unbacked (`SendEmptyPacket` recomputes it for the handshake's ACK); the
        /// initial window (`ProcessSynSent`).
        Ns3 = "ns3",
        /// Linux (6.1 `tcp_init_transfer`, `tcp_init_metrics`): the SYN-ACK's timestamp gives an
        /// RTT sample (`tcp_ack_update_rtt`); without timestamps the RTO is 3 s
        /// (`TCP_TIMEOUT_FALLBACK`) until the first sample; the initial window, or one segment
        /// once the SYN was retransmitted more than once.
        Linux = "linux",
    }
}

named_enum! {
    /// How many segments one ACK counts toward window growth.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ByteCounting {
        /// One per ACK, whatever it covers (RFC 5681 eq. 2-3; ns-2, ns-3, Linux 2.6 with
        /// `tcp_abc` 0): delayed ACKs slow the growth.
        Off = "off",
        /// RFC 3465 §2.2 appropriate byte counting with L = 2: the segments it covers, at most two.
        Rfc3465 = "rfc3465",
        /// Every segment it covers, newly SACKed ones included (Linux since 3.8:
        /// `tcp_cong_avoid(sk, ack, acked_sacked)`; `tcp_slow_start` stops at ssthresh and the rest
        /// counts in congestion avoidance, `tcp_cong_avoid_ai`).
        Linux = "linux",
        /// ns-3's rule per congestion control: `TcpCubic` counts every segment an ACK covers, in
        /// slow start and toward `cnt` (`tcp-cubic.cc:197, 206` in ns-3.37), as [`Self::Linux`];
        /// `TcpNewReno` counts the ACK once
        /// (`tcp-congestion-ops.cc:163-201`), as [`Self::Off`]; so does `TcpHighSpeed` in slow
        /// start (its a(w) counts segments, `tcp-highspeed.cc:109`).
        Ns3 = "ns3",
    }
}

named_enum! {
    /// Which slow-start exit on delay a sender runs.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum HyStartKind {
        /// None: slow start ends at ssthresh or a loss.
        Off = "off",
        /// HyStart++'s delay test (RFC 9406 §4.2), with any congestion control.
        Rfc9406 = "rfc9406",
        /// The HyStart of Linux's CUBIC (`tcp_cubic.c`: ACK trains and delay increase); with
        /// `cc = "cubic"` only, as in the kernel.
        Linux = "linux",
    }
}

named_enum! {
    /// Which retransmission timeouts lower the slow-start threshold.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TimeoutSsthresh {
        /// A timeout that starts a new congestion episode (RFC 5681 §3.1; Linux `tcp_enter_loss`):
        /// not one during fast recovery, nor a repeated timeout of the same data.
        NewEpisode = "new_episode",
        /// Every timeout but a repeated one of the same data, fast recovery included (ns-3
        /// `ReTxTimeout`: unless in CA_LOSS with the head already retransmitted).
        NotRepeated = "not_repeated",
        /// Every timeout with data outstanding (ns-2.35 `TcpAgent::timeout`:
        /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)`).
        Every = "every",
    }
}

/// Parameters of one TCP connection (sender and receiver).
///
/// Deserializing fills every field absent from the input from the default profile
/// (`profiles.rs`); [`TcpConfig::default`] is that profile. See
/// `docs/tcp.md` for what each option does and `docs/tcp-profiles.md` for the profiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control.
    pub cc: CcKind,
    /// Wire size of a full-sized data segment in bytes; the MSS is this minus the headers and
    /// options every data segment carries (40 bytes, plus the timestamp option's 12 with
    /// `timestamps` in the `ietf` wire format; see `wire.rs`).
    pub packet_bytes: u32,
    /// Initial congestion window (segments, or RFC 3390's rule of the MSS).
    pub initial_cwnd_pkts: InitialWindow,
    /// Initial slow-start threshold in segments; `None` = arbitrarily high (RFC 5681 §3.1).
    pub initial_ssthresh_pkts: Option<u32>,
    /// Receiver window in bytes: the most the sender may have outstanding.
    pub rwnd_bytes: u64,
    /// Lower bound of the retransmission timeout in ns.
    pub min_rto_ns: u64,
    /// Upper bound of the retransmission timeout in ns.
    pub max_rto_ns: u64,
    /// RTO before the first RTT sample in ns.
    pub initial_rto_ns: u64,
    /// How the RTO is computed from RTT samples.
    pub rto_formula: RtoFormula,
    /// The clock granularity G in ns: RFC 6298's G term (and the timestamp clock's tick), the
    /// Linux jiffy, the ns-2 `tcpTick_`. 0 (RFC 6298 only) = exact.
    pub clock_granularity_ns: u64,
    /// When ACKs restart the retransmission timer.
    pub rto_restart: RtoRestart,
    /// The fast retransmission restarts the timer too (Linux: the head's retransmission in
    /// `tcp_xmit_retransmit_queue`; ns-2: `reset_rtx_timer` on the third duplicate ACK). Off,
    /// a retransmission starts the timer only when it is not running (RFC 6298 §5.1, ns-3).
    pub fast_retransmit_restarts_rto: bool,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 DupThresh, Linux `reordering`).
    pub dupack_threshold: u32,
    /// Delayed ACKs at the receiver (RFC 5681 §4.2): one ACK per `delayed_ack_count`
    /// segments or after `delayed_ack_timeout_ns`.
    pub delayed_ack: bool,
    /// Segments per delayed ACK.
    pub delayed_ack_count: u32,
    /// Delayed-ACK timer in ns.
    pub delayed_ack_timeout_ns: u64,
    /// With delayed ACKs, the first this many data segments of a connection are ACKed at once
    /// (Linux's quick-ACK mode, ns-3's first segment after the handshake).
    pub quick_acks: u32,
    /// ECN (RFC 3168): data sent ECT(0), the receiver echoes CE marks as ECE, the sender
    /// reduces once per window and answers CWR.
    pub ecn: bool,
    /// SACK: RFC 2018 blocks at the receiver, SACK-based loss recovery (`recovery`) at the
    /// sender.
    pub sack: bool,
    /// The loss recovery of a SACK connection (and PRR's window rule without SACK).
    pub recovery: RecoveryKind,
    /// PRR's reduction bound.
    pub prr_bound: PrrBound,
    /// PRR counts one more segment delivered per duplicate ACK while `prr_delivered <
    /// RecoverFS`, even with SACK (ns-3.44 `TcpPrrRecovery::DoRecovery`). Without SACK RFC 6937
    /// always estimates a duplicate ACK as one segment delivered.
    pub prr_dupack_segment: bool,
    /// How a SACK recovery resends a loss no later segment revealed.
    pub rescue_retransmit: RescueRetransmit,
    /// What the slow-start threshold (and PRR's RecoverFS) is taken from after a loss.
    pub reduction_base: ReductionBase,
    /// Sending new data on duplicate ACKs before recovery.
    pub limited_transmit: LimitedTransmit,
    /// When duplicate ACKs may start another fast retransmit after a recovery or timeout.
    pub recover_check: RecoverCheck,
    /// The window when NewReno's fast recovery ends.
    pub recovery_exit: RecoveryExit,
    /// How the congestion window counts.
    pub window_arithmetic: WindowArithmetic,
    /// The RTO and window after a handshake whose SYN was retransmitted.
    pub syn_loss: SynLoss,
    /// Which timeouts lower ssthresh.
    pub timeout_ssthresh: TimeoutSsthresh,
    /// The slow-start exit on delay (`sender/hystart.rs`): none, RFC 9406's HyStart++ delay
    /// test, or Linux CUBIC's HyStart.
    pub hystart: HyStartKind,
    /// Restart from `min(IW, cwnd)` when a persistent connection gets new data after
    /// sending nothing for longer than the RTO (RFC 5681 §4.1; Linux's
    /// `tcp_slow_start_after_idle`).
    pub idle_restart: bool,
    /// TCP timestamps for RTT measurement (RFC 7323 §4): the echoed timestamp identifies
    /// the transmission an ACK answers, so the ACK of a retransmission also gives an RTT
    /// sample (and ends the timer's backoff), where without timestamps Karn's rule skips it.
    pub timestamps: bool,
    /// How many segments an ACK counts toward window growth: one (`off`), at most two (RFC
    /// 3465), or all it covers (Linux).
    pub byte_counting: ByteCounting,
    /// Open the connection with a SYN / SYN-ACK exchange before any data (RFC 9293 §3.5).
    pub handshake: bool,
    /// Whose rules set the segments' sizes on the wire (`wire.rs`): `ietf` (the RFCs' option
    /// layout, as Linux and ns-3 send it: timestamps 12 bytes on every segment, SACK blocks
    /// 4 + 8n on ACKs) or `ns2` (ns-2.35: timestamps 10 bytes on data only, SACK blocks 8n).
    pub wire: WireFormat,
}

impl Serialize for TcpConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TcpConfig::serialize(self, s)
    }
}

impl TcpConfig {
    /// Reads a complete `TcpConfig` (every field present, no profile filled in).
    pub(super) fn from_complete(fields: serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        TcpConfig::deserialize(serde_json::Value::Object(fields)).map_err(|e| e.to_string())
    }

    /// Returns the maximum segment size (payload bytes of a full segment).
    pub fn mss(&self) -> u32 {
        self.packet_bytes - self.wire_sizes().data_header_bytes
    }

    /// Returns the sizes of the connection's segments on the wire.
    pub fn wire_sizes(&self) -> WireSizes {
        WireSizes::new(self.wire, self.timestamps, self.sack)
    }

    /// Returns the initial window in segments.
    pub fn initial_cwnd(&self) -> u32 {
        self.initial_cwnd_pkts.segments(self.mss())
    }

    /// Checks every parameter's range.
    ///
    /// # Errors
    /// The first parameter out of range, by its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let headers = self.wire_sizes().data_header_bytes;
        if self.packet_bytes <= headers || self.packet_bytes > 65_535 {
            return Err(ConfigError::new(
                "packet_bytes",
                self.packet_bytes,
                format!("{}..=65535 bytes (headers and options of a data segment are {headers} bytes)", headers + 1),
            ));
        }
        if self.initial_cwnd_pkts == InitialWindow::Pkts(0) {
            return Err(ConfigError::new("initial_cwnd_pkts", 0, "at least 1 segment, or \"rfc3390\""));
        }
        if self.initial_ssthresh_pkts == Some(0) || self.initial_ssthresh_pkts == Some(1) {
            return Err(ConfigError::new(
                "initial_ssthresh_pkts",
                self.initial_ssthresh_pkts.unwrap(),
                "at least 2 segments, or absent",
            ));
        }
        if self.rwnd_bytes < self.mss() as u64 {
            return Err(ConfigError::new(
                "rwnd_bytes",
                self.rwnd_bytes,
                format!("at least one MSS ({} bytes)", self.mss()),
            ));
        }
        if self.min_rto_ns == 0 {
            return Err(ConfigError::new("min_rto_ns", 0, "> 0"));
        }
        if self.max_rto_ns < self.min_rto_ns {
            return Err(ConfigError::new(
                "max_rto_ns",
                self.max_rto_ns,
                format!("at least min_rto ({} ms)", self.min_rto_ns as f64 / 1e6),
            ));
        }
        if self.initial_rto_ns == 0 {
            return Err(ConfigError::new("initial_rto_ns", 0, "> 0"));
        }
        if self.clock_granularity_ns == 0 && self.rto_formula != RtoFormula::Rfc6298 {
            return Err(ConfigError::new(
                "clock_granularity_ns",
                0,
                "> 0 with rto_formula \"linux\" or \"ns2\" (their clocks tick)",
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(ConfigError::new("dupack_threshold", 0, "at least 1"));
        }
        if self.delayed_ack && self.delayed_ack_count == 0 {
            return Err(ConfigError::new("delayed_ack_count", 0, "at least 1"));
        }
        if self.delayed_ack && self.delayed_ack_timeout_ns == 0 {
            return Err(ConfigError::new("delayed_ack_timeout_ns", 0, "> 0"));
        }
        if self.window_arithmetic == WindowArithmetic::Ns2 {
            if !matches!(self.cc, CcKind::Tahoe | CcKind::Reno | CcKind::Newreno | CcKind::HighspeedNs2) {
                return Err(ConfigError::new(
                    "window_arithmetic",
                    "ns2",
                    format!("\"segments\" with cc = {} (ns-2's arithmetic is for its agents: tahoe, reno, newreno, highspeed_ns2)", self.cc.name()),
                ));
            }
            if self.byte_counting != ByteCounting::Off
                || (self.sack && self.recovery != RecoveryKind::Ns2Sack1)
                || (!self.sack && self.recovery == RecoveryKind::Prr)
            {
                return Err(ConfigError::new(
                    "window_arithmetic",
                    "ns2",
                    "\"segments\" with byte_counting, PRR or a SACK recovery other than ns2_sack1 (ns-2's agents have none of them)",
                ));
            }
        }
        if !self.sack && matches!(self.recovery, RecoveryKind::RateHalving | RecoveryKind::Ns2Sack1) {
            let name = if self.recovery == RecoveryKind::RateHalving { "rate_halving" } else { "ns2_sack1" };
            return Err(ConfigError::new(
                "recovery",
                name,
                "\"rfc6675\" or \"prr\" without SACK (rate_halving and ns2_sack1 need sack = true)",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3390_gives_3_segments_at_1460_and_4_at_960() {
        let rule = InitialWindow::Rule(IwRule::Rfc3390);
        assert_eq!(rule.segments(1460), 3);
        assert_eq!(rule.segments(960), 4);
        assert_eq!(rule.segments(1095), 4);
        assert_eq!(rule.segments(1096), 3);
        assert_eq!(rule.segments(2190), 2);
        assert_eq!(rule.segments(9000), 2);
    }

    #[test]
    fn absent_fields_take_the_default_profile_and_unknown_ones_are_refused() {
        let c: TcpConfig = serde_json::from_str(r#"{"min_rto_ns": 5}"#).unwrap();
        assert_eq!(c, TcpConfig { min_rto_ns: 5, ..TcpConfig::default() });
        let e = serde_json::from_str::<TcpConfig>(r#"{"linux_rto": true}"#).unwrap_err().to_string();
        assert!(e.contains("linux_rto"), "{e}");
        let e = serde_json::from_str::<TcpConfig>(r#"{"recovery": "fack"}"#).unwrap_err().to_string();
        assert!(e.contains("fack"), "{e}");
    }

    #[test]
    fn the_initial_window_is_a_number_or_the_rfc3390_rule() {
        let c: TcpConfig = serde_json::from_str(r#"{"initial_cwnd_pkts": "rfc3390", "packet_bytes": 1000}"#).unwrap();
        assert_eq!(c.initial_cwnd(), 4);
        let c: TcpConfig = serde_json::from_str(r#"{"initial_cwnd_pkts": 7}"#).unwrap();
        assert_eq!(c.initial_cwnd(), 7);
        assert_eq!(serde_json::to_value(&c).unwrap()["initial_cwnd_pkts"], 7);
        assert!(serde_json::from_str::<TcpConfig>(r#"{"initial_cwnd_pkts": "rfc6928"}"#).is_err());
    }

    #[test]
    fn the_mss_is_the_packet_size_less_the_data_segment_s_headers() {
        let c = |timestamps, wire| TcpConfig { packet_bytes: 1500, timestamps, wire, ..TcpConfig::default() };
        assert_eq!(c(false, WireFormat::Ietf).mss(), 1460);
        assert_eq!(c(true, WireFormat::Ietf).mss(), 1448, "Linux at MTU 1500 with timestamps");
        assert_eq!(c(true, WireFormat::Ns2).mss(), 1450);
        let tiny = TcpConfig { packet_bytes: 52, timestamps: true, ..TcpConfig::default() };
        assert_eq!(tiny.validate().unwrap_err().key, "packet_bytes", "no room for a payload byte");
    }

    #[test]
    fn ticking_rto_formulas_need_a_clock() {
        for formula in [RtoFormula::Linux, RtoFormula::Ns2] {
            let c = TcpConfig { rto_formula: formula, clock_granularity_ns: 0, ..TcpConfig::default() };
            assert_eq!(c.validate().unwrap_err().key, "clock_granularity_ns");
        }
        let c = TcpConfig { rto_formula: RtoFormula::Rfc6298, clock_granularity_ns: 0, ..TcpConfig::default() };
        assert!(c.validate().is_ok());
    }

    #[test]
    fn sack_only_recoveries_refuse_a_connection_without_sack() {
        for recovery in [RecoveryKind::RateHalving, RecoveryKind::Ns2Sack1] {
            let c = TcpConfig { sack: false, recovery, ..TcpConfig::default() };
            let e = c.validate().unwrap_err();
            assert_eq!(e.key, "recovery");
            assert!(e.allowed.contains("sack = true"), "{e}");
        }
        for recovery in [RecoveryKind::Rfc6675, RecoveryKind::Prr] {
            assert!(TcpConfig { sack: false, recovery, ..TcpConfig::default() }.validate().is_ok());
        }
    }
}
