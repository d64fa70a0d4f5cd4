//! Poisson packet source: unresponsive datagrams whose arrivals form a Poisson process of a
//! given bit rate, with fixed or exponentially distributed sizes (Augé & Roberts 2006, §IV-A:
//! the aggregate of many non-bottlenecked flows is "very nearly Poisson", and exponential
//! sizes are the conservative assumption under which a buffer of n packets loses ≈ ρⁿ).
//!
//! Principles:
//! - Inter-arrival times are exponential with rate λ = `rate_bps` / (8 · E[size]), drawn
//!   from the flow's own stream `poisson_packets` (flow index), so the offered bit rate is
//!   `rate_bps` whatever the size law; sizes are drawn from the same stream, independently of
//!   the gaps. The first packet leaves one gap after the start (a Poisson process started
//!   then), the last before `stop`.
//! - Exponential sizes: `X ~ Exp(mean = mean_bytes)`, rounded to whole bytes and clamped to
//!   `[min_bytes, max_bytes]` (a datagram has at least its headers and one byte, and at most
//!   an IP datagram's 65535 bytes by default). E[size] is the mean of the clamped law,
//!   `min + mean·(e^{−min/mean} − e^{−max/mean})` (rounding shifts it by well under a byte),
//!   so the clamp changes the packet count, not the bit rate. With the defaults and a mean of
//!   1500 B the clamp moves 2.7 % of the packets up to 41 B and E[size] by 0.04 %.
//! - The sink counts what arrives; losses are the packets sent minus those received, as
//!   for a CBR source.

use rand_distr::{Distribution, Exp};

use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{FlowId, NodeId, Packet};
use crate::rng::StreamRng;
use crate::time::{Duration, Time};

/// The size law of a Poisson packet source, wire bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PacketSizes {
    /// Every packet has this size.
    Fixed(u32),
    /// Exponential of this mean, rounded and clamped to `[min, max]`.
    Exponential {
        /// Mean of the exponential before clamping, bytes.
        mean: f64,
        /// Smallest size, bytes.
        min: u32,
        /// Largest size, bytes.
        max: u32,
    },
}

impl PacketSizes {
    /// Returns the mean packet size in bytes (of the clamped law, see the module doc).
    pub fn mean_bytes(&self) -> f64 {
        match *self {
            PacketSizes::Fixed(b) => b as f64,
            PacketSizes::Exponential { mean, min, max } => {
                min as f64 + mean * ((-(min as f64) / mean).exp() - (-(max as f64) / mean).exp())
            }
        }
    }

    fn draw(&self, rng: &mut StreamRng) -> u32 {
        match *self {
            PacketSizes::Fixed(b) => b,
            PacketSizes::Exponential { mean, min, max } => {
                let x = Exp::new(1.0 / mean).expect("validated mean > 0").sample(rng).round();
                x.clamp(min as f64, max as f64) as u32
            }
        }
    }
}

/// A Poisson packet source.
#[derive(Debug)]
pub struct PoissonSource {
    flow: FlowId,
    class: u32,
    src: NodeId,
    dst: NodeId,
    sizes: PacketSizes,
    /// Exponential gaps of mean 1/λ seconds.
    gaps: Exp<f64>,
    rng: StreamRng,
    stop: Time,
    next_seq: u64,
    /// Datagrams sent.
    pub sent_pkts: u64,
}

impl PoissonSource {
    /// Returns the source of flow `flow` (user `class`) from `src` to `dst` offering
    /// `rate_bps` (> 0) in packets of `sizes` until `stop`, drawing from `rng`.
    pub fn new(
        flow: FlowId,
        class: u32,
        (src, dst): (NodeId, NodeId),
        rate_bps: u64,
        sizes: PacketSizes,
        stop: Time,
        rng: StreamRng,
    ) -> Self {
        let lambda = rate_bps as f64 / (8.0 * sizes.mean_bytes());
        let gaps = Exp::new(lambda).expect("validated rate > 0 and sizes > 0");
        PoissonSource { flow, class, src, dst, sizes, gaps, rng, stop, next_seq: 0, sent_pkts: 0 }
    }

