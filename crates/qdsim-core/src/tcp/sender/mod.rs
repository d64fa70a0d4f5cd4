//! The TCP sender: segments, the retransmission timer and loss recovery.
//!
//! Sequence numbers count segments (segment `i` carries bytes `[i·mss, (i+1)·mss)`; only a
//! finite transfer's last segment is shorter). Recovery follows the RFCs named by the
//! congestion-control kind:
//!
//! - fast retransmit on the `dupack_threshold`-th duplicate ACK (RFC 5681 §3.2), with
//!   `ssthresh` from the congestion control and window inflation by one segment per further
//!   duplicate ACK;
//! - **Reno** leaves fast recovery on the first new ACK (`cwnd = ssthresh`);
//! - **Tahoe** retransmits and restarts slow start from one segment (no fast recovery);
//! - **NewReno** (RFC 6582 §3.2, also used by Cubic and HighSpeed TCP) leaves only when the ACK covers `recover` (all data
//!   outstanding at the loss); a partial ACK retransmits the next hole, deflates the window
//!   by the amount acknowledged minus one segment, and — on the first partial ACK only, the
//!   "Impatient" variant the RFC recommends — restarts the timer. A fast retransmit is
//!   skipped if the duplicate ACKs do not cover `recover` (after a timeout, §3.2 step 2);
//! - retransmission timeout (RFC 6298 §5): `ssthresh` from the congestion control (unless
//!   the timeout ends a fast recovery or repeats a timeout: then it is kept, as in Linux's
//!   `tcp_enter_loss` and RFC 5681 §3.1), `cwnd = 1`, go-back-N from the first
//!   unacknowledged segment, the timer doubled (backoff).
//!
//! RTT samples come from the echoed transmit time of the segment that triggered each ACK
//! that advances `snd_una` (like a timestamp echo, sampled on every such ACK as Linux does);
//! an ACK triggered by a retransmitted segment gives no sample (Karn's rule).
//!
//! ECN (RFC 3168, with `ecn = true`): new data is sent ECT(0); an ACK with ECE halves the
//! window like a loss (without retransmitting) at most once per window, and the next new
//! segment carries CWR.
//!
//! Opening a connection (the optional handshake) and giving a persistent connection more
//! data ([`TcpSender::write_chunk`], with RFC 5681 §4.1's restart after idle) live in
//! `connection.rs`; HyStart++'s round state in `hystart.rs`.
//!
//! Not modelled (documented in `docs/tcp.md`): pacing, the receiver window's dynamics (it is
//! a fixed bound).

use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{Ecn, FlowId, NodeId, Packet, PacketKind, FLAG_CWR, FLAG_ECE, FLAG_RETX, FLAG_SYN, HEADER_BYTES};
use crate::time::{Duration, Time};

use super::cc::{AnyCc, CongestionControl, Window};
use super::config::{CcKind, TcpConfig};
use super::rtt::RttEstimator;
use super::sack::Scoreboard;
use super::stream::Stream;

mod connection;
mod hystart;

use hystart::HyStart;

/// RFC 3465's L: the most segments one ACK may count toward window growth.
pub const ABC_LIMIT: u32 = 2;

/// Counters of one sender.
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
}

/// How the sender recovers from a loss detected by duplicate ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// RFC 5681 fast recovery, ended by any new ACK.
    Reno,
    /// RFC 6582 fast recovery, ended by an ACK covering `recover`.
    NewReno,
}

impl Recovery {
    /// Returns the recovery used with congestion control `kind`: Cubic and HighSpeed TCP
    /// recover as NewReno (Linux recovers with SACK when it is negotiated).
    pub fn of(kind: CcKind) -> Recovery {
        match kind {
            CcKind::Tahoe => Recovery::Tahoe,
            CcKind::Reno => Recovery::Reno,
            CcKind::Newreno | CcKind::Cubic | CcKind::Highspeed => Recovery::NewReno,
        }
    }
}

