//! Opening a connection (the optional SYN / SYN-ACK exchange, RFC 9293 §3.5) and giving it
//! more data (the next chunk of a persistent connection, with RFC 5681 §4.1's restart after
//! idle).

use super::TcpSender;
use crate::outbox::Outbox;
use crate::packet::{Ecn, Packet, PacketKind, FLAG_RETX, FLAG_SYN, HEADER_BYTES};
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
            size_bytes: HEADER_BYTES,
            src: self.src,
            dst: self.dst,
            seq: 0,
            ack: 0,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            ecn: Ecn::NotEct,
            flags: FLAG_SYN | if retx { FLAG_RETX } else { 0 },
            sack: crate::packet::SackBlocks::NONE,
        });
        self.arm_rto(now, out);
    }

    /// The SYN-ACK: the first RTT sample unless the SYN was retransmitted (then RFC 6298
    /// §5.7's 3 s RTO and RFC 5681 §3.1's one-segment initial window), then the data.
    pub(super) fn on_syn_ack(&mut self, ack_pkt: &Packet, now: Time, out: &mut Outbox) {
        let syn_retransmitted = self.syn_pending == Some(true);
        self.syn_pending = None;
        self.rto_deadline = None;
        if syn_retransmitted {
            self.rtt.restart_after_lost_syn(Duration::from_secs(3));
            self.win.cwnd = 1;
        } else if !ack_pkt.has(FLAG_RETX) {
            self.rtt.sample(now - ack_pkt.ts);
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
            self.win.cwnd = self.initial_cwnd;
            self.win.cwnd_cnt = 0;
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
