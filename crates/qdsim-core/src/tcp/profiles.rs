//! TCP profiles: every option's value as a named stack sets it, with the source of each value.
//!
//! A profile is one table ([`Profile::entries`]): option → value as an experiment file writes
//! it → source (`repository:path:line (function)` of the trees pinned in
//! `docs/tcp-profiles.md`, an RFC section, or "derived" / "\[unverified\]" where the value was
//! worked out by reading, not read off). Each table lists every option of `options.rs` exactly
//! once (tested), so a profile is a complete `TcpConfig`. The default profile ([`DEFAULT`],
//! today's Linux) is also [`TcpConfig::default`] and the catalog's defaults: one fact.
//!
//! What a stack has and qdsim does not model is listed in each profile's `summary` and in
//! `docs/tcp-profiles.md`.

use std::sync::OnceLock;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::config::{CcKind, TcpConfig};
use super::options::{self, OPTIONS};
use crate::catalog::{core_value, TcpProfileEntry, TcpProfileInfo};

/// A profile: a stack's value of every TCP option.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// Name used as `tcp = { profile = "..." }`.
    pub name: &'static str,
    /// The stack it follows and what of it is not modelled.
    pub summary: &'static str,
    /// The congestion control a flow group of the profile runs unless it names one (the
    /// group's `cc`), with its source: the stack's default, or the agent a profile names.
    pub cc: TcpProfileEntry,
    /// The hosts' processing jitter (`[topology] host_jitter`) of a file that sets none, for
    /// the endpoints of this profile's flows: exact timing (`0s`) for a stack as a simulator
    /// runs it, a real host's variability for a stack on real hosts; with its source.
    pub host_jitter: TcpProfileEntry,
    /// The profile whose table this one changes (ns-2's agents share `ns-default.tcl`):
    /// `entries` then lists only what differs. `None`: `entries` is the whole table.
    pub base: Option<&'static Profile>,
    /// Every option's value and source (the differences from `base`, with one).
    pub entries: &'static [TcpProfileEntry],
}

/// The profile of a flow group that names none.
pub const DEFAULT: &str = "linux";

const fn e(option: &'static str, value: &'static str, source: &'static str) -> TcpProfileEntry {
    TcpProfileEntry { option, value, source }
}

/// Every profile, the default first.
pub const PROFILES: &[Profile] = &[LINUX, NS3, NS2_RENO, NS2_NEWRENO, NS2_SACK1, LINUX_26, RFC];

