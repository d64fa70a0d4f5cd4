//! The TCP sender: segments, the retransmission timer, ECN, and the window's growth.
//!
//! Sequence numbers count segments (segment `i` carries bytes `[i·mss, (i+1)·mss)`; only a
//! finite transfer's last segment is shorter). Loss recovery — fast retransmit and the
//! Tahoe, Reno, NewReno and SACK schemes — lives in `recovery.rs`. A retransmission timeout
//! (RFC 6298 §5) sets `ssthresh` by the same rule (unless the timeout ends a fast recovery
//! or repeats a timeout: then it is kept, as in Linux's `tcp_enter_loss` and RFC 5681
//! §3.1), `cwnd = 1`, goes back to the first unacknowledged segment (go-back-N) and doubles
//! the timer (backoff).
//!
//! RTT samples come from the echoed transmit time of the segment that triggered each ACK
//! that advances `snd_una` (like a timestamp echo, sampled on every such ACK as Linux and
//! ns-3 do); an ACK triggered by a retransmitted segment gives no sample unless timestamps
//! are on (Karn's rule). ns-2 without timestamps times one segment per round trip instead
//! (`rtt_active_`, `rtt_seq_`). The estimator is `rtt.rs` (`rto_formula`); which ACKs restart
//! the timer is `rto_restart`.
//!
//! ECN (RFC 3168, with `ecn = true`): new data is sent ECT(0); an ACK with ECE halves the
//! window like a loss (without retransmitting) at most once per window, and the next new
//! segment carries CWR.
//!
//! Opening a connection (the optional handshake) and giving a persistent connection more
//! data ([`TcpSender::write_chunk`], with RFC 5681 §4.1's restart after idle) live in
//! `connection.rs`; the slow-start exits on delay (HyStart) in `hystart.rs`; loss recovery in `recovery.rs`.
//!
//! Not modelled (documented in `docs/tcp.md`): pacing, the receiver window's dynamics (it is
//! a fixed bound).

use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{Ecn, FlowId, NodeId, Packet, PacketKind, FLAG_CWR, FLAG_ECE, FLAG_RETX, FLAG_SYN};
use crate::stats::counters_since;
use crate::time::Time;

use super::cc::{AnyCc, CongestionControl, Window};
use super::config::{
    ByteCounting, CcKind, HyStartKind, RecoveryKind, RtoFormula, RtoRestart, SynLoss, TcpConfig, TimeoutSsthresh,
    WindowArithmetic,
};
use super::rtt::RttEstimator;
use super::stream::Stream;
use super::wire::{WireFormat, WireSizes};

mod connection;
mod hystart;
mod recovery;
use hystart::HyStart;
pub(crate) use recovery::Scheme;
use recovery::{AckInfo, LossRecovery};

/// RFC 3465's L: the most segments one ACK may count toward window growth.
pub const ABC_LIMIT: u32 = 2;

/// Counters of one sender (monotone: a window's counts are differences, [`Counters::since`](crate::stats::Counters::since)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data segments transmitted, retransmissions included.
    pub sent_pkts: u64,
    /// Segments retransmitted.
    pub retransmits: u64,
    /// Entries into fast retransmit / fast recovery.
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Window reductions in response to ECN echoes (at most one per RTT).
    pub ecn_reductions: u64,
    /// ACKs that acknowledged new data outside loss recovery.
    pub new_acks: u64,
    /// Of those, the ones after which the window stood at the receive window (the flow was
    /// limited by `rwnd`, not by congestion; Linux's `tcpi_rwnd_limited` counts it in time).
    pub rwnd_limited_acks: u64,
}

impl SenderStats {
    /// Adds `other`'s counts to these (a flow's connections report to it together).
    pub fn add(&mut self, other: &SenderStats) {
        self.sent_pkts += other.sent_pkts;
        self.retransmits += other.retransmits;
        self.fast_retransmits += other.fast_retransmits;
        self.timeouts += other.timeouts;
        self.ecn_reductions += other.ecn_reductions;
        self.new_acks += other.new_acks;
        self.rwnd_limited_acks += other.rwnd_limited_acks;
    }
}

