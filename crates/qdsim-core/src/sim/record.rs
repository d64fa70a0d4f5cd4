//! The packet-emission record (`sampling.packets`): one row per packet offered to one link's
//! queue — when, whose, how large, and whether the link lost it — for scatter plots of a
//! bottleneck's arrivals such as Augé & Roberts' Fig. 4.
//!
//! Principles:
//! - Off by default and free when off: the simulator holds an `Option` and tests it once per
//!   offer, drop and transmission; nothing else runs.
//! - A row is written when the packet is offered (before the qdisc decides), so a packet
//!   dropped on arrival has one too. Until the packet leaves the link, its row is found
//!   again by its identity — flow, kind, segment and acknowledgement numbers and the instant
//!   it was offered (which the port stamps as its enqueue time) — so a later drop (a
//!   push-out, an AQM's head drop) or a loss on the wire marks it lost. Only packets inside
//!   the link are in that index: its size is the link's queue plus one.
//! - Offers in `[start, stop)` are recorded, at most `max_rows`; later ones are counted
//!   (`RunResults::packets_not_recorded`), so a truncated record says so.

use std::collections::HashMap;

use crate::config::PacketRecordConfig;
use crate::packet::Packet;
use crate::results::PacketSeries;
use crate::time::Time;

/// A packet's identity while it is inside the link.
type Key = (u32, u8, u64, u64, u64);

fn key(pkt: &Packet, offered: Time) -> Key {
    (pkt.flow, pkt.kind as u8, pkt.seq(), pkt.ack(), offered.as_ns())
}

/// The record of one link's offered packets.
#[derive(Debug)]
pub(crate) struct PacketRecord {
    /// The recorded link's index.
    link: u32,
    start: Time,
    stop: Time,
    max_rows: u64,
    /// The rows.
    pub rows: PacketSeries,
    /// Offers in the recording span beyond `max_rows`.
    pub not_recorded: u64,
    /// The row of each recorded packet still inside the link.
    inside: HashMap<Key, u32>,
    /// Rows of packets whose identity was already inside (never expected; kept so that no
    /// row is ever misattributed).
    clashes: Vec<(Key, u32)>,
}

impl PacketRecord {
    /// Returns an empty record of link `link` as `cfg` asks, in a run ending at `end`.
    pub fn new(link: u32, cfg: &PacketRecordConfig, end: Time) -> Self {
        PacketRecord {
            link,
            start: Time::from_ns(cfg.start_ns),
            stop: cfg.stop_ns.map_or(end, Time::from_ns),
            max_rows: cfg.max_rows,
            rows: PacketSeries::default(),
            not_recorded: 0,
            inside: HashMap::new(),
            clashes: Vec::new(),
        }
    }

    /// Notes that `pkt` of configured flow `root` is offered to link `l` at `now`.
    pub fn offered(&mut self, l: u32, pkt: &Packet, root: u32, now: Time) {
        if l != self.link || now < self.start || now >= self.stop {
            return;
        }
        if self.rows.t.len() as u64 >= self.max_rows {
            self.not_recorded += 1;
            return;
        }
        let row = self.rows.t.len() as u32;
        self.rows.t.push(now.as_secs_f64());
        self.rows.flow.push(root);
        self.rows.size_bytes.push(pkt.size_bytes);
        self.rows.lost.push(false);
        if let Some(old) = self.inside.insert(key(pkt, now), row) {
            self.clashes.push((key(pkt, now), old));
        }
    }

    /// Notes that `pkt` left link `l`: transmitted, or `lost` (dropped by the qdisc or on the
    /// wire). `pkt.enq_time` is the instant it was offered to this link.
    pub fn left(&mut self, l: u32, pkt: &Packet, lost: bool) {
        if l != self.link {
            return;
        }
        let k = key(pkt, pkt.enq_time);
        let row = match self.clashes.iter().position(|(c, _)| *c == k) {
            Some(i) => Some(self.clashes.swap_remove(i).1),
            None => self.inside.remove(&k),
        };
        if let (Some(row), true) = (row, lost) {
            self.rows.lost[row as usize] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;

    fn record() -> PacketRecord {
        let cfg = PacketRecordConfig { link: "l".into(), start_ns: 10, stop_ns: Some(100), max_rows: 3 };
        PacketRecord::new(2, &cfg, Time(1000))
    }

    #[test]
    fn marks_a_packet_lost_whenever_it_leaves_lost_and_only_on_its_link() {
        let mut r = record();
        let mut a = pkt(1, 1500);
        a.number = 7;
        let mut b = pkt(2, 100);
        b.number = 7;
        r.offered(2, &a, 0, Time(20));
        r.offered(2, &b, 1, Time(20));
        r.offered(1, &a, 0, Time(20)); // another link
        a.enq_time = Time(20);
        b.enq_time = Time(20);
        r.left(2, &b, true);
        r.left(2, &a, false);
        assert_eq!(r.rows.flow, vec![0, 1]);
        assert_eq!(r.rows.size_bytes, vec![1500, 100]);
        assert_eq!(r.rows.lost, vec![false, true]);
        assert!(r.inside.is_empty());
    }

    #[test]
    fn records_its_span_up_to_the_cap_and_counts_the_rest() {
        let mut r = record();
        for t in [5, 10, 20, 30, 40, 100] {
            r.offered(2, &pkt(t as u32, 100), 0, Time(t));
        }
        assert_eq!(r.rows.t.len(), 3);
        assert_eq!(r.not_recorded, 1, "the offer at 40 ns; those at 5 and 100 ns are outside the span");
    }
}