/// Today's Linux, as Debian 12 ships it (6.1 LTS): the networks under study run it, so a
/// file that names no profile runs it.
const LINUX: Profile = Profile {
    name: "linux",
    cc: e("cc", "cubic", "lx61:net/ipv4/Kconfig:729-742 (DEFAULT_TCP_CONG \"cubic\"); tcp_cubic.c:49-58 (beta 717/1024, fast_convergence, tcp_friendliness, as cc = \"cubic\")"),
    host_jitter: e("host_jitter", "10us", "qdsim's choice for real hosts (docs/tcp.md, \"Timing jitter\"): interrupts, softirq batching and scheduling vary a packet's departure by microseconds"),
    base: None,
    summary: "Linux 6.1 (Debian 12's kernel) with CUBIC and HyStart, PRR, SACK, timestamps, IW 10, delayed ACKs \
              with quick-ACK mode, counting every segment an ACK covers. Not modelled: RACK-TLP (a segment is \
              lost once one sent after it is SACKed and a quarter of min RTT passed, also with fewer than three \
              SACKed; tail loss probes), F-RTO and undo (DSACK, Eifel), receive-buffer autotuning (the window \
              is the autotuned maximum from the start), the adaptive ATO, pacing and TSO/GSO, the restart after \
              idle halving cwnd per idle RTO (tcp_cwnd_restart), the RTO rounded up to a jiffy",
    entries: &[
        e("packet_size", "1500B", "an Ethernet MTU: MSS 1448 with timestamps (lx61:net/ipv4/tcp_output.c:1695-1734, tcp_mtu_to_mss: the MTU less 40 B of headers and the 12 B timestamp option)"),
        e("initial_cwnd", "10", "lx61:include/net/tcp.h:235 (TCP_INIT_CWND); net/ipv4/tcp.c:435 (tcp_init_sock), tcp_input.c:980 (tcp_init_cwnd without a route metric)"),
        e("initial_ssthresh", "none", "lx61:net/ipv4/tcp.c:444 (snd_ssthresh = TCP_INFINITE_SSTHRESH)"),
        e("rwnd", "3MiB", "derived: lx61:net/ipv4/tcp.c:4891, 4899 (tcp_rmem[2] = 6 MiB, the autotuning ceiling) x lx61:net/ipv4/tcp_ipv4.c:3198 (tcp_adv_win_scale 1: include/net/tcp.h:1460-1467, tcp_win_from_space advertises half)"),
        e("min_rto", "200ms", "lx61:include/net/tcp.h:143 (TCP_RTO_MIN = HZ/5)"),
        e("max_rto", "120s", "lx61:include/net/tcp.h:142 (TCP_RTO_MAX = 120 HZ)"),
        e("initial_rto", "1s", "lx61:include/net/tcp.h:148 (TCP_TIMEOUT_INIT = 1 HZ, RFC 6298 2.1)"),
        e("rto_formula", "linux", "lx61:net/ipv4/tcp_input.c:848-913 (tcp_rtt_estimator: 2.6's algorithm, in us); include/net/tcp.h:722-725 (__tcp_set_rto = srtt + rttvar)"),
        e("clock_granularity", "1us", "lx61:net/ipv4/tcp_input.c:848 (RTT samples in us, tcp_mstamp); the RTO is then rounded up to a jiffy (include/net/tcp.h:724, usecs_to_jiffies), not modelled"),
        e("rto_restart", "every_ack", "lx61:net/ipv4/tcp_input.c:3449-3450 (FLAG_SET_XMIT_TIMER on every ACK of data), 3994-3995, 3237-3270 (tcp_rearm_rto, tcp_set_xmit_timer)"),
        e("fast_retransmit_restarts_rto", "true", "lx61:net/ipv4/tcp_output.c:3428-3436 (tcp_xmit_retransmit_queue re-arms the timer when the head is resent)"),
        e("dupack_threshold", "3", "lx61:net/ipv4/tcp_ipv4.c:3176 (tcp_reordering = TCP_FASTRETRANS_THRESH, include/net/tcp.h:81); with RACK, 3 SACKed segments zero its reordering window (net/ipv4/tcp_recovery.c:5-25)"),
        e("delayed_ack", "true", "lx61:net/ipv4/tcp_input.c:5607-5633 (__tcp_ack_snd_check)"),
        e("delayed_ack_count", "2", "lx61:net/ipv4/tcp_input.c:5613 (ACK at once when more than one full-sized segment is unACKed)"),
        e("delayed_ack_timeout", "40ms", "lx61:include/net/tcp.h:136-137 (TCP_DELACK_MIN, TCP_ATO_MIN = HZ/25); net/ipv4/tcp_input.c:813 (ato starts at TCP_ATO_MIN; its adaptation is not modelled)"),
        e("quick_acks", "16", "lx61:include/net/tcp.h:84 (TCP_MAX_QUICKACKS 16); net/ipv4/tcp_input.c:291-301, 808-813 (the first data segment enters quick-ACK mode for min(16, rcv_wnd / 2 MSS) = 16 with the initial 64 KB window)"),
        e("ecn", "false", "lx61:net/ipv4/tcp_ipv4.c:3160 (tcp_ecn 2: ECN only when the peer asks for it)"),
        e("sack", "true", "lx61:net/ipv4/tcp_ipv4.c:3188 (tcp_sack 1)"),
        e("recovery", "prr", "lx61:net/ipv4/tcp_input.c:2669-2707 (tcp_init_cwnd_reduction, tcp_cwnd_reduction)"),
        e("prr_bound", "rfc9937", "lx61:net/ipv4/tcp_input.c:2694-2703 (max(prr_delivered - prr_out, newly_acked_sacked), + 1 when snd_una advanced and nothing was newly lost)"),
        e("prr_dupack_segment", "false", "lx61:net/ipv4/tcp_input.c:2683-2692 (prr_delivered counts newly ACKed and SACKed segments only)"),
        e("rescue_retransmit", "off", "no RFC 6675 rule 4 in lx61:net/ipv4/tcp_output.c:3365-3437 (tcp_xmit_retransmit_queue resends what is marked lost); its tail loss probe (tcp_ipv4.c:3191, tcp_early_retrans 3) is not modelled"),
        e("reduction_base", "cwnd", "lx61:net/ipv4/tcp_cubic.c:341-356 (cubictcp_recalc_ssthresh from snd_cwnd); tcp_input.c:2676 (prior_cwnd, PRR's RecoverFS)"),
        e("limited_transmit", "pipe", "lx61:include/net/tcp.h:1242-1245 (tcp_packets_in_flight leaves out SACKed segments: new data as SACKs arrive)"),
        e("recover_check", "rfc", "lx61:net/ipv4/tcp_input.c:2909, 3061 (a recovery ends, and another may start, once snd_una reaches high_seq)"),
        e("recovery_exit", "ssthresh", "lx61:net/ipv4/tcp_input.c:2709-2723 (tcp_end_cwnd_reduction: cwnd = ssthresh)"),
        e("window_arithmetic", "segments", "lx61:net/ipv4/tcp_cong.c:420-436 (tcp_cong_avoid_ai: snd_cwnd and snd_cwnd_cnt in whole segments)"),
        e("syn_loss", "linux", "lx61:net/ipv4/tcp_input.c:6140-6148 (tcp_init_transfer: IW unless the SYN was resent more than once), 3185-3187 (a timestamp gives the sample); net/ipv4/tcp_metrics.c:528-538 (no sample: RTO 3 s)"),
        e("timeout_ssthresh", "new_episode", "lx61:net/ipv4/tcp_input.c:2166-2175 (tcp_enter_loss: ssthresh only in Open or Disorder, after the episode, or before the first retransmission)"),
        e("hystart", "linux", "lx61:net/ipv4/tcp_cubic.c:40-58 (hystart 1, both detections, low window 16, ACK delta 2 ms), 386-450 (hystart_update), 452-475 (cubictcp_acked)"),
        e("idle_restart", "true", "lx61:net/ipv4/tcp_ipv4.c:3193 (tcp_slow_start_after_idle 1); net/ipv4/tcp_output.c:142-158 (tcp_cwnd_restart, which halves per idle RTO down to IW where qdsim restarts from min(IW, cwnd))"),
        e("timestamps", "true", "lx61:net/ipv4/tcp_ipv4.c:3190 (tcp_timestamps 1)"),
        e("byte_counting", "linux", "lx61:net/ipv4/tcp_input.c:3573-3588 (tcp_cong_avoid(sk, ack, acked_sacked)); tcp_cong.c:406-414 (tcp_slow_start: cwnd + acked, up to ssthresh)"),
        e("handshake", "true", "lx61:net/ipv4/tcp_output.c:3910 (tcp_connect: SYN with MSS, SACK-permitted, timestamps, window scale)"),
        e("wire", "ietf", "lx61:net/ipv4/tcp_output.c:608-700 (tcp_options_write: timestamps 12 B on every segment, SACK 4 + 8n B)"),
    ],
};

