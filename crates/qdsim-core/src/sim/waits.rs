//! Waits recorded in batches, each one's counts fetched ahead.
//!
//! Every departure after a wait adds one to a count in its port's sojourn histogram: three
//! cache lines (the histogram's header, the byte placing the count's chunk, the count). The
//! count's line is one no earlier event can ask for — which count depends on the wait, known
//! only as the packet leaves — and the processor waited on it: 80 % of `Histogram::record`'s
//! samples, 8 % of a 100-flow run's time and 10 % at 10⁴ flows, where every port is cold.
//! Recorded as the packet leaves, a wait's lines come one after the other; recorded later,
//! beside a batch of others, their fetches overlap: a wait's header and place are asked for
//! [`AHEAD`] records before its own, its count half as many (a first version asked for the
//! header and place as the wait was taken: by the batch's record they had left the caches).
//! A histogram is counts, a sum and a maximum, the same in any order of its samples, so the
//! batch changes no result; [`WaitLog::flush`] runs before anything reads the histograms
//! (the warm-up, which clears them; the end of the run or of `Sim::run_until`).

use crate::net::Link;
use crate::stats::Histogram;

/// Waits taken at once, at most; then the batch is recorded.
const BATCH: usize = 128;
/// How many records ahead a wait's first lines are asked for (its count's, half as many):
/// enough to cover a miss to memory (about 100 ns) with the few tens of instructions each
/// record takes, and few enough for the processor's outstanding misses (about 10–20).
const AHEAD: usize = 16;

/// A wait taken and not yet recorded.
#[derive(Debug, Clone, Copy)]
struct Taken {
    /// The wait, ns (above 0).
    wait: u64,
    /// Its bucket ([`Histogram::bucket`]), found once for the prefetches and the record.
    bucket: u32,
    /// The link whose port it is.
    link: u32,
}

/// The waits taken from the ports and not yet recorded.
#[derive(Debug, Default)]
pub(super) struct WaitLog {
    pending: Vec<Taken>,
}

impl WaitLog {
    /// Takes link `l`'s port's deferred wait, if any; records the batch once it is full.
    #[inline]
    pub(super) fn take(&mut self, l: u32, links: &mut [Link]) {
        let wait = links[l as usize].port.take_wait();
        if wait == 0 {
            return;
        }
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(BATCH);
        }
        self.pending.push(Taken { wait, bucket: Histogram::bucket(wait), link: l });
        if self.pending.len() == BATCH {
            self.flush(links);
        }
    }

    /// Records every wait taken: [`AHEAD`] records before its own, a wait's header and place
    /// are asked for; half as many before, the line of its count (found through its place).
    pub(super) fn flush(&mut self, links: &mut [Link]) {
        // A pipeline: at step `s`, wait `s`'s header and place are asked for, wait
        // `s - AHEAD / 2`'s count, and wait `s - AHEAD` is recorded.
        let pending = &self.pending;
        let lagging = |step: usize, lag: usize| step.checked_sub(lag).and_then(|i| pending.get(i));
        for step in 0..pending.len() + AHEAD {
            if let Some(t) = pending.get(step) {
                links[t.link as usize].port.waits().prefetch_place(t.bucket as usize);
            }
            if let Some(t) = lagging(step, AHEAD / 2) {
                links[t.link as usize].port.waits().prefetch_count(t.bucket as usize);
            }
            if let Some(t) = lagging(step, AHEAD) {
                links[t.link as usize].port.record_wait(t.bucket as usize, t.wait);
            }
        }
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Port;
    use crate::qdisc::testing::pkt;
    use crate::qdisc::{AnyQdisc, Fifo, FifoParams};
    use crate::time::{Duration, Rate, Time};

    fn fifo_link() -> Link {
        let fifo = Fifo::new(FifoParams { limit_pkts: Some(100), limit_bytes: None });
        let port = Port::new(AnyQdisc::Fifo(fifo), crate::rng::stream(1, "qdisc", 0));
        Link::new(0, 1, Rate::from_bps(8_000_000), Duration::ZERO, 0.0, crate::rng::stream(1, "loss", 0), port)
    }

    #[test]
    fn waits_recorded_in_batches_are_the_waits_recorded_at_once() {
        // Three ports deferring, three recording at once; waits across many batches, of every
        // size from nanoseconds to seconds (chunks hit for the first time within a batch).
        let mut deferred: Vec<Link> = (0..3).map(|_| fifo_link()).collect();
        let mut at_once: Vec<Link> = (0..3).map(|_| fifo_link()).collect();
        for link in deferred.iter_mut().chain(&mut at_once) {
            link.port.start_window(Time(0));
        }
        for link in &mut deferred {
            link.port.defer_waits(true);
        }
        let mut log = WaitLog::default();
        let mut t = 1;
        for i in 0..(3 * BATCH + 5) as u32 {
            let (l, wait) = ((i * 7 % 3) as usize, 1 + (i as u64 * 7919) % 1000 * 10u64.pow(i % 10));
            for links in [&mut deferred, &mut at_once] {
                links[l].port.enqueue(pkt(i, 500), Time(t));
                links[l].port.dequeue(Time(t + wait));
            }
            log.take(l as u32, &mut deferred);
            assert!(log.pending.len() < BATCH, "a full batch is recorded");
            t += wait + 1;
        }
        assert!(!log.pending.is_empty());
        let sojourns = |links: &[Link]| -> Vec<_> {
            links
                .iter()
                .map(|l| l.port.sojourn().expect("kept"))
                .map(|h| (h.count(), h.mean(), [0.1, 0.5, 0.9, 1.0].map(|q| h.quantile(q))))
                .collect()
        };
        assert_ne!(sojourns(&deferred), sojourns(&at_once), "the last batch not yet recorded");
        log.flush(&mut deferred);
        assert!(log.pending.is_empty());
        assert_eq!(sojourns(&deferred), sojourns(&at_once));
    }
}
