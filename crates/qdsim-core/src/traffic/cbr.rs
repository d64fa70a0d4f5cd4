//! UDP constant-bit-rate source: one `packet_bytes` packet every
//! `packet_bytes × 8 / rate` seconds (exact integer ns via the link-rate arithmetic), from its
//! start until its stop time. Unresponsive: it never slows down.

use crate::event::FlowTimer;
use crate::packet::{FlowId, NodeId, Packet};
use crate::time::{Duration, Rate, Time};

use crate::outbox::Outbox;

/// A CBR source.
#[derive(Debug)]
pub struct CbrSource {
    flow: FlowId,
    class: u32,
    src: NodeId,
    dst: NodeId,
    packet_bytes: u32,
    interval: Duration,
    stop: Time,
    next_seq: u64,
    /// Datagrams sent.
    pub sent_pkts: u64,
}

impl CbrSource {
    /// Returns a source of flow `flow` sending `packet_bytes` packets at `rate_bps` until `stop`.
    pub fn new(
        flow: FlowId,
        class: u32,
        src: NodeId,
        dst: NodeId,
        rate_bps: u64,
        packet_bytes: u32,
        stop: Time,
    ) -> Self {
        let interval = Rate::from_bps(rate_bps).tx_time(packet_bytes);
        CbrSource { flow, class, src, dst, packet_bytes, interval, stop, next_seq: 0, sent_pkts: 0 }
    }

    /// Sends one datagram and schedules the next (called at start and on each timer).
    pub fn on_send_timer(&mut self, now: Time, out: &mut Outbox) {
        if now >= self.stop {
            return;
        }
        out.send(Packet::datagram(self.flow, self.class, self.src, self.dst, self.next_seq, self.packet_bytes, now));
        self.next_seq += 1;
        self.sent_pkts += 1;
        out.timer(now + self.interval, FlowTimer::CbrSend);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_at_the_configured_rate_until_stop() {
        // 1000 B at 8 Mb/s = one packet per ms; stop at 10 ms -> 10 packets.
        let mut s = CbrSource::new(0, 0, 0, 1, 8_000_000, 1000, Time(10_000_000));
        let mut out = Outbox::default();
        let mut now = Time::ZERO;
        loop {
            out.timers.clear();
            s.on_send_timer(now, &mut out);
            match out.timers.first() {
                Some(&(t, _)) => now = t,
                None => break,
            }
        }
        assert_eq!(out.pkts.len(), 10);
        assert_eq!(out.pkts[9].ts, Time(9_000_000));
    }
}