const NS3: Profile = Profile {
    name: "ns3",
    cc: e("cc", "cubic", "ns3:src/internet/model/tcp-l4-protocol.cc:72-76 (SocketType TcpCubic, also in ns-3.37)"),
    host_jitter: e("host_jitter", "0s", "ns-3 runs exactly timed: a packet leaves its NetDevice the moment the stack hands it down (no processing delay is modelled)"),
    base: None,
    summary: "ns-3.44 TcpSocketBase with its default SocketType TcpCubic (set cc = \"newreno\" for TcpNewReno) \
              and the default TcpPrrRecovery. Not modelled: DataRetries (6 retransmissions abort a connection), \
              the backoff collapsing on the next ACK, DoRecovery run twice on a partial ACK that carries new SACK \
              blocks, the leftover-segment CA increment of NewReno's slow start",
    entries: &[
        e("packet_size", "1500B", "qdsim's choice (an Ethernet MTU); ns3:src/internet/model/tcp-socket.cc:61-66 SegmentSize is 536 and is set by every script"),
        e("initial_cwnd", "10", "ns3:src/internet/model/tcp-socket.cc:73-77 (InitialCwnd); tcp-socket-base.cc:1415"),
        e("initial_ssthresh", "none", "ns3:src/internet/model/tcp-socket.cc:67-71 (InitialSlowStartThreshold UINT32_MAX)"),
        e("rwnd", "131072B", "ns3:src/internet/model/tcp-socket.cc:49-60 (RcvBufSize, SndBufSize 131072); the advertised window is the free receive buffer"),
        e("min_rto", "1s", "ns3:src/internet/model/tcp-socket-base.cc:141-147 (MinRto)"),
        e("max_rto", "60s", "ns3:src/internet/model/tcp-socket-base.cc:3950-3951 (ReTxTimeout: backoff capped at 60 s)"),
        e("initial_rto", "3s", "ns3:src/internet/model/tcp-socket.cc:79-90 (ConnTimeout 3 s, the SYN's timer; the handshake gives data its first sample before data's 1-s InitialEstimation, rtt-estimator.cc:40-42, could apply)"),
        e("rto_formula", "rfc6298", "ns3:src/internet/model/rtt-estimator.cc:126-135 (RttMeanDeviation); tcp-socket-base.cc:2841 (max(MinRto, SRTT + max(G, 4 RTTVAR)))"),
        e("clock_granularity", "1ms", "ns3:src/internet/model/tcp-socket-base.cc:148-154 (ClockGranularity); tcp-option-ts.cc:123-145 (TS values in ms; a 0 sample is 1 us, tcp-socket-base.cc:3717-3750)"),
        e("rto_restart", "first_partial_ack", "ns3:src/internet/model/tcp-socket-base.cc:2109-2126 (m_isFirstPartialAck)"),
        e("fast_retransmit_restarts_rto", "false", "ns3:src/internet/model/tcp-socket-base.cc:3277-3285 (SendDataPacket arms only a stopped timer)"),
        e("dupack_threshold", "3", "ns3:src/internet/model/tcp-socket-base.cc:177-181 (ReTxThreshold)"),
        e("delayed_ack", "true", "ns3:src/internet/model/tcp-socket.cc:97-108 (DelAckCount 2)"),
        e("delayed_ack_count", "2", "ns3:src/internet/model/tcp-socket.cc:97-108 (DelAckCount)"),
        e("delayed_ack_timeout", "200ms", "ns3:src/internet/model/tcp-socket.cc:97-108 (DelAckTimeout)"),
        e("quick_acks", "1", "ns3:src/internet/model/tcp-socket-base.cc:2328, 2393, 2447 (m_delAckCount = max after the handshake: the first data segment is ACKed at once)"),
        e("ecn", "false", "ns3:src/internet/model/tcp-socket-base.cc:187-190 (UseEcn Off)"),
        e("sack", "true", "ns3:src/internet/model/tcp-socket-base.cc:132-136 (Sack)"),
        e("recovery", "prr", "ns3:src/internet/model/tcp-prr-recovery.cc:55-114 (TcpPrrRecovery, the default RecoveryType since ns-3.32)"),
        e("prr_bound", "rfc9937", "ns3:src/internet/model/tcp-prr-recovery.cc:95-108 (CRB, SSRB on a safe ACK; rfc6937bis-08, RELEASE_NOTES.md:124); ns-3 takes \"safe\" as a cumulative ACK of retransmitted data"),
        e("prr_dupack_segment", "true", "ns3:src/internet/model/tcp-prr-recovery.cc:74-77 (deliveredBytes += SMSS on a duplicate ACK, also with SACK; from ns-3.43, not in 3.37, removed again after 3.48 as a double count, ns-3 #1350)"),
        e("rescue_retransmit", "partial_ack", "ns3:src/internet/model/tcp-socket-base.cc:2099-2104 (DoRetransmit on a partial ACK); tcp-tx-buffer.cc:1035-1050 (NextSeg without rule 4)"),
        e("reduction_base", "ns3", "ns3:src/internet/model/tcp-socket-base.cc:1710-1717 (GetSsThresh(BytesInFlight()) after MarkHeadAsLost), cut by TcpNewReno and TcpHighSpeed (tcp-highspeed.cc:141-153); TcpCubic::GetSsThresh cuts beta x its cWnd instead (tcp-cubic.cc:407-432); tcp-prr-recovery.cc:63 (RecoverFS = bytes in flight)"),
        e("limited_transmit", "pipe", "ns3:src/internet/model/tcp-socket-base.cc:1822-1842, 3385-3540 (SACKed bytes leave BytesInFlight in DISORDER; the LimitedTransmit attribute, 182-186, applies without SACK)"),
        e("recover_check", "rfc", "ns3:src/internet/model/tcp-socket-base.cc:1809-1810 (EnterRecovery once m_highRxAckMark >= m_recover)"),
        e("recovery_exit", "ssthresh", "ns3:src/internet/model/tcp-classic-recovery.cc (ExitRecovery: cWnd = ssThresh; PRR's exit is the same)"),
        e("window_arithmetic", "segments", "derived: ns3:src/internet/model/tcp-congestion-ops.cc:177-186 counts bytes (max(1, SMSS^2/cWnd) per ACK), which in whole segments is one per window of ACKs, as a counter"),
        e("syn_loss", "ns3", "ns3:src/internet/model/tcp-socket-base.cc:2860-2873 (the SYN's timer m_cnTimeout doubled into m_rto), 1415-1422 (ProcessSynSent: the initial window, EstimateRtt from the TS echo)"),
        e("timeout_ssthresh", "not_repeated", "ns3:src/internet/model/tcp-socket-base.cc:3939-3943 (ReTxTimeout: GetSsThresh unless in CA_LOSS with the head retransmitted)"),
        e("hystart", "linux", "ns3:src/internet/model/tcp-cubic.cc:47-87 (HyStart true: Linux's HyStart ported, ACK trains and delay increase, low window 16, 8 samples, ACK delta 2 ms, delay min 4 ms; HyStartDelayMax 1000 ms where Linux clamps at 16 ms, so above a 128-ms base RTT ns-3's delay threshold is larger); TcpCubic's only: TcpNewReno has none"),
        e("idle_restart", "false", "derived: TcpSocketBase has no restart after idle (no idle test in ns3:src/internet/model/tcp-socket-base.cc)"),
        e("timestamps", "true", "ns3:src/internet/model/tcp-socket-base.cc:137-141 (Timestamp)"),
        e("byte_counting", "ns3", "ns3:src/internet/model/tcp-congestion-ops.cc:152-164, 177-186 (NewReno: +1 SMSS per ACK in slow start, max(1, SMSS^2/cwnd) per ACK after); tcp-cubic.cc:178-206 (TcpCubic: every segment the ACK covers, in slow start and toward cnt)"),
        e("handshake", "true", "ns3:src/internet/model/tcp-socket-base.cc:713-790, 2312-2410 (three-way handshake)"),
        e("wire", "ietf", "ns3:src/internet/model/tcp-header.cc:404-418, tcp-option-ts.cc:56, tcp-option-sack.cc:65 (options padded to 32-bit words: data 52 + payload with TS, ACK 52 + 4 + 8n)"),
    ],
};

