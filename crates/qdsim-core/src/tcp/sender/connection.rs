//! Opening a connection (the optional SYN / SYN-ACK exchange, RFC 9293 §3.5) and giving it
//! more data (the next chunk of a persistent connection, with RFC 5681 §4.1's restart after
//! idle).

use super::TcpSender;
use crate::outbox::Outbox;
use crate::packet::{Ecn, Packet, PacketKind, FLAG_RETX, FLAG_SYN};
use crate::tcp::config::SynLoss;
use crate::time::{Duration, Time};

impl TcpSender {
    /// Whether the connection is still waiting for its SYN-ACK.
    pub fn in_handshake(&self) -> bool {
        self.syn_pending.is_some()
    }

    /// Sends the SYN (again, marked as a retransmission, after a timeout) and arms the timer.
    pub(super) fn send_syn(&mut self, now: Time, out: &mut Outbox) {
        let retx = self.syn_pending == Some(true);
        self.stats.sent_pkts += 1;
        if retx {
            self.stats.retransmits += 1;
            out.event("retransmit", 0);
        }
        out.send(Packet {
            flow: self.flow,
            class: self.class,
            kind: PacketKind::Data,
            size_bytes: self.wire.syn_bytes,
            src: self.src,
            dst: self.dst,
            number: 0,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            ecn: Ecn::NotEct,
            flags: FLAG_SYN | if retx { FLAG_RETX } else { 0 },
            sack: crate::packet::SackRef::NONE,
            wire_seq: [0; 5],
        });
        self.arm_rto(now, out);
    }

    /// The SYN-ACK: the first RTT sample, then the data. After a retransmitted SYN, what
    /// `syn_loss` says: RFC 6298 §5.7's 3 s RTO and RFC 5681 §3.1's one-segment window
    /// (`rfc`, Linux 2.6); the RTO as backed off and one segment (`ns2`); the RTO as backed off
    /// unless the SYN-ACK's timestamp gives a sample (else as unbacked), and the initial
    /// window (`ns3`); the timestamp's sample or a 3 s RTO, and the initial window unless the
    /// SYN was resent more than once (`linux`).
    pub(super) fn on_syn_ack(&mut self, ack_pkt: &Packet, now: Time, out: &mut Outbox) {
        let syn_retransmitted = self.syn_pending == Some(true);
        self.syn_pending = None;
        self.rto_deadline = None;
        if !syn_retransmitted {
            if !ack_pkt.has(FLAG_RETX) {
                self.rtt.sample(ack_pkt.ts, now, 0, 0);
            }
        } else {
            match self.syn_loss {
                SynLoss::Rfc => {
                    self.rtt.restart_after_lost_syn(Duration::from_secs(3));
                    self.win.set(1);
                }
                SynLoss::Ns2 => self.win.set(1),
                // ns-3 takes the echoed timestamp of the SYN the SYN-ACK answers (Karn's
                // rule stops only a sample without timestamps); without one, the handshake's
                // ACK recomputes the RTO from the estimator as it is, unbacked
                // (`SendEmptyPacket`).
                SynLoss::Ns3 if self.timestamps => self.rtt.sample(ack_pkt.ts, now, 0, 0),
                SynLoss::Ns3 => self.rtt.restart_after_lost_syn(Duration::ZERO),
                SynLoss::Linux => {
                    if self.timestamps {
                        self.rtt.sample(ack_pkt.ts, now, 0, 0);
                    } else {
                        self.rtt.restart_after_lost_syn(Duration::from_secs(3));
                    }
                    // `total_retrans > 1`: the SYN was resent more than once (RFC 6298's
                    // one-segment window is kept for that, given the 1-s initial RTO).
                    if self.stats.retransmits > 1 {
                        self.win.set(1);
                    }
                }
            }
        }
        self.send_available(now, out);
    }