    fn gap(&mut self) -> Duration {
        Duration::from_secs_f64(self.gaps.sample(&mut self.rng))
    }

    /// Starts the process at `now`: the first packet leaves one gap later.
    pub fn start(&mut self, now: Time, out: &mut Outbox) {
        let at = now + self.gap();
        if at < self.stop {
            out.timer(at, FlowTimer::PoissonSend);
        }
    }

    /// Sends one datagram and schedules the next (called on each timer).
    pub fn on_send_timer(&mut self, now: Time, out: &mut Outbox) {
        if now >= self.stop {
            return;
        }
        let size = self.sizes.draw(&mut self.rng);
        out.send(Packet::datagram(self.flow, self.class, self.src, self.dst, self.next_seq, size, now));
        self.next_seq += 1;
        self.sent_pkts += 1;
        self.start(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use crate::rng;

    /// Runs a source from 0 until `stop` and returns what it sent.
    fn emit(sizes: PacketSizes, rate_bps: u64, stop: Time) -> Vec<Packet> {
        let mut s = PoissonSource::new(0, 0, (0, 1), rate_bps, sizes, stop, rng::stream(7, "poisson_packets", 0));
        let mut out = Outbox::default();
        let mut sent = vec![];
        s.start(Time::ZERO, &mut out);
        while let Some((t, _)) = out.timers.pop() {
            s.on_send_timer(t, &mut out);
            sent.append(&mut out.pkts);
        }
        assert_eq!(s.sent_pkts, sent.len() as u64);
        sent
    }

    #[test]
    fn offers_the_configured_bit_rate_in_exponential_gaps() {
        // 12 Mb/s of 1500 B packets: λ = 1000/s; 100 s → 10^5 packets, σ = 316.
        let sent = emit(PacketSizes::Fixed(1500), 12_000_000, Time::from_ns(100_000_000_000));
        assert!((sent.len() as f64 - 1e5).abs() < 4.0 * 316.0, "{} packets", sent.len());
        assert!(sent.iter().all(|p| p.size_bytes == 1500 && p.kind == PacketKind::Udp));
        // Exponential gaps: coefficient of variation 1 (a CBR source would have 0).
        let gaps: Vec<f64> = sent.windows(2).map(|w| (w[1].ts - w[0].ts).as_secs_f64()).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((var.sqrt() / mean - 1.0).abs() < 0.02, "cv = {}", var.sqrt() / mean);
        assert!(sent.windows(2).all(|w| w[1].seq() == w[0].seq() + 1));
    }

    #[test]
    fn exponential_sizes_have_the_clamped_mean_and_keep_the_bit_rate() {
        let sizes = PacketSizes::Exponential { mean: 500.0, min: 41, max: 65535 };
        // E = 41 + 500·e^{−41/500} = 501.6 bytes.
        assert!((sizes.mean_bytes() - (41.0 + 500.0 * (-41.0f64 / 500.0).exp())).abs() < 1e-9);
        let sent = emit(sizes, 8_000_000, Time::from_ns(100_000_000_000));
        let bytes: u64 = sent.iter().map(|p| p.size_bytes as u64).sum();
        let n = sent.len() as f64;
        // 10^8 bytes offered over 100 s; the byte count's σ is about √(2n)·E[size] (Poisson
        // count times sizes with a coefficient of variation near 1): 0.45 % here.
        assert!((bytes as f64 / 1e8 - 1.0).abs() < 0.02, "{bytes} bytes");
        assert!((bytes as f64 / n - sizes.mean_bytes()).abs() < 4.0 * 500.0 / n.sqrt());
        assert!(sent.iter().all(|p| (41..=65535).contains(&p.size_bytes)));
        assert!(
            sent.iter().filter(|p| p.size_bytes == 41).count() as f64 / n > 0.05,
            "the clamp at 41 B holds P(X < 41.5) ≈ 8 %"
        );
    }

    #[test]
    fn stops_before_its_stop_time() {
        let sent = emit(PacketSizes::Fixed(100), 8_000_000, Time::from_ns(10_000_000));
        assert!(!sent.is_empty() && sent.iter().all(|p| p.ts < Time::from_ns(10_000_000)));
    }
}