/// ns-2's timing, every agent's: `overhead_ 0`.
const NS2_TIMING: TcpProfileEntry = e(
    "host_jitter",
    "0s",
    "ns2:tcl/lib/ns-default.tcl:932 (Agent/TCP overhead_ 0: every packet leaves at once, exactly timed)",
);

/// What ns-2's one-way agents without SACK change of [`NS2_SACK1`]'s table (the rest is
/// `ns-default.tcl`'s, shared by every agent).
macro_rules! ns2_without_sack {
    ($($extra:expr),* $(,)?) => {
        &[
            e("sack", "false", "ns2:tcp/tcp-sink.cc:358-381 (Agent/TCPSink ACKs cumulatively, no SACK blocks; Reno and Newreno keep no scoreboard)"),
            e("recovery", "rfc6675", "unused (sack false): the agent's own fast recovery"),
            e("prr_bound", "crb", "unused (sack false)"),
            e("prr_dupack_segment", "false", "unused (sack false)"),
            e("rescue_retransmit", "off", "unused (sack false)"),
            $($extra),*
        ]
    };
}

const NS2_RENO: Profile = Profile {
    name: "ns2-reno",
    summary:
        "ns-2.35 Agent/TCP/Reno with Agent/TCPSink (no SACK), defaults of ns-default.tcl (the rest as ns2-sack1). \
              Not modelled: as ns2-sack1",
    cc: e("cc", "reno", "ns2:tcp/tcp-reno.cc (RenoTcpAgent: any new ACK ends fast recovery)"),
    host_jitter: NS2_TIMING,
    base: Some(&NS2_SACK1),
    entries: ns2_without_sack![
        e("rto_restart", "every_ack", "ns2:tcp/tcp.cc:1352-1401 (newack: newtimer on every new ACK)"),
        e(
            "fast_retransmit_restarts_rto",
            "true",
            "ns2:tcp/tcp-reno.cc:214 (reset_rtx_timer(1,0) at the fast retransmit)"
        ),
    ],
};

const NS2_NEWRENO: Profile = Profile {
    name: "ns2-newreno",
    summary: "ns-2.35 Agent/TCP/Newreno with Agent/TCPSink (no SACK), defaults of ns-default.tcl (the rest as ns2-sack1). \
              Not modelled: as ns2-sack1; newreno_changes_ 0 (no ssthresh estimate from the first ACKs) is the default",
    cc: e("cc", "newreno", "ns2:tcp/tcp-newreno.cc (NewRenoTcpAgent: partial ACKs keep fast recovery)"),
    host_jitter: NS2_TIMING,
    base: Some(&NS2_SACK1),
    entries: ns2_without_sack![
        e("rto_restart", "first_partial_ack", "ns2:tcl/lib/ns-default.tcl:1080 (newreno_changes1_ 1); tcp-newreno.cc:91-104 (partialnewack_helper: newtimer on the first partial ACK only)"),
        e("fast_retransmit_restarts_rto", "true", "ns2:tcp/tcp-newreno.cc:168 (reset_rtx_timer(1,0) at the fast retransmit)"),
    ],
};