counters_since!(SenderStats {
    sent_pkts,
    retransmits,
    fast_retransmits,
    timeouts,
    ecn_reductions,
    new_acks,
    rwnd_limited_acks
});

/// A TCP sender.
#[derive(Debug)]
pub struct TcpSender {
    flow: FlowId,
    class: u32,
    src: NodeId,
    dst: NodeId,
    cc: AnyCc,
    /// Loss recovery's state (`recovery.rs`).
    rec: LossRecovery,
    ecn: bool,
    /// RFC 3168: no second ECN reduction until `snd_una` passes this (one past `snd_max` at
    /// the last reduction).
    ecn_recover: u64,
    cwr_pending: bool,
    /// An ECN reduction happened during this call (logged by `on_ack`).
    ecn_log_pending: bool,
    /// HyStart++ state when enabled.
    hystart: Option<HyStart>,
    /// RFC 7323 timestamps: ACKs of retransmissions give RTT samples.
    timestamps: bool,
    /// Most segments one ACK may count for window growth: 2 with RFC 3465 byte counting,
    /// 1 when every ACK counts once.
    growth_per_ack: u32,
    /// The connection is waiting for its SYN-ACK (`Some(retransmitted)`), or open (`None`).
    syn_pending: Option<bool>,
    mss: u32,
    /// Sizes of the segments on the wire.
    wire: WireSizes,
    /// The application data written so far, in segments.
    data: Stream,
    /// RFC 5681 §4.1 restart window after an idle period longer than the RTO.
    idle_restart: bool,
    /// Initial window (segments, within the receiver window): the restart window's bound.
    initial_cwnd: u32,
    /// When a segment was last sent.
    last_send: Option<Time>,
    /// Window state (cwnd, ssthresh, clamp).
    pub win: Window,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send.
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub snd_max: u64,
    /// The RTT estimator and RTO.
    pub rtt: RttEstimator,
    /// Which ACKs restart the retransmission timer.
    rto_restart: RtoRestart,
    /// The fast retransmission restarts the timer (Linux, ns-2).
    fast_retransmit_restarts_rto: bool,
    /// Which timeouts lower ssthresh.
    timeout_ssthresh: TimeoutSsthresh,
    /// The RTO and window after a handshake whose SYN was retransmitted.
    syn_loss: SynLoss,
    /// ns-2 times one segment per round trip (`rto_formula = "ns2"`): the segment and when it
    /// was sent; ACKing it gives the sample (without timestamps) and ends the backoff.
    timed: Option<(u64, Time)>,
    rto_deadline: Option<Time>,
    rto_timer_at: Option<Time>,
    rto_gen: u32,
    /// Counters.
    pub stats: SenderStats,
}