/// A TCP sender.
#[derive(Debug)]
pub struct TcpSender {
    flow: FlowId,
    class: u32,
    src: NodeId,
    dst: NodeId,
    recovery: Recovery,
    cc: AnyCc,
    ecn: bool,
    /// RFC 3168: no second ECN reduction until `snd_una` passes this (one past `snd_max` at
    /// the last reduction).
    ecn_recover: u64,
    cwr_pending: bool,
    /// SACK-based loss recovery (RFC 6675) instead of NewReno's.
    sack: bool,
    /// What the receiver has SACKed.
    pub scoreboard: Scoreboard,
    /// RFC 6675 HighRxt, exclusive: one past the highest segment retransmitted in this recovery.
    high_rxt: u64,
    /// RFC 6675 rule 4: the rescue retransmission was sent in this recovery.
    rescue_sent: bool,
    /// Between a timeout and the ACK of everything outstanding at it.
    rto_recovering: bool,
    /// An ECN reduction happened during this call (logged by `on_ack`).
    ecn_log_pending: bool,
    /// HyStart++ state when enabled.
    hystart: Option<HyStart>,
    /// RFC 3042 limited transmit.
    limited_transmit: bool,
    /// RFC 7323 timestamps: ACKs of retransmissions give RTT samples.
    timestamps: bool,
    /// Most segments one ACK may count for window growth: 2 with RFC 3465 byte counting,
    /// 1 when every ACK counts once.
    growth_per_ack: u32,
    /// The connection is waiting for its SYN-ACK (`Some(retransmitted)`), or open (`None`).
    syn_pending: Option<bool>,
    mss: u32,
    /// The application data written so far, in segments.
    data: Stream,
    /// RFC 5681 §4.1 restart window after an idle period longer than the RTO.
    idle_restart: bool,
    /// Initial window (segments, within the receiver window): the restart window's bound.
    initial_cwnd: u32,
    /// When a segment was last sent.
    last_send: Option<Time>,
    dupack_threshold: u32,
    /// Window state (cwnd, ssthresh, clamp).
    pub win: Window,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to send.
    pub snd_nxt: u64,
    /// One past the highest segment ever sent.
    pub snd_max: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`, exclusive: one past the highest segment sent when recovery began.
    recover: u64,
    partial_acks: u32,
    /// The RTT estimator and RTO.
    pub rtt: RttEstimator,
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
            recovery: Recovery::of(cfg.cc),
            cc: AnyCc::new(cfg.cc),
            ecn: cfg.ecn,
            ecn_recover: 0,
            cwr_pending: false,
            sack: cfg.sack,
            scoreboard: Scoreboard::default(),
            high_rxt: 0,
            rescue_sent: false,
            rto_recovering: false,
            ecn_log_pending: false,
            hystart: cfg.hystart.then_some(HyStart {
                round_end: 0,
                last_round_min: None,
                current_round_min: None,
                samples: 0,
            }),
            mss,
            data: Stream::new(mss, size_bytes),
            idle_restart: cfg.idle_restart,
            initial_cwnd: cfg.initial_cwnd_pkts.min(clamp),
            last_send: None,
            dupack_threshold: cfg.dupack_threshold,
            win: Window {
                cwnd: cfg.initial_cwnd_pkts.min(clamp),
                cwnd_cnt: 0,
                ssthresh: cfg.initial_ssthresh_pkts.unwrap_or(u32::MAX / 2),
                cwnd_clamp: clamp,
            },
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            rtt: RttEstimator::new(
                Duration::from_ns(cfg.initial_rto_ns),
                Duration::from_ns(cfg.min_rto_ns),
                Duration::from_ns(cfg.max_rto_ns),
            )
            .with_linux_form(cfg.linux_rto),
            limited_transmit: cfg.limited_transmit,
            timestamps: cfg.timestamps,
            growth_per_ack: if cfg.byte_counting { ABC_LIMIT } else { 1 },
            syn_pending: cfg.handshake.then_some(false),
            rto_deadline: None,
            rto_timer_at: None,
            rto_gen: 0,
            stats: SenderStats::default(),
        }
    }

    /// Returns the maximum segment size in bytes.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// Returns whether every segment of a finite transfer has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.data.total_segs().is_some_and(|n| self.snd_una >= n)
    }

    /// Returns whether the sender is recovering from a retransmission timeout.
    pub fn in_timeout(&self) -> bool {
        self.rto_recovering
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
            size_bytes: self.data.payload(seq) + HEADER_BYTES,
            src: self.src,
            dst: self.dst,
            seq,
            ack: 0,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
            ecn: if self.ecn && !retx { Ecn::Ect } else { Ecn::NotEct },
            flags,
            sack: crate::packet::SackBlocks::NONE,
        });
        if self.rto_deadline.is_none() {
            self.arm_rto(now, out);
        }
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
            if self.sack && self.snd_nxt < self.snd_max && self.scoreboard.is_sacked(self.snd_nxt) {
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
        let ack = ack_pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (cannot happen in the model)
        }
        if self.sack {
            self.scoreboard.update(ack.max(self.snd_una), ack_pkt.sack.ranges(ack));
        }
        let reduced = self.ecn && ack_pkt.has(FLAG_ECE) && self.on_ecn_echo(ack, now);
        if std::mem::take(&mut self.ecn_log_pending) {
            out.event("ecn_reduction", self.snd_una);
        }
        if ack > self.snd_una {
            self.on_new_ack(ack_pkt, !reduced, now, out);
        } else if ack == self.snd_una && self.snd_una < self.snd_max {
            self.on_dupack(now, out);
        }
    }

    fn on_new_ack(&mut self, ack_pkt: &Packet, grow: bool, now: Time, out: &mut Outbox) {
        let ack = ack_pkt.ack;
        let acked = (ack - self.snd_una) as u32;
        // Karn's rule: without timestamps an ACK answering a retransmission is ambiguous.
        if self.timestamps || !ack_pkt.has(FLAG_RETX) {
            let rtt = now - ack_pkt.ts;
            self.rtt.sample(rtt);
            if let Some(srtt) = self.rtt.srtt {
                self.cc.on_rtt(srtt);
            }
            let in_ss = self.win.in_slow_start() && !self.in_recovery;
            if let Some(h) = self.hystart.as_mut().filter(|_| in_ss) {
                if h.on_sample(rtt, ack, self.snd_max) {
                    self.win.ssthresh = self.win.cwnd;
                    out.event("hystart_exit", ack);
                }
            }
        }
        self.snd_una = ack;
        if self.rto_recovering && ack >= self.recover {
            self.rto_recovering = false;
        }
        if self.snd_nxt < self.snd_una {
            // The receiver had buffered what go-back-N was about to resend.
            self.snd_nxt = self.snd_una;
        }
        let mut restart_timer = true;
        if self.in_recovery && self.sack {
            if ack >= self.recover {
                self.in_recovery = false;
                self.win.cwnd = self.win.ssthresh;
                self.win.cwnd_cnt = 0;
                self.dupacks = 0;
            } else {
                self.sack_send(now, out);
            }
        } else if self.in_recovery {
            if self.recovery == Recovery::Reno || ack >= self.recover {
                // Full ACK (or any new ACK for Reno): deflate the window and leave recovery.
                // RFC 6582 §3.2 step 3 option 1: min(ssthresh, max(FlightSize, SMSS) + SMSS).
                self.win.cwnd = if self.recovery == Recovery::Reno {
                    self.win.ssthresh
                } else {
                    self.win.ssthresh.min(self.flight().max(1) + 1)
                };
                self.win.cwnd_cnt = 0;
                self.in_recovery = false;
                self.dupacks = 0;
            } else {
                // Partial ACK: retransmit the next hole; deflate by what was acknowledged,
                // then add back one segment (RFC 6582 §3.2 step 4).
                self.transmit(self.snd_una, now, out);
                self.win.cwnd = (self.win.cwnd.saturating_sub(acked) + 1).max(1);
                self.partial_acks += 1;
                restart_timer = self.partial_acks == 1;
            }
        } else {
            self.dupacks = 0;
            if grow {
                // Window growth counts at most L = 2 segments per ACK (RFC 3465 §2.2): a
                // cumulative ACK that jumps over data the receiver already held (after
                // go-back-N) must not turn into a window's worth of growth and a line-rate burst.
                self.cc.on_ack(&mut self.win, acked.min(self.growth_per_ack), now);
            }
        }
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.arm_rto(now, out);
        }
        self.send_available(now, out);
    }

    fn on_dupack(&mut self, now: Time, out: &mut Outbox) {
        self.dupacks += 1;
        if self.in_recovery && self.sack {
            self.sack_send(now, out);
        } else if self.in_recovery {
            // Window inflation: each duplicate ACK means a segment has left the network.
            self.win.cwnd += 1;
            self.send_available(now, out);
        } else if self.limited_transmit && self.dupacks < self.dupack_threshold && self.dupacks <= 2 {
            // RFC 3042: one new segment per duplicate ACK, beyond cwnd by at most two
            // segments, if the receiver window allows and there is new data.
            let beyond = (self.win.cwnd + self.dupacks) as u64;
            let allowed = self.snd_nxt == self.snd_max
                && self.snd_nxt < self.snd_una + beyond
                && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
                && self.data.has(self.snd_nxt);
            if allowed {
                let seq = self.snd_nxt;
                self.transmit(seq, now, out);
                self.snd_nxt += 1;
                self.snd_max = self.snd_nxt;
            }
        } else if self.dupacks == self.dupack_threshold
            || (self.sack && self.scoreboard.sacked_above(self.snd_una) >= self.dupack_threshold as u64)
        {
            // NewReno (and Tahoe) skip a fast retransmit whose duplicate ACKs do not cover
            // `recover`: they are for data sent before a timeout (RFC 6582 §3.2 step 2).
            if self.recovery != Recovery::Reno && self.snd_una < self.recover {
                return;
            }
            self.stats.fast_retransmits += 1;
            out.event("fast_retransmit", self.snd_una);
            let flight = self.flight();
            self.win.ssthresh = self.cc.ssthresh_after_loss(&self.win, flight, now);
            if self.sack {
                // RFC 6675 §5: cwnd = ssthresh, retransmit the first hole, then let `pipe`
                // decide what else goes out — every lost segment can be resent in this RTT.
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.win.cwnd = self.win.ssthresh;
                self.win.cwnd_cnt = 0;
                self.rescue_sent = false;
                self.transmit(self.snd_una, now, out);
                self.high_rxt = self.snd_una + 1;
                self.arm_rto(now, out);
                self.sack_send(now, out);
                return;
            }
            if self.recovery == Recovery::Tahoe {
                // Tahoe: retransmit, then slow start from one segment, go-back-N.
                self.win.cwnd = 1;
                self.win.cwnd_cnt = 0;
                self.recover = self.snd_max;
                self.snd_nxt = self.snd_una;
                self.dupacks = 0;
                self.send_available(now, out);
                self.arm_rto(now, out);
                return;
            }
            self.recover = self.snd_max;
            self.in_recovery = true;
            self.partial_acks = 0;
            self.transmit(self.snd_una, now, out);
            self.win.cwnd = self.win.ssthresh + self.dupack_threshold;
            self.win.cwnd_cnt = 0;
            self.arm_rto(now, out);
            self.send_available(now, out);
        }
    }

    /// Sends during SACK recovery while `cwnd > pipe` (RFC 6675 §5 step 4), choosing each
    /// segment by `NextSeg`: a lost hole (rule 1), else new data (rule 2), else any unSACKed
    /// hole below the highest SACK (rule 3), else once the rescue retransmission (rule 4).
    fn sack_send(&mut self, now: Time, out: &mut Outbox) {
        let thr = self.dupack_threshold as u64;
        loop {
            let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, self.high_rxt, thr);
            if self.win.cwnd as u64 <= pipe {
                break;
            }
            let from = self.high_rxt.max(self.snd_una);
            let seq = if let Some(hole) = self.scoreboard.next_hole(from, thr, true) {
                hole
            } else if self.snd_nxt == self.snd_max
                && self.data.has(self.snd_nxt)
                && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
            {
                let seq = self.snd_nxt;
                self.transmit(seq, now, out);
                self.snd_nxt += 1;
                self.snd_max = self.snd_nxt;
                continue;
            } else if let Some(hole) = self.scoreboard.next_hole(from, thr, false) {
                hole
            } else {
                // Rule 4, the rescue retransmission: once per recovery, resend the highest
                // unSACKed segment, so a loss at the tail of a window (which no later segment
                // can reveal) need not wait for the timer. HighRxt is not updated.
                if !self.rescue_sent {
                    if let Some(last) = (self.snd_una..self.snd_max).rev().find(|&s| !self.scoreboard.is_sacked(s)) {
                        self.rescue_sent = true;
                        self.transmit(last, now, out);
                    }
                }
                break;
            };
            self.transmit(seq, now, out);
            self.high_rxt = seq + 1;
        }
    }

    /// Reacts to an ECN echo on an ACK for `ack`: at most once per window of data, halve
    /// like a loss but retransmit nothing (RFC 3168 §6.1.2); returns whether it reduced.
    /// During loss recovery the loss reduction stands.
    fn on_ecn_echo(&mut self, ack: u64, now: Time) -> bool {
        if self.in_recovery || ack < self.ecn_recover {
            return false;
        }
        let flight = self.flight();
        self.win.ssthresh = self.cc.ssthresh_after_loss(&self.win, flight, now);
        self.win.cwnd = self.win.ssthresh;
        self.win.cwnd_cnt = 0;
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
        self.rto_recovering = true;
        // Reduce ssthresh only for a new congestion episode. A timeout during fast recovery
        // belongs to the loss episode that already set ssthresh (Linux `tcp_enter_loss`), and
        // a repeated timeout of the same data holds it constant (RFC 5681 §3.1); recomputing
        // it from a flight inflated by recovery would *raise* it.
        if !self.in_recovery && self.rtt.backoff == 0 {
            let flight = self.flight();
            self.win.ssthresh = self.cc.ssthresh_after_loss(&self.win, flight, now);
        }
        self.win.cwnd = 1;
        self.win.cwnd_cnt = 0;
        self.cc.on_timeout(&self.win, now);
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.snd_nxt = self.snd_una;
        self.rtt.back_off();
        self.rto_deadline = None;
        self.send_available(now, out);
        if self.rto_deadline.is_none() && self.snd_una < self.snd_max {
            self.arm_rto(now, out);
        }
    }
}