const NS2_SACK1: Profile = Profile {
    name: "ns2-sack1",
    cc: e("cc", "newreno", "ns2:tcp/tcp-sack1.cc (Sack1 grows and halves as Reno; qdsim's reno and newreno share that AIMD, and under SACK neither recovery is used)"),
    host_jitter: NS2_TIMING,
    base: None,
    summary: "ns-2.35 Agent/TCP/Sack1 with Agent/TCPSink/Sack1, defaults of ns-default.tcl. Not modelled: \
              the half segment of an odd halved window beyond the AIMD counter, boot_time_ is drawn per flow, \
              the window (window_) in packets is rwnd in bytes (window_ x packetSize_)",
    entries: &[
        e("packet_size", "1040B", "ns2:tcl/lib/ns-default.tcl:936 (packetSize_ 1000 B of payload) + 40 B of headers (tcp.cc:634-645, tcpip_base_hdr_size_)"),
        e("initial_cwnd", "2", "ns2:tcl/lib/ns-default.tcl:920-922 (windowInit_ 2, windowInitOption_ 1); tcp.cc:1522-1545 (initial_window)"),
        e("initial_ssthresh", "20", "ns2:tcp/tcp.cc:462 (reset: ssthresh_ = window_); ns-default.tcl:919 (window_ 20)"),
        e("rwnd", "20000B", "ns2:tcl/lib/ns-default.tcl:919 (window_ 20 packets of 1000 B: a sender-side cap, window() = min(cwnd_, window_), tcp.cc:888-902)"),
        e("min_rto", "200ms", "ns2:tcl/lib/ns-default.tcl:952-961 (minrto_ 0.2)"),
        e("max_rto", "60s", "ns2:tcl/lib/ns-default.tcl:952-961 (maxrto_ 60)"),
        e("initial_rto", "3s", "ns2:tcl/lib/ns-default.tcl:952-961 (rtxcur_init_ 3.0); tcp.cc:520-527 (rtt_init)"),
        e("rto_formula", "ns2", "ns2:tcp/tcp.cc:529-561 (rtt_timeout), 565-609 (rtt_update), 611-627 (rtt_backoff)"),
        e("clock_granularity", "10ms", "ns2:tcl/lib/ns-default.tcl (tcpTick_ 0.01)"),
        e("rto_restart", "every_ack", "ns2:tcp/tcp.cc:965-1005 (newtimer on every new ACK); tcp-sack1.cc:218-226 (every partial ACK)"),
        e("fast_retransmit_restarts_rto", "true", "ns2:tcp/tcp-sack1.cc:338 (reset_rtx_timer(1,0) on the third duplicate ACK)"),
        e("dupack_threshold", "3", "ns2:tcl/lib/ns-default.tcl (numdupacks_ 3)"),
        e("delayed_ack", "false", "ns2:tcp/tcp-sink.cc:358-381 (TCPSink/Sack1 ACKs every packet)"),
        e("delayed_ack_count", "2", "unused (delayed_ack false); the DelAck sink's count, ns2:tcp/tcp-sink.cc:540-556"),
        e("delayed_ack_timeout", "100ms", "unused (delayed_ack false); ns2:tcl/lib/ns-default.tcl:1061-1071 (DelAck interval_ 100 ms)"),
        e("quick_acks", "0", "unused (delayed_ack false); a SYN is always ACKed at once"),
        e("ecn", "false", "ns2:tcl/lib/ns-default.tcl (ecn_ 0)"),
        e("sack", "true", "ns2:tcl/lib/ns-default.tcl:1056, 1059 (Sack1 sink, maxSackBlocks_ 3)"),
        e("recovery", "ns2_sack1", "ns2:tcp/tcp-sack1.cc:95-352 (recv, dupack_action), 422-490 (send_much); scoreboard-rq.cc (GetNextRetran)"),
        e("prr_bound", "crb", "unused (recovery ns2_sack1)"),
        e("prr_dupack_segment", "false", "unused (recovery ns2_sack1)"),
        e("rescue_retransmit", "off", "ns2:tcp/tcp-sack1.cc:206-226 (partial_ack_ false: nothing forced out; no rule 4)"),
        e("reduction_base", "cwnd", "ns2:tcp/tcp.cc:1241-1345 (slowdown: half of min(cwnd_, window_)); tcp-sack1.cc:345"),
        e(
            "limited_transmit",
            "ns2",
            "ns2:tcl/lib/ns-default.tcl:987 (singledup_ 1); tcp.cc:1576-1588 (send_one: t_seqno_ <= highest_ack_ + cwnd_ + dupacks_, \
             no recover_ check); tcp-sack1.cc:144-166, tcp-reno.cc:125-126, tcp-newreno.cc:273-274 (on each duplicate ACK below numdupacks_)",
        ),
        e("recover_check", "ns2", "ns2:tcl/lib/ns-default.tcl:939 (bugFix_ true); tcp-sack1.cc:276-280, tcp-reno.cc:173-176, tcp-newreno.cc:116-120 (dupack_action: a fast retransmit only once highest_ack_ > recover_)"),
        e("recovery_exit", "ssthresh", "ns2:tcl/lib/ns-default.tcl:1084 (exit_recovery_fix_ 0); tcp-newreno.cc:224-237 (dupwnd_ = 0: cwnd_ is the halved window)"),
        e("window_arithmetic", "ns2", "ns2:tcp/tcp.cc:1119-1146 (opencwnd: the double cwnd_ +1 per ACK, then +increase_num_/cwnd_), 1241-1330 (slowdown: cwnd_ = halfwin, unrounded), tcp-reno.cc (window() = int(cwnd_) + dupwnd_), tcp-newreno.cc:61-79 (partialnewack)"),
        e("syn_loss", "ns2", "ns2:tcp/tcp.cc:1885-1892 (timeout: wnd_init_ = 1 when the first packet is lost), 965-973 (reset_rtx_timer backs off, rtt_active_ = 0: no sample), 1809-1811 (cwnd_ = initial_window() on the SYN's ACK); no 3 s floor"),
        e("timeout_ssthresh", "every", "ns2:tcp/tcp.cc:1910-1913 (timeout: slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) whatever the state)"),
        e("hystart", "off", "none in ns-2.35"),
        e("idle_restart", "false", "ns2:tcp/tcp.cc:965-1005 (newtimer cancels the timer once everything is ACKed: the one-way agents keep their window)"),
        e("timestamps", "false", "ns2:tcl/lib/ns-default.tcl:946 (timestamps_ false)"),
        e("byte_counting", "off", "ns2:tcp/tcp.cc:1119-1131 (opencwnd: +1, or +1/cwnd_, per new ACK)"),
        e("handshake", "true", "ns2:tcl/lib/ns-default.tcl:922 (syn_ true); tcp.cc:699-706 (packet 0 is a 40-B SYN ACKed like data; IW 1 if it is lost, tcp.cc:1885-1892)"),
        e("wire", "ns2", "ns2:tcl/lib/ns-default.tcl:936-938, 1055; tcp.cc:634-645, 761-763; tcp-sink.cc:755 (data payload + 40 (+ 10 with TS), ACK 40 + 8n); common/agent.cc:461, tcp.cc:647-654 (every data packet packetSize_, a transfer's last one too)"),
    ],
};