    /// The application writes one more chunk of the transfer's size (the next response of
    /// a persistent connection); sends what the window allows.
    ///
    /// With `idle_restart`, a sender that has sent nothing for longer than one RTO and has
    /// nothing outstanding restarts from `min(IW, cwnd)` (RFC 5681 §4.1; Linux's
    /// `tcp_slow_start_after_idle`), because its window no longer reflects the path. Without
    /// it the window survives the idle period, as in ns-2's one-way agents, whose timer is
    /// cancelled once everything is acknowledged.
    pub fn write_chunk(&mut self, now: Time, out: &mut Outbox) {
        self.data.write_chunk();
        let idle = self.snd_una == self.snd_max && self.last_send.is_some_and(|t| now - t > self.rtt.rto());
        if self.idle_restart && idle && self.win.cwnd > self.initial_cwnd {
            self.win.set(self.initial_cwnd);
            out.event("idle_restart", self.snd_una);
        }
        self.send_available(now, out);
    }

    /// A lost SYN (or SYN-ACK): resend it with the timer backed off.
    pub(super) fn on_syn_timeout(&mut self, now: Time, out: &mut Outbox) {
        self.stats.timeouts += 1;
        out.event("timeout", 0);
        self.syn_pending = Some(true);
        self.rtt.back_off();
        self.rto_deadline = None;
        self.send_syn(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::FlowTimer;
    use crate::packet::{FLAG_RETX, FLAG_SYN};
    use crate::tcp::testing::*;
    use crate::tcp::{InitialWindow, TcpConfig, TcpReceiver};

    /// A persistent connection (IW 2, 8-segment chunks) whose first chunk was ACKed segment by
    /// segment at `T` with no loss: slow start took cwnd from 2 to 2 + 8 = 10.
    fn persistent_after_one_chunk(idle_restart: bool) -> (TcpSender, Outbox) {
        let cfg = TcpConfig { initial_cwnd_pkts: InitialWindow::Pkts(2), idle_restart, ..plain() };
        let mut s = TcpSender::new(0, 0, 0, 1, &cfg, Some(8 * 1460));
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        for n in 1..=8 {
            s.on_ack(&ack(n, Time::ZERO), T, &mut out);
        }
        assert!(s.is_done());
        assert_eq!(s.win.cwnd, 10);
        out.pkts.clear();
        out.events.clear();
        (s, out)
    }

    #[test]
    fn persistent_connection_keeps_its_window_across_idle_without_idle_restart() {
        let (mut s, mut out) = persistent_after_one_chunk(false);
        // One second idle (> RTO); the next chunk goes out in one window of 10 >= 8 segments.
        s.write_chunk(T + Duration::from_secs(1), &mut out);
        assert_eq!(sent(&mut out), (8..16).map(|i| (i, false)).collect::<Vec<_>>());
        assert!(!s.is_done());
        s.on_ack(&ack(16, T), T + Duration::from_secs(2), &mut out);
        assert!(s.is_done());
    }

    #[test]
    fn idle_restart_resets_the_window_after_an_idle_rto() {
        let (mut s, mut out) = persistent_after_one_chunk(true);
        // RFC 5681 §4.1: idle for longer than the RTO (here <= 300 ms): restart window = IW = 2.
        let t = T + Duration::from_secs(1);
        s.write_chunk(t, &mut out);
        assert_eq!(sent(&mut out), vec![(8, false), (9, false)]);
        assert_eq!(s.win.cwnd, 2);
        assert_eq!(out.events, vec![("idle_restart", 8)]);
    }

    #[test]
    fn idle_restart_keeps_the_window_after_an_idle_shorter_than_the_rto() {
        let (mut s, mut out) = persistent_after_one_chunk(true);
        assert!(s.rtt.rto() > Duration::from_ms(150));
        s.write_chunk(T + Duration::from_ms(100), &mut out);
        assert_eq!(s.win.cwnd, 10);
        assert_eq!(sent(&mut out).len(), 8);
    }

    // The SYN / SYN-ACK exchange (`handshake = true`).

    fn handshake_cfg() -> TcpConfig {
        TcpConfig { handshake: true, initial_cwnd_pkts: InitialWindow::Pkts(4), ..plain() }
    }

    /// The receiver's answer to `syn`, as the sender gets it.
    fn syn_ack_for(syn: &Packet) -> Packet {
        let mut r = TcpReceiver::new(0, 0, 1, 0, &handshake_cfg(), None);
        let mut out = Outbox::default();
        let d = r.on_data(syn, Time::ZERO, &mut out);
        assert_eq!((d.bytes, d.completed), (0, false), "a SYN delivers nothing");
        assert_eq!(out.pkts.len(), 1, "a SYN is answered at once");
        let a = out.pkts[0];
        assert!(a.kind == PacketKind::Ack && a.has(FLAG_SYN));
        assert_eq!(a.ts, syn.ts, "the SYN-ACK echoes the SYN's timestamp");
        a
    }

    #[test]
    fn the_first_packet_is_a_syn_and_data_waits_for_the_syn_ack() {
        let mut s = TcpSender::new(0, 0, 0, 1, &handshake_cfg(), None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        assert_eq!(out.pkts.len(), 1);
        let syn = out.pkts[0];
        assert!(syn.has(FLAG_SYN) && !syn.has(FLAG_RETX));
        // No data on the SYN: headers and the MSS and window-scale options (no SACK, no TS).
        assert_eq!(syn.size_bytes, 48);
        assert!(s.in_handshake());
        out.pkts.clear();
        // 20 ms later the SYN-ACK: the first RTT sample, then the initial window of 4.
        let t = Time::ZERO + Duration::from_ms(20);
        s.on_ack(&syn_ack_for(&syn), t, &mut out);
        assert!(!s.in_handshake());
        assert_eq!(s.rtt.srtt, Some(Duration::from_ms(20)));
        let seqs: Vec<u64> = out.pkts.iter().map(|p| p.seq()).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3]);
        assert!(out.pkts.iter().all(|p| !p.has(FLAG_SYN)));
    }

    #[test]
    fn a_lost_syn_is_resent_after_the_initial_rto_and_the_window_starts_at_one() {
        let c = TcpConfig { initial_rto_ns: 3_000_000_000, ..handshake_cfg() };
        let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        let (at, gen) = match out.timers.last() {
            Some(&(at, FlowTimer::Rto(g))) => (at, g),
            other => panic!("no SYN timer: {other:?}"),
        };
        assert_eq!(at, Time::ZERO + Duration::from_secs(3), "Linux 2.6 / RFC 1122 initial RTO");
        out.pkts.clear();
        out.timers.clear();
        s.on_rto_timer(gen, at, &mut out);
        assert_eq!(out.pkts.len(), 1);
        let syn2 = out.pkts[0];
        assert!(syn2.has(FLAG_SYN) && syn2.has(FLAG_RETX));
        assert_eq!(out.timers.last().map(|&(t, _)| t - at), Some(Duration::from_secs(6)), "backed off");
        assert_eq!(s.stats.timeouts, 1);
        out.pkts.clear();
        // The SYN-ACK of the retransmitted SYN: no RTT sample (Karn), one segment
        // (RFC 5681 §3.1), the RTO back at 3 s (RFC 6298 §5.7).
        let t = at + Duration::from_ms(20);
        s.on_ack(&syn_ack_for(&syn2), t, &mut out);
        assert_eq!(s.rtt.srtt, None);
        assert_eq!(s.rtt.backoff, 0);
        assert_eq!(out.pkts.iter().map(|p| p.seq()).collect::<Vec<_>>(), vec![0]);
        assert_eq!(out.timers.last().map(|&(d, _)| d - t), Some(Duration::from_secs(3)));
    }

    #[test]
    fn acks_before_the_syn_ack_are_ignored_and_a_late_syn_ack_is_harmless() {
        let mut s = TcpSender::new(0, 0, 0, 1, &handshake_cfg(), None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        let syn = out.pkts[0];
        out.pkts.clear();
        let plain = Packet { flags: 0, ..syn_ack_for(&syn) };
        s.on_ack(&plain, Time(1_000), &mut out);
        assert!(s.in_handshake() && out.pkts.is_empty());
        let syn_ack = syn_ack_for(&syn);
        s.on_ack(&syn_ack, Time(2_000), &mut out);
        let sent = out.pkts.len();
        s.on_ack(&syn_ack, Time(3_000), &mut out); // a duplicate, answering a resent SYN
        assert_eq!(out.pkts.len(), sent, "a duplicate SYN-ACK sends nothing");
        assert_eq!(s.snd_una, 0);
    }
}