impl TcpSender {
    /// Returns a sender of flow `flow` from `src` to `dst` that will send `size_bytes`
    /// (or forever).
    pub fn new(flow: FlowId, class: u32, src: NodeId, dst: NodeId, cfg: &TcpConfig, size_bytes: Option<u64>) -> Self {
        let mss = cfg.mss();
        let clamp = ((cfg.rwnd_bytes / mss as u64).max(1)).min(u32::MAX as u64 / 2) as u32;
        TcpSender {
            flow,
            class,
            src,
            dst,
            cc: AnyCc::new(cfg.cc),
            rec: LossRecovery::new(cfg),
            ecn: cfg.ecn,
            ecn_recover: 0,
            cwr_pending: false,
            ecn_log_pending: false,
            // Linux's HyStart lives in its CUBIC module: other congestion controls have none.
            hystart: HyStart::new(match cfg.hystart {
                HyStartKind::Linux if cfg.cc != CcKind::Cubic => HyStartKind::Off,
                kind => kind,
            }),
            mss,
            wire: cfg.wire_sizes(),
            // ns-2's agents send every packet full, a transfer's last one too (`wire.rs`).
            data: Stream::new(mss, size_bytes).padded(cfg.wire == WireFormat::Ns2),
            idle_restart: cfg.idle_restart,
            initial_cwnd: cfg.initial_cwnd().min(clamp),
            last_send: None,
            win: Window::new(
                cfg.initial_cwnd().min(clamp),
                cfg.initial_ssthresh_pkts.unwrap_or(u32::MAX / 2),
                clamp,
                cfg.window_arithmetic == WindowArithmetic::Ns2,
            ),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rtt: RttEstimator::for_config(cfg, 0),
            rto_restart: cfg.rto_restart,
            fast_retransmit_restarts_rto: cfg.fast_retransmit_restarts_rto,
            timeout_ssthresh: cfg.timeout_ssthresh,
            syn_loss: cfg.syn_loss,
            timed: None,
            timestamps: cfg.timestamps,
            growth_per_ack: match cfg.byte_counting {
                ByteCounting::Off => 1,
                ByteCounting::Rfc3465 => ABC_LIMIT,
                ByteCounting::Linux => u32::MAX,
                ByteCounting::Ns3 if cfg.cc == CcKind::Cubic => u32::MAX,
                ByteCounting::Ns3 => 1,
            },
            syn_pending: cfg.handshake.then_some(false),
            rto_deadline: None,
            rto_timer_at: None,
            rto_gen: 0,
            stats: SenderStats::default(),
        }
    }

    /// Sets the phase of ns-2's tick clock (`boot_time_`, drawn per connection from the run
    /// seed; reduced modulo the tick). Only `rto_formula = "ns2"` reads it.
    pub fn with_clock_phase(mut self, cfg: &TcpConfig, phase_ns: u64) -> Self {
        self.rtt = RttEstimator::for_config(cfg, phase_ns);
        self
    }

    /// Returns the maximum segment size in bytes.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// Returns where segment `seq` starts in the connection's byte stream on the wire, and
    /// its payload bytes on the wire (a packet capture's sequence numbers and lengths).
    pub fn wire_bytes_of(&self, seq: u64) -> (u64, u32) {
        (self.data.wire_offset(seq), self.data.payload(seq))
    }