const LINUX_26: Profile = Profile {
    name: "linux-2.6",
    cc: e("cc", "newreno", "qdsim's choice as before: Reno AIMD (lx:net/ipv4/tcp_cong.c tcp_reno_cong_avoid) under Linux's own recovery; the Kconfig default is cubic (set cc = \"cubic\"), NSC 0.5.3's build is unverified"),
    host_jitter: e("host_jitter", "0s", "INET runs NSC's stack in OMNeT++'s event loop, exactly timed (inet:src/transport/tcp_nsc/TCP_NSC.cc hands each segment on at the current simulation time)"),
    base: None,
    summary: "Linux 2.6.26 (NSC 0.5.3, INET's default TCP_NSC stack) with Reno AIMD (set cc = \"cubic\" for the \
              Kconfig default; NSC's build is unverified). Not modelled: F-RTO (tcp_frto 2), DSACK and undo, \
              cached route metrics (IW 3 and ssthresh on later connections), receive-window growth \
              (rcv_ssthresh), the adaptive ATO, tcp_moderate_cwnd in Disorder, the send buffer's limit",
    entries: &[
        e("packet_size", "1500B", "an Ethernet MTU; the MSS follows from it (lx:net/ipv4/tcp_output.c:350-380)"),
        e("initial_cwnd", "2", "derived: lx:net/ipv4/tcp_ipv4.c:1843 (snd_cwnd = 2 at socket init); tcp_input.c:897-944 (tcp_init_metrics sets RFC 3390's value only with a cached RTT metric)"),
        e("initial_ssthresh", "none", "lx:net/ipv4/tcp_ipv4.c:1848 (snd_ssthresh = 0x7fffffff)"),
        e("rwnd", "60000B", "derived: inet:src/transport/tcp_nsc/TCP_NSC.ned (stackBufferSize 80000 into tcp_rmem); Linux advertises 3/4 of the buffer, lx:net/ipv4/tcp_input.c:84 (tcp_adv_win_scale 2)"),
        e("min_rto", "200ms", "lx:include/net/tcp.h:118-128 (TCP_RTO_MIN = HZ/5)"),
        e("max_rto", "120s", "lx:include/net/tcp.h:97 (TCP_RTO_MAX = 120 HZ)"),
        e("initial_rto", "3s", "lx:include/net/tcp.h:128 (TCP_TIMEOUT_INIT = 3 HZ)"),
        e("rto_formula", "linux", "lx:net/ipv4/tcp_input.c:620-681 (tcp_rtt_estimator), 686-714 (tcp_set_rto, tcp_bound_rto)"),
        e("clock_granularity", "1ms", "[unverified] HZ 1000: NSC's HZ is asked of the stack (ns-3.26 src/internet/model/nsc-tcp-l4-protocol.cc:206-212)"),
        e("rto_restart", "every_ack", "lx:net/ipv4/tcp_input.c:2785-2796 (tcp_rearm_rto on every ACK of data, partial ACKs included)"),
        e("fast_retransmit_restarts_rto", "true", "lx:net/ipv4/tcp_output.c:1999-2003 (re-armed when the head is retransmitted)"),
        e("dupack_threshold", "3", "lx:net/ipv4/tcp_input.c:80 (tcp_reordering = TCP_FASTRETRANS_THRESH 3)"),
        e("delayed_ack", "true", "lx:net/ipv4/tcp_input.c:4412-4441 (__tcp_ack_snd_check)"),
        e("delayed_ack_count", "2", "lx:net/ipv4/tcp_input.c:4412-4441 (ACK at once when more than one full MSS is unACKed)"),
        e("delayed_ack_timeout", "40ms", "lx:include/net/tcp.h:118-121 (TCP_ATO_MIN = HZ/25; the ATO's adaptation is not modelled)"),
        e("quick_acks", "2", "derived: lx:net/ipv4/tcp_input.c:169-178 (tcp_incr_quickack: rcv_wnd / (2 rcv_mss), at least 2) with the initial rcv_wnd of 4 MSS (tcp_output.c:179-232)"),
        e("ecn", "false", "lx:net/ipv4/tcp_input.c:81 (tcp_ecn 0)"),
        e("sack", "true", "lx:net/ipv4/tcp_input.c:78 (tcp_sack 1)"),
        e("recovery", "rate_halving", "lx:net/ipv4/tcp_input.c:2108-2305 (tcp_time_to_recover, tcp_update_scoreboard with FACK, tcp_cwnd_down), 2558-2717 (tcp_fastretrans_alert); tcp_output.c:1953-2066"),
        e("prr_bound", "ssrb", "unused (recovery rate_halving); Linux 3.2+ PRR is SSRB (lx36:net/ipv4/tcp_input.c tcp_update_cwnd_in_recovery)"),
        e("prr_dupack_segment", "false", "unused (recovery rate_halving)"),
        e("rescue_retransmit", "off", "lx:net/ipv4/tcp_output.c:2017-2063 (forward retransmission of holes below the highest SACK only; no rule 4)"),
        e("reduction_base", "cwnd", "lx:net/ipv4/tcp_cong.c:380-393 (tcp_reno_ssthresh: snd_cwnd / 2); tcp_cubic.c:256-273"),
        e("limited_transmit", "pipe", "lx:include/net/tcp.h:759-762 (tcp_packets_in_flight leaves out SACKed segments); tcp_input.c:2500-2517 (cwnd kept in Disorder)"),
        e("recover_check", "rfc", "lx:net/ipv4/tcp_input.c:2558-2717 (tcp_fastretrans_alert: no new recovery before snd_una reaches high_seq)"),
        e("recovery_exit", "flightsize", "unused unless sack = false (rate-halving ends its own reduction); then qdsim's choice, RFC 6582 option 1"),
        e("window_arithmetic", "segments", "lx:include/linux/tcp.h (snd_cwnd and snd_cwnd_cnt, whole segments); net/ipv4/tcp_cong.c (tcp_cong_avoid_ai)"),
        e("syn_loss", "rfc", "lx:net/ipv4/tcp_input.c:897-944 (tcp_init_metrics: the RTO back to TCP_TIMEOUT_INIT, 3 s, and cwnd 1 after a retransmitted SYN)"),
        e("timeout_ssthresh", "new_episode", "lx:net/ipv4/tcp_input.c:1717-1730 (tcp_enter_loss: ssthresh only outside Recovery and Loss, or on the first retransmission)"),
        e("hystart", "off", "none in 2.6.26 (lx:net/ipv4/tcp_cubic.c)"),
        e("idle_restart", "true", "lx:net/ipv4/tcp_output.c:62, 128-155 (tcp_slow_start_after_idle 1, tcp_cwnd_restart)"),
        e("timestamps", "true", "lx:net/ipv4/tcp_input.c:76 (tcp_timestamps 1)"),
        e("byte_counting", "off", "lx:net/ipv4/tcp_input.c:94 (tcp_abc 0)"),
        e("handshake", "true", "lx:net/ipv4/tcp_output.c:512-525 (SYN with MSS, TS, SACK-OK, WS)"),
        e("wire", "ietf", "lx:net/ipv4/tcp_output.c:350-380, 505-533 (tcp_options_write: data 52 + MSS with TS, ACK 52 + 4 + 8n, SYN 60)"),
    ],
};

const RFC: Profile = Profile {
    name: "rfc",
    cc: e("cc", "newreno", "RFC 6582 (NewReno; with SACK, RFC 6675's recovery)"),
    host_jitter: e("host_jitter", "10us", "qdsim's choice for real hosts (docs/tcp.md, \"Timing jitter\"): per-packet processing and interrupt moderation vary by microseconds; the RFCs say nothing"),
    base: None,
    summary: "Standards-track RFCs only (RFC 5681, 6298, 6675, 2018, 3042, 7323, 9293; PRR as RFC 9937 by \
              option). Excluded as not standards track: IW 10 (RFC 6928), ABC (RFC 3465), RFC 6937",
    entries: &[
        e(
            "packet_size",
            "1500B",
            "qdsim's choice (the RFCs fix none; RFC 9293 section 3.7.1's 536 B is for peers that send no MSS option)",
        ),
        e("initial_cwnd", "rfc3390", "RFC 5681 section 3.1, RFC 3390 section 1 (3 segments at MSS 1460, 4 at 960)"),
        e("initial_ssthresh", "none", "RFC 5681 section 3.1 (arbitrarily high)"),
        e(
            "rwnd",
            "1GiB",
            "RFC 7323 section 2.3 (the largest window scaling allows); the RFCs leave the buffer to the implementation",
        ),
        e("min_rto", "1s", "RFC 6298 section 2.4"),
        e("max_rto", "60s", "RFC 6298 section 2.5 (a maximum of at least 60 s)"),
        e("initial_rto", "1s", "RFC 6298 section 2.1"),
        e("rto_formula", "rfc6298", "RFC 6298 section 2"),
        e("clock_granularity", "0s", "RFC 6298 section 2 leaves G to the implementation: 0 = an exact clock"),
        e(
            "rto_restart",
            "every_ack",
            "RFC 6298 section 5.3 (RFC 6582's Impatient variant is for NewReno without SACK)",
        ),
        e(
            "fast_retransmit_restarts_rto",
            "false",
            "RFC 6298 section 5.1 (a retransmission starts only a stopped timer)",
        ),
        e("dupack_threshold", "3", "RFC 5681 section 3.2; RFC 6675 section 2 (DupThresh)"),
        e("delayed_ack", "true", "RFC 5681 section 4.2 (SHOULD); RFC 1122 section 4.2.3.2"),
        e("delayed_ack_count", "2", "RFC 5681 section 4.2 (an ACK for at least every second full-sized segment)"),
        e("delayed_ack_timeout", "500ms", "RFC 5681 section 4.2 (MUST ACK within 500 ms: the bound itself)"),
        e("quick_acks", "0", "none in the RFCs"),
        e("ecn", "false", "RFC 3168 is optional"),
        e("sack", "true", "RFC 2018"),
        e("recovery", "rfc6675", "RFC 6675 section 5"),
        e("prr_bound", "rfc9937", "RFC 9937 (Proposed Standard, obsoletes RFC 6937), with recovery = \"prr\""),
        e("prr_dupack_segment", "false", "RFC 9937 counts SACKed data (with recovery = \"prr\")"),
        e("rescue_retransmit", "rfc6675", "RFC 6675 section 4 (NextSeg rule 4)"),
        e("reduction_base", "flightsize", "RFC 5681 section 3.2 eq. 4; RFC 6675 section 5 (4.2)"),
        e("limited_transmit", "rfc3042", "RFC 3042 section 2; RFC 6675 section 5 step 3"),
        e("recover_check", "rfc", "RFC 6582 section 3.2 step 2; RFC 6675 section 5.1 (RFC 5681's Reno has no recover)"),
        e("recovery_exit", "flightsize", "RFC 6582 section 3.2 step 3, option 1"),
        e("window_arithmetic", "segments", "RFC 5681 section 3.1 (cwnd in bytes, SMSS*SMSS/cwnd per ACK: one SMSS per window of ACKs, as a counter)"),
        e("syn_loss", "rfc", "RFC 6298 section 5.7; RFC 5681 section 3.1 (one segment after a lost SYN)"),
        e("timeout_ssthresh", "new_episode", "RFC 5681 section 3.1 eq. 4 (FlightSize at the first timeout; a repeated timeout keeps ssthresh); RFC 6675 section 5.1"),
        e("hystart", "off", "RFC 9406 is optional"),
        e("idle_restart", "true", "RFC 5681 section 4.1 (SHOULD)"),
        e("timestamps", "true", "RFC 7323 section 4"),
        e("byte_counting", "off", "RFC 5681 section 3.1 eq. 2 and 3 (per ACK; RFC 3465's ABC is Experimental)"),
        e("handshake", "true", "RFC 9293 section 3.5"),
        e("wire", "ietf", "RFC 2018 section 3; RFC 7323 appendix A (NOP, NOP, TS 12 B; NOP, NOP, SACK 4 + 8n B)"),
    ],
};

/// Returns the profile named `name`.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Returns the core value of `text` for option `option` (a listed name, or a quantity in the
/// option's unit).
fn core_field(option: &str, text: &str) -> Value {
    let o = options::find(option).unwrap_or_else(|| panic!("profile entry for unknown option {option}"));
    if o.values.contains(&text) {
        return Value::from(text);
    }
    core_value(o.unit, text).unwrap_or(Value::Null)
}

impl Profile {
    /// Returns every option's entry: `base`'s table with this profile's entries over it, in
    /// the base's order.
    pub fn table(&self) -> Vec<TcpProfileEntry> {
        let Some(base) = self.base else { return self.entries.to_vec() };
        let mut table = base.table();
        for entry in self.entries {
            match table.iter_mut().find(|e| e.option == entry.option) {
                Some(slot) => *slot = *entry,
                None => panic!("profile {}: {} is not an option of its base {}", self.name, entry.option, base.name),
            }
        }
        table
    }

    /// Returns the profile's `TcpConfig` fields (`cc` included) as JSON.
    pub fn fields(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        let cc = CcKind::from_name(self.cc.value);
        let cc = cc.unwrap_or_else(|| panic!("profile {}: unknown cc {}", self.name, self.cc.value));
        fields.insert("cc".into(), serde_json::to_value(cc).expect("a unit enum serializes"));
        for entry in &self.table() {
            let field = options::find(entry.option).map_or(entry.option, |o| o.field);
            fields.insert(field.into(), core_field(entry.option, entry.value));
        }
        fields
    }

    /// Returns the profile's configuration.
    ///
    /// # Panics
    /// A table that is not a complete, valid `TcpConfig` (this file's tests check every one).
    pub fn config(&self) -> TcpConfig {
        TcpConfig::from_complete(self.fields()).unwrap_or_else(|e| panic!("profile {}: {e}", self.name))
    }

    /// Returns the profile's catalog entry.
    pub fn info(&self) -> TcpProfileInfo {
        TcpProfileInfo {
            name: self.name,
            summary: self.summary,
            default: self.name == DEFAULT,
            options: [self.cc, self.host_jitter].into_iter().chain(self.table()).collect(),
            config: serde_json::to_value(self.config()).expect("a TcpConfig serializes"),
        }
    }
}

/// Returns the default profile's fields: what a `TcpConfig` without them takes.
pub(super) fn default_fields() -> &'static Map<String, Value> {
    static FIELDS: OnceLock<Map<String, Value>> = OnceLock::new();
    FIELDS.get_or_init(|| find(DEFAULT).expect("the default profile exists").fields())
}

// The profiles give `TcpConfig` its defaults: reading one fills absent fields from the default
// profile, and `TcpConfig::default()` is that profile. These impls live here, beside the
// table they read, so that `config.rs` (the options' types) does not depend on this file.