    /// Returns whether every segment of a finite transfer has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.data.total_segs().is_some_and(|n| self.snd_una >= n)
    }

    /// Returns whether the sender is recovering from a retransmission timeout.
    pub fn in_timeout(&self) -> bool {
        self.rec.after_timeout
    }

    /// Returns the segments in flight (`snd_max − snd_una`, RFC 5681's FlightSize).
    pub fn flight(&self) -> u32 {
        (self.snd_max - self.snd_una).min(u32::MAX as u64) as u32
    }

    /// Returns the bytes sent but not yet acknowledged.
    pub fn inflight_bytes(&self) -> u64 {
        (self.snd_max - self.snd_una) * self.mss as u64
    }

    /// Starts the connection: sends the SYN (with `handshake`) or the initial window.
    pub fn start(&mut self, now: Time, out: &mut Outbox) {
        if self.syn_pending.is_some() {
            self.send_syn(now, out);
            return;
        }
        self.send_available(now, out);
    }

    fn transmit(&mut self, seq: u64, now: Time, out: &mut Outbox) {
        let retx = seq < self.snd_max;
        if retx {
            self.stats.retransmits += 1;
            out.event("retransmit", seq);
        } else if self.timed.is_none() && self.rtt.formula() == RtoFormula::Ns2 {
            // ns-2 starts timing the next new segment when none is timed.
            self.timed = Some((seq, now));
        }
        if self.rec.in_recovery && self.rec.uses_prr() {
            self.rec.prr.prr_out += 1;
        }
        self.stats.sent_pkts += 1;
        self.last_send = Some(now);
        let mut flags = if retx { FLAG_RETX } else { 0 };
        if self.cwr_pending && !retx {
            // RFC 3168 §6.1.2: CWR on the first new data packet after the reduction.
            flags |= FLAG_CWR;
            self.cwr_pending = false;
        }
        out.send(Packet {
            flow: self.flow,
            class: self.class,
            kind: PacketKind::Data,
            size_bytes: self.data.payload(seq) + self.wire.data_header_bytes,
            src: self.src,
            dst: self.dst,
            number: seq,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
            ecn: if self.ecn && !retx { Ecn::Ect } else { Ecn::NotEct },
            flags,
            sack: crate::packet::SackRef::NONE,
            wire_seq: [0; 5],
        });
        // RFC 6298 §5.1: a transmission starts the timer only when it is not running.
        if self.rto_deadline.is_none() {
            self.arm_rto(now, out);
        }
    }

    /// Karn's rule for ns-2's timed segment: a retransmission (fast or by timeout) stops
    /// timing (`reset_rtx_timer`: `rtt_active_ = 0`).
    fn karn_reset(&mut self) {
        self.timed = None;
    }

    /// Whether the fast retransmission restarts the timer (Linux, ns-2).
    fn restarts_on_fast_retransmit(&self) -> bool {
        self.fast_retransmit_restarts_rto
    }

    /// Sends new (or go-back-N) segments while the window allows.
    fn send_available(&mut self, now: Time, out: &mut Outbox) {
        let wnd = self.win.cwnd.min(self.win.cwnd_clamp) as u64;
        loop {
            if self.snd_nxt >= self.snd_una + wnd {
                break;
            }
            if !self.data.has(self.snd_nxt) {
                break;
            }
            if self.rec.sack() && self.snd_nxt < self.snd_max && self.rec.scoreboard.is_sacked(self.snd_nxt) {
                self.snd_nxt += 1; // go-back-N need not resend what the receiver holds
                continue;
            }
            let seq = self.snd_nxt;
            self.transmit(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    fn arm_rto(&mut self, now: Time, out: &mut Outbox) {
        let deadline = now + self.rtt.rto();
        self.rto_deadline = Some(deadline);
        // One timer event at a time: a later deadline is picked up when the pending event
        // fires, so re-arming on every ACK costs no heap operation.
        if self.rto_timer_at.is_none_or(|t| t > deadline) {
            self.rto_gen = self.rto_gen.wrapping_add(1);
            self.rto_timer_at = Some(deadline);
            out.timer(deadline, FlowTimer::Rto(self.rto_gen));
        }
    }

    /// Handles an ACK.
    pub fn on_ack(&mut self, ack_pkt: &Packet, now: Time, out: &mut Outbox) {
        if self.syn_pending.is_some() {
            if ack_pkt.has(FLAG_SYN) {
                self.on_syn_ack(ack_pkt, now, out);
            }
            return; // nothing else can be acknowledged before the handshake
        }
        if ack_pkt.has(FLAG_SYN) {
            return; // a duplicate SYN-ACK (answering a retransmitted SYN)
        }
        let ack = ack_pkt.ack();
        if ack > self.snd_max || ack < self.snd_una {
            return; // acknowledges data never sent, or an old ACK overtaken: ignore
        }
        let mut info = AckInfo { acked: (ack - self.snd_una) as u32, ..AckInfo::default() };
        if self.rec.sack() {
            let lost_before = self.rec.lost_end();
            let sacked_before = self.rec.scoreboard.sacked_total();
            info.new_sack = self.rec.scoreboard.update(ack, out.sacks.get(ack_pkt.sack).ranges(ack));
            // DeliveredData (RFC 6937): the advance of snd_una plus the change of the SACKed
            // count (negative when the cumulative ACK covers SACKed segments).
            let sacked_after = self.rec.scoreboard.sacked_total();
            info.delivered = (info.acked as u64 + sacked_after).saturating_sub(sacked_before) as u32;
            let lost_after = self.rec.lost_end();
            info.new_loss = self.rec.scoreboard.unsacked(lost_before.max(ack), lost_after) > 0;
        } else {
            info.delivered = info.acked;
        }
        let reduced = self.ecn && ack_pkt.has(FLAG_ECE) && self.on_ecn_echo(ack, now);
        if std::mem::take(&mut self.ecn_log_pending) {
            out.event("ecn_reduction", self.snd_una);
        }
        if ack > self.snd_una {
            self.on_new_ack(ack_pkt, info, !reduced, now, out);
        } else if self.snd_una < self.snd_max {
            self.on_dupack(info, now, out);
        }
    }

    /// Takes the RTT sample an ACK for `ack` gives, if any.
    fn sample_rtt(&mut self, ack_pkt: &Packet, now: Time, out: &mut Outbox) {
        let ack = ack_pkt.ack();
        let mut sample = None;
        if self.rtt.formula() == RtoFormula::Ns2 {
            // ns-2: the timed segment's ACK gives the sample without timestamps, and ends the
            // backoff either way; with timestamps every new ACK gives one.
            if let Some((_, sent)) = self.timed.filter(|&(seq, _)| ack > seq) {
                self.timed = None;
                self.rtt.end_backoff();
                if !self.timestamps {
                    sample = Some(sent);
                }
            }
            if self.timestamps {
                sample = Some(ack_pkt.ts);
            }
        } else if self.timestamps || !ack_pkt.has(FLAG_RETX) {
            // Karn's rule: without timestamps an ACK answering a retransmission is ambiguous.
            sample = Some(ack_pkt.ts);
        }
        let Some(sent) = sample else { return };
        self.rtt.sample(sent, now, ack, self.snd_max);
        if let Some(srtt) = self.rtt.srtt {
            self.cc.on_rtt(srtt);
        }
        let in_ss = self.win.in_slow_start();
        let srtt = self.rtt.srtt;
        if let Some(h) = self.hystart.as_mut().filter(|h| in_ss && (h.during_recovery() || !self.rec.in_recovery)) {
            let sample = hystart::Sample {
                now,
                rtt: now - sent,
                ack,
                snd_max: self.snd_max,
                cwnd: self.win.cwnd,
                mss: self.mss,
                srtt,
            };
            if h.on_sample(sample) {
                self.win.ssthresh = self.win.cwnd;
                out.event("hystart_exit", ack);
            }
        }
    }

    fn on_new_ack(&mut self, ack_pkt: &Packet, info: AckInfo, grow: bool, now: Time, out: &mut Outbox) {
        let ack = ack_pkt.ack();
        self.sample_rtt(ack_pkt, now, out);
        self.snd_una = ack;
        if self.rec.after_timeout && ack >= self.rec.recover {
            self.rec.after_timeout = false;
        }
        self.rec.ns2_timeout = false;
        if self.snd_nxt < self.snd_una {
            // The receiver had buffered what go-back-N was about to resend.
            self.snd_nxt = self.snd_una;
        }
        let mut restart_timer = true;
        if self.rec.in_recovery {
            let partial = self.on_ack_in_recovery(ack, info, now, out);
            // RFC 6582's "Impatient" variant (ns-3): only the first partial ACK restarts it.
            restart_timer = !(partial && self.rto_restart == RtoRestart::FirstPartialAck && self.rec.partial_acks > 1);
            // ns-2's Reno and NewReno open the window on the ACK that ends their recovery
            // (`recv_newack_helper`); Sack1 does not.
            if !self.rec.in_recovery && grow && self.win.ns2_cwnd.is_some() && self.rec.scheme != Scheme::Sack {
                self.cc.on_ack(&mut self.win, 1, now);
            }
        } else {
            self.rec.dupacks = 0;
            if self.rec.kind == RecoveryKind::Ns2Sack1 {
                self.rec.scoreboard.clear(); // ns-2 clears it on every new ACK
            }
            self.stats.new_acks += 1;
            if grow {
                // `byte_counting`: one segment per ACK, at most L = 2 (RFC 3465 §2.2: a
                // cumulative ACK that jumps over data the receiver already held after go-back-N
                // must not turn into a window's worth of growth), or all of them (Linux, whose
                // slow start stops at ssthresh and counts the rest in congestion avoidance).
                self.cc.on_ack(&mut self.win, info.acked.min(self.growth_per_ack), now);
            }
            if self.win.cwnd >= self.win.cwnd_clamp {
                self.stats.rwnd_limited_acks += 1;
            }
        }
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.arm_rto(now, out);
        }
        self.send_available(now, out);
    }

    /// Reacts to an ECN echo on an ACK for `ack`: at most once per window of data, halve
    /// like a loss but retransmit nothing (RFC 3168 §6.1.2); returns whether it reduced.
    /// During loss recovery the loss reduction stands.
    fn on_ecn_echo(&mut self, ack: u64, now: Time) -> bool {
        if self.rec.in_recovery || ack < self.ecn_recover {
            return false;
        }
        let windowd = self.win.ns2_windowd();
        self.win.ssthresh = self.loss_ssthresh(false, now);
        match windowd {
            // ns-2's `ecn()`: slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF).
            Some(wd) => self.win.set_ns2(self.cc.ns2_window_after_loss(wd)),
            None => self.win.set(self.win.ssthresh),
        }
        self.ecn_recover = self.snd_max + 1;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        self.ecn_log_pending = true;
        true
    }

    /// Handles the retransmission timer event of generation `gen`.
    pub fn on_rto_timer(&mut self, gen: u32, now: Time, out: &mut Outbox) {
        if gen != self.rto_gen {
            return; // superseded by an earlier deadline
        }
        self.rto_timer_at = None;
        match self.rto_deadline {
            None => {}
            Some(d) if d > now => {
                self.rto_timer_at = Some(d);
                self.rto_gen = self.rto_gen.wrapping_add(1);
                out.timer(d, FlowTimer::Rto(self.rto_gen));
            }
            Some(_) => self.on_timeout(now, out),
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Outbox) {
        if self.syn_pending.is_some() {
            self.on_syn_timeout(now, out);
            return;
        }
        self.stats.timeouts += 1;
        out.event("timeout", self.snd_una);
        // `timeout_ssthresh`: RFC 5681 §3.1 and Linux (`tcp_enter_loss`) reduce ssthresh only
        // for a new congestion episode — a timeout during fast recovery belongs to the episode
        // that already set it, and a repeated timeout of the same data holds it (recomputing
        // it from a flight inflated by recovery would *raise* it); ns-3 also during recovery;
        // ns-2 halves on every timeout (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`).
        let reduce = match self.timeout_ssthresh {
            TimeoutSsthresh::NewEpisode => !self.rec.in_recovery && self.rtt.backoff == 0,
            TimeoutSsthresh::NotRepeated => self.rtt.backoff == 0,
            TimeoutSsthresh::Every => true,
        };
        self.cc.on_timeout_start();
        if let Some(h) = self.hystart.as_mut() {
            h.on_timeout();
        }
        if reduce {
            self.win.ssthresh = self.loss_ssthresh(false, now);
        }
        self.karn_reset();
        self.win.set(1);
        self.cc.on_timeout(&self.win, now);
        self.rec.on_timeout(self.snd_max);
        self.snd_nxt = self.snd_una;
        self.rtt.back_off();
        self.rto_deadline = None;
        self.send_available(now, out);
        if self.rto_deadline.is_none() && self.snd_una < self.snd_max {
            self.arm_rto(now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::FLAG_RETX;
    use crate::tcp::testing::*;
    use crate::tcp::CcKind;
    use crate::time::Duration;

    #[test]
    fn timeout_collapses_the_window_goes_back_n_and_doubles_the_timer() {
        let (mut s, mut out) = sender_with_window(CcKind::Newreno);
        let (at, gen) = match out.timers.last() {
            Some(&(at, FlowTimer::Rto(g))) => (at, g),
            other => panic!("RTO not armed: {other:?}"),
        };
        assert_eq!(at, Time::ZERO + Duration::from_secs(1), "initial RTO is 1 s");
        out.timers.clear();
        s.on_rto_timer(gen, at, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.win.cwnd, 1);
        assert_eq!(s.win.ssthresh, 5);
        assert_eq!(sent(&mut out), vec![(0, true)]);
        let (at2, _) = out.timers.last().copied().expect("re-armed");
        assert_eq!(at2 - at, Duration::from_secs(2), "backed off to 2 s");
        // After the timeout, duplicate ACKs for data sent before it do not trigger a fast
        // retransmit (RFC 6582 recover check).
        for _ in 0..3 {
            s.on_ack(&ack(0, at), at, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 0);
    }

    #[test]
    fn an_ack_for_a_retransmission_gives_no_rtt_sample() {
        let (mut s, mut out) = sender_with_window(CcKind::Newreno);
        let mut a = ack(1, Time::ZERO);
        a.flags = FLAG_RETX;
        s.on_ack(&a, T, &mut out);
        assert_eq!(s.rtt.srtt, None, "Karn's rule");
        s.on_ack(&ack(2, Time::ZERO), T, &mut out);
        assert_eq!(s.rtt.srtt, Some(Duration::from_ms(100)));
    }

    #[test]
    fn finite_transfer_sends_exactly_its_segments() {
        // 3000 bytes = 2 full segments of 1460 + one of 80.
        let mut s = TcpSender::new(0, 0, 0, 1, &cfg(CcKind::Newreno), Some(3000));
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        let sizes: Vec<u32> = out.pkts.iter().map(|p| p.size_bytes).collect();
        assert_eq!(sizes, vec![1500, 1500, 120]);
        out.pkts.clear();
        s.on_ack(&ack(3, Time::ZERO), T, &mut out);
        assert!(s.is_done());
        assert!(out.pkts.is_empty());
    }

    #[test]
    fn data_segments_are_packet_size_on_the_wire_whatever_the_options() {
        use crate::tcp::WireFormat::{Ietf, Ns2};
        // 3000 bytes with 1500-byte packets: the payload is what the headers leave; the
        // last segment carries the rest, except ns-2's, which sends every packet full.
        for (timestamps, wire, mss) in [(false, Ietf, 1460), (true, Ietf, 1448), (true, Ns2, 1450)] {
            let c = TcpConfig { timestamps, wire, ..cfg(CcKind::Newreno) };
            let mut s = TcpSender::new(0, 0, 0, 1, &c, Some(3000));
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            let sizes: Vec<u32> = out.pkts.iter().map(|p| p.size_bytes).collect();
            let last = if wire == Ns2 { 1500 } else { 3000 - 2 * mss + (1500 - mss) };
            assert_eq!(sizes, vec![1500, 1500, last], "timestamps {timestamps}, {wire:?}");
        }
    }

    #[test]
    fn ecn_echo_halves_once_per_window_and_sets_cwr() {
        let c = TcpConfig { ecn: true, ..cfg(CcKind::Newreno) };
        let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        assert!(out.pkts.iter().all(|p| p.ecn == crate::packet::Ecn::Ect), "data is ECT(0)");
        out.pkts.clear();
        // ECE on the ACK of segment 0: FlightSize 10 -> ssthresh = cwnd = 5, nothing resent,
        // and the window (5 from snd_una 1) has no room for new data yet.
        s.on_ack(&ece(1), T, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!((s.win.cwnd, s.win.ssthresh), (5, 5));
        assert_eq!(sent(&mut out), vec![]);
        // ECE on ACKs for the rest of the window outstanding at the reduction: no new reduction.
        for n in 2..=10 {
            s.on_ack(&ece(n), T, &mut out);
        }
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.stats.retransmits, 0, "ECN retransmits nothing");
        // The first new segment after the reduction (10) carried CWR, and only it.
        let cwr: Vec<u64> = out.pkts.iter().filter(|p| p.has(crate::packet::FLAG_CWR)).map(|p| p.seq()).collect();
        assert_eq!(cwr, vec![10]);
        // ECE on the ACK of segment 10, sent after the reduction: a new window, a new reduction.
        s.on_ack(&ece(11), T, &mut out);
        assert_eq!(s.stats.ecn_reductions, 2);
    }

    #[test]
    fn with_timestamps_the_ack_of_a_retransmission_samples_the_rtt_and_ends_the_backoff() {
        for timestamps in [false, true] {
            let cfg = TcpConfig { timestamps, ..cfg(CcKind::Newreno) };
            let mut s = TcpSender::new(0, 0, 0, 1, &cfg, None);
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            let at = Time::ZERO + Duration::from_secs(1);
            let gen = match out.timers.last() {
                Some(&(_, FlowTimer::Rto(g))) => g,
                other => panic!("RTO not armed: {other:?}"),
            };
            s.on_rto_timer(gen, at, &mut out); // retransmits 0 at 1 s, backoff 1
            assert_eq!(s.rtt.backoff, 1);
            // The ACK of the retransmission, 30 ms later, echoes its transmit time.
            let mut a = ack(1, at);
            a.flags = FLAG_RETX;
            s.on_ack(&a, at + Duration::from_ms(30), &mut out);
            if timestamps {
                assert_eq!(s.rtt.srtt, Some(Duration::from_ms(30)), "RFC 7323: the echo identifies the transmission");
                assert_eq!(s.rtt.backoff, 0);
            } else {
                assert_eq!(s.rtt.srtt, None, "Karn's rule");
                assert_eq!(s.rtt.backoff, 1, "the doubled timer stays until a new segment is ACKed");
            }
        }
    }

    #[test]
    fn ns2_times_one_segment_per_round_trip_without_timestamps() {
        // ns-2 (tcpTick_ 10 ms): segment 0 is timed when the window goes out at 0. ACK 1 at
        // 100 ms gives a 10-tick sample and starts timing 10, the next new segment; ACKs 2..10
        // at 150 ms give none; ACK 11 at 300 ms samples 10, sent at 100 ms: 20 ticks.
        let c = TcpConfig { rto_formula: RtoFormula::Ns2, clock_granularity_ns: 10_000_000, ..cfg(CcKind::Newreno) };
        let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        s.on_ack(&ack(1, Time::ZERO), Time::ZERO + Duration::from_ms(100), &mut out);
        assert_eq!(s.rtt.srtt, Some(Duration::from_ms(100)));
        assert_eq!(s.timed.map(|t| t.0), Some(10));
        for n in 2..=10 {
            s.on_ack(&ack(n, Time::ZERO), Time::ZERO + Duration::from_ms(150), &mut out);
        }
        assert_eq!(s.rtt.srtt, Some(Duration::from_ms(100)), "only the timed segment is a sample");
        s.on_ack(&ack(11, Time::ZERO), Time::ZERO + Duration::from_ms(300), &mut out);
        // t_srtt = 80 + (20 - 10) = 90 (x8): 11 ticks.
        assert_eq!(s.rtt.srtt, Some(Duration::from_ms(110)));
    }

    #[test]
    fn byte_counting_sets_how_many_segments_an_ack_counts_for_growth() {
        for (byte_counting, grown) in [(ByteCounting::Rfc3465, 12), (ByteCounting::Off, 11), (ByteCounting::Linux, 14)]
        {
            let cfg = TcpConfig { byte_counting, ..cfg(CcKind::Newreno) };
            let mut s = TcpSender::new(0, 0, 0, 1, &cfg, None);
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            // In slow start from IW 10, a cumulative ACK covering segments 0-3: RFC 3465
            // (L = 2) counts two segments, Linux all four, Linux 2.6, ns-2 and ns-3 the ACK once.
            s.on_ack(&ack(4, Time::ZERO), T, &mut out);
            assert_eq!(s.win.cwnd, grown, "byte_counting = {byte_counting:?}");
        }
        // ns-3's rule: TcpCubic counts the four segments, TcpNewReno the ACK once.
        for (cc, grown) in [(CcKind::Cubic, 14), (CcKind::Newreno, 11)] {
            let cfg = TcpConfig { byte_counting: ByteCounting::Ns3, ..cfg(cc) };
            let mut s = TcpSender::new(0, 0, 0, 1, &cfg, None);
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            s.on_ack(&ack(4, Time::ZERO), T, &mut out);
            assert_eq!(s.win.cwnd, grown, "cc = {cc:?}");
        }
    }
}