impl<'de> Deserialize<'de> for TcpConfig {
    /// Reads a `TcpConfig` whose absent fields take the default profile's values.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut fields = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        // Only the absent fields are copied from the default profile: the Python package
        // sends every field, so a flow's options cost no copy of the profile's (at 10⁵ flows
        // the copies were a tenth of the set-up).
        for (key, value) in default_fields() {
            if !fields.contains_key(key) {
                fields.insert(key.clone(), value.clone());
            }
        }
        TcpConfig::deserialize(serde_json::Value::Object(fields)).map_err(serde::de::Error::custom)
    }
}

impl Default for TcpConfig {
    /// The default profile ([`DEFAULT`]).
    fn default() -> Self {
        static CONFIG: OnceLock<TcpConfig> = OnceLock::new();
        CONFIG
            .get_or_init(|| {
                TcpConfig::deserialize(serde_json::Value::Object(default_fields().clone()))
                    .expect("the default profile is a complete TcpConfig (profiles.rs tests)")
            })
            .clone()
    }
}

impl TcpConfig {
    /// Returns the configuration of the profile named `name`, if there is one.
    pub fn profile(name: &str) -> Option<TcpConfig> {
        find(name).map(|p| p.config())
    }
}

/// Returns the catalog entries of the TCP options, their defaults the default profile's values.
pub fn option_infos() -> Vec<crate::catalog::TcpOptionInfo> {
    let default = find(DEFAULT).expect("the default profile exists");
    OPTIONS
        .iter()
        .map(|o| {
            let value = default.table().iter().find(|e| e.option == o.name).map_or("none", |e| e.value);
            o.with_default(value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::{
        ByteCounting, HyStartKind, InitialWindow, LimitedTransmit, PrrBound, RecoveryKind, ReductionBase, RtoFormula,
        RtoRestart, SynLoss,
    };

    #[test]
    fn every_profile_lists_every_option_once_and_is_a_valid_config() {
        for p in PROFILES {
            let mut listed: Vec<&str> = p.table().iter().map(|e| e.option).collect();
            let mut options: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
            listed.sort();
            options.sort();
            assert_eq!(listed, options, "profile {}", p.name);
            p.config().validate().unwrap_or_else(|e| panic!("profile {}: {e}", p.name));
            assert!(p.table().iter().all(|e| !e.source.is_empty()), "profile {}: an entry without a source", p.name);
        }
        let mut names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len());
        assert_eq!(PROFILES[0].name, DEFAULT);
    }

    #[test]
    fn the_default_config_is_the_default_profile() {
        assert_eq!(TcpConfig::default(), find(DEFAULT).unwrap().config());
        assert_eq!(TcpConfig::profile("linux"), Some(TcpConfig::default()));
        assert_eq!(TcpConfig::profile("ns-3"), None);
    }

    #[test]
    fn the_catalog_defaults_are_the_default_profile_values() {
        let defaults = serde_json::to_value(TcpConfig::default()).unwrap();
        for o in option_infos() {
            assert_eq!(core_field(o.name, o.default), defaults[o.field], "{}: catalog says {}", o.name, o.default);
        }
    }

    #[test]
    fn the_tcp_kinds_profile_parameter_names_every_profile() {
        let tcp = crate::traffic::catalog().into_iter().find(|t| t.name == "tcp").unwrap();
        let p = tcp.params.iter().find(|p| p.name == "profile").unwrap();
        for profile in PROFILES {
            assert!(p.help.contains(profile.name), "{} missing from {:?}", profile.name, p.help);
        }
        assert_eq!(p.default, DEFAULT);
    }

    #[test]
    fn the_profiles_carry_the_values_of_their_stacks() {
        // A few values read straight from the sources, so that a table edited by mistake fails.
        let ns3 = TcpConfig::profile("ns3").unwrap();
        assert_eq!((ns3.initial_cwnd(), ns3.min_rto_ns, ns3.delayed_ack_timeout_ns), (10, 1_000_000_000, 200_000_000));
        assert_eq!(
            (ns3.recovery, ns3.reduction_base, ns3.rto_restart),
            (RecoveryKind::Prr, ReductionBase::Ns3, RtoRestart::FirstPartialAck)
        );
        // TcpCubic cuts its window, TcpNewReno and TcpHighSpeed the pipe they are handed.
        let bases = [CcKind::Cubic, CcKind::Newreno, CcKind::Highspeed].map(|cc| ns3.reduction_base.for_cc(cc));
        assert_eq!(bases, [ReductionBase::Cwnd, ReductionBase::Pipe, ReductionBase::Pipe]);
        let ns2 = TcpConfig::profile("ns2-sack1").unwrap();
        assert_eq!(
            (ns2.mss(), ns2.initial_cwnd(), ns2.initial_ssthresh_pkts, ns2.rwnd_bytes / ns2.mss() as u64),
            (1000, 2, Some(20), 20)
        );
        assert_eq!((ns2.rto_formula, ns2.clock_granularity_ns, ns2.delayed_ack), (RtoFormula::Ns2, 10_000_000, false));
        let linux = TcpConfig::profile("linux-2.6").unwrap();
        assert_eq!(
            (linux.recovery, linux.max_rto_ns, linux.quick_acks),
            (RecoveryKind::RateHalving, 120_000_000_000, 2)
        );
        assert_eq!(linux.limited_transmit, LimitedTransmit::Pipe);
        let today = TcpConfig::profile("linux").unwrap();
        assert_eq!(
            (today.cc, today.initial_cwnd(), today.min_rto_ns, today.initial_rto_ns),
            (CcKind::Cubic, 10, 200_000_000, 1_000_000_000)
        );
        assert_eq!((today.mss(), today.rwnd_bytes, today.quick_acks), (1448, 3 << 20, 16));
        assert_eq!(
            (today.byte_counting, today.hystart, today.syn_loss),
            (ByteCounting::Linux, HyStartKind::Linux, SynLoss::Linux)
        );
        assert_eq!(
            (today.recovery, today.prr_bound, today.reduction_base),
            (RecoveryKind::Prr, PrrBound::Rfc9937, ReductionBase::Cwnd)
        );
        let rfc = TcpConfig::profile("rfc").unwrap();
        assert_eq!(rfc.initial_cwnd_pkts, InitialWindow::Rule(crate::tcp::config::IwRule::Rfc3390));
        assert_eq!(
            (rfc.initial_cwnd(), rfc.clock_granularity_ns, rfc.reduction_base),
            (3, 0, ReductionBase::Flightsize)
        );
    }
}
