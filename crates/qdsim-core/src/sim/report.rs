//! Turning a finished run's collectors into [`RunResults`], and sampling time series.

use std::collections::BTreeMap;

use super::{Endpoints, Sim};
use crate::config::SourceConfig;
use crate::event::Event;
use crate::net::WIRE_LOSS;
use crate::qdisc::{DropReason, MarkReason};
use crate::results::{FlowResult, GroupResult, LinkResult, RunResults, Transfers};
use crate::stats::Counters;
use crate::tcp::SenderStats;
use crate::time::{Time, NS_PER_SEC};

fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_SEC as f64
}

impl Sim {
    pub(super) fn on_sample(&mut self, now: Time) {
        let t = now.as_secs_f64();
        if self.cfg.sampling.queues {
            for (i, l) in self.links.iter().enumerate() {
                let s = &mut self.series.queue;
                s.t.push(t);
                s.link.push(i as u32);
                s.pkts.push(l.port.len_pkts());
                s.bytes.push(l.port.len_bytes());
                s.drops.push(l.port.counters.total_drops());
                s.overflow_drops.push(l.port.counters.drops[DropReason::Overflow as usize]);
            }
        }
        if self.cfg.sampling.tcp {
            for i in 0..self.flows.len() {
                // Finished connections of applications would only repeat their last state.
                let active = match &self.flows[i].ep {
                    Endpoints::Tcp { snd, .. } => (i < self.cfg.flows.len()) || !snd.is_done(),
                    _ => false,
                };
                if active {
                    self.record_tcp(i, now);
                }
            }
        }
        self.q.schedule(now + self.sample_interval, Event::Sample);
    }

    /// Appends flow `i`'s TCP state at `now` to the series (no-op for non-TCP flows).
    fn record_tcp(&mut self, i: usize, now: Time) {
        let f = &mut self.flows[i];
        if let Endpoints::Tcp { snd, .. } = &f.ep {
            let s = &mut self.series.tcp;
            s.t.push(now.as_secs_f64());
            s.flow.push(i as u32);
            s.cwnd.push(snd.win.cwnd);
            s.ssthresh.push(snd.win.ssthresh.min(1 << 31));
            s.srtt_s.push(snd.rtt.srtt.map_or(0.0, |d| d.as_secs_f64()));
            s.inflight_bytes.push(snd.inflight_bytes());
            s.in_timeout.push(snd.in_timeout());
            f.acc.last_recorded = Some((snd.win.cwnd, snd.win.ssthresh));
        }
    }

    /// Records flow `i`'s TCP state if its cwnd or ssthresh changed since the last record.
    pub(super) fn record_tcp_if_changed(&mut self, i: usize, now: Time) {
        if let Endpoints::Tcp { snd, .. } = &self.flows[i].ep {
            if self.flows[i].acc.last_recorded != Some((snd.win.cwnd, snd.win.ssthresh)) {
                self.record_tcp(i, now);
            }
        }
    }

    /// Returns the results of the run so far (call after [`Sim::run`]).
    pub fn results(&self) -> RunResults {
        let end = if self.finished { self.end } else { self.q.now() };
        let window_s = ns_to_s(end.saturating_since(self.warmup).as_ns().max(1));
        let cfg = &self.cfg;
        let flows = self.flow_results(window_s);
        let groups = self.group_results(&flows);
        let links = self.link_results(end, window_s);
        RunResults {
            seed: cfg.seed,
            duration_s: ns_to_s(cfg.duration_ns),
            warmup_s: ns_to_s(cfg.warmup_ns),
            events: self.events(),
            packets_forwarded: self.packets_forwarded,
            flows,
            groups,
            links,
            transfers: self.transfer_table(),
            series: self.series.clone(),
        }
    }

    /// Returns the sender counters of each configured flow, summed over the connections its
    /// applications opened.
    fn sender_stats(&self) -> Vec<SenderStats> {
        // Connections opened by applications report to their configured flow.
        let mut stats = vec![SenderStats::default(); self.cfg.flows.len()];
        for f in &self.flows {
            let t = &mut stats[f.root as usize];
            match &f.ep {
                Endpoints::Tcp { snd, .. } => {
                    let s = snd.stats;
                    t.sent_pkts += s.sent_pkts;
                    t.retransmits += s.retransmits;
                    t.fast_retransmits += s.fast_retransmits;
                    t.timeouts += s.timeouts;
                    t.ecn_reductions += s.ecn_reductions;
                }
                Endpoints::Cbr { src } => t.sent_pkts += src.sent_pkts,
                Endpoints::Generator(_) => {}
            }
        }
        stats
    }

    /// Returns the results of the configured flows over a window of `window_s` seconds.
    fn flow_results(&self, window_s: f64) -> Vec<FlowResult> {
        let cfg = &self.cfg;
        let configured = cfg.flows.len();
        let stats = self.sender_stats();
        self.flows[..configured]
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let fc = &cfg.flows[i];
                let delivered = f.acc.delivered_total - f.acc.delivered_at_warmup;
                let size = match &fc.source {
                    SourceConfig::Tcp { size_bytes, .. } => *size_bytes,
                    _ => None,
                };
                let s = stats[i];
                FlowResult {
                    id: i as u32,
                    group: fc.group.clone(),
                    src: fc.src.clone(),
                    dst: fc.dst.clone(),
                    kind: fc.source.kind().into(),
                    cc: fc.source.tcp().map_or("", |t| t.cc.name()).into(),
                    start_s: f.start.as_secs_f64(),
                    size_bytes: size,
                    delivered_bytes: delivered,
                    goodput_bps: delivered as f64 * 8.0 / window_s,
                    delivered_bytes_total: f.acc.delivered_total,
                    sent_pkts: s.sent_pkts,
                    retransmits: s.retransmits,
                    fast_retransmits: s.fast_retransmits,
                    timeouts: s.timeouts,
                    ecn_reductions: s.ecn_reductions,
                    drops: f.acc.drops,
                    // An on-off source's completion times are its bursts' (the transfer table).
                    fct_s: f.acc.completed_at.filter(|_| f.on_off.is_none()).map(|t| (t - f.start).as_secs_f64()),
                    mean_queue_delay_s: (f.acc.delay_n > 0)
                        .then(|| f.acc.delay_sum_ns as f64 / f.acc.delay_n as f64 / NS_PER_SEC as f64),
                }
            })
            .collect()
    }

    /// Returns the results of each flow group, from its flows' results and its delay and
    /// transfer records.
    fn group_results(&self, flows: &[FlowResult]) -> Vec<GroupResult> {
        let mut groups: BTreeMap<&str, GroupResult> = BTreeMap::new();
        for (gi, name) in self.group_names.iter().enumerate() {
            let h = &self.group_delay[gi];
            groups.insert(
                name,
                GroupResult {
                    group: name.clone(),
                    flows: 0,
                    goodput_bps: 0.0,
                    delay_samples: h.count(),
                    mean_queue_delay_s: h.mean().map(|m| m / NS_PER_SEC as f64),
                    p50_queue_delay_s: h.quantile(0.5).map(ns_to_s),
                    p95_queue_delay_s: h.quantile(0.95).map(ns_to_s),
                    p99_queue_delay_s: h.quantile(0.99).map(ns_to_s),
                    mean_fct_s: None,
                    transfers_completed: 0,
                },
            );
        }
        for fr in flows {
            let g = groups.get_mut(fr.group.as_str()).expect("group of every flow");
            g.flows += 1;
            g.goodput_bps += fr.goodput_bps;
        }
        let mut fct_sum = vec![(0.0f64, 0u64); self.group_names.len()];
        for t in &self.transfers {
            if let (Some(done), true) = (t.done, t.start >= self.warmup) {
                let e = &mut fct_sum[self.flows[t.root as usize].group as usize];
                e.0 += (done - t.start).as_secs_f64();
                e.1 += 1;
            }
        }
        for (gi, (sum, n)) in fct_sum.into_iter().enumerate() {
            let g = groups.get_mut(self.group_names[gi].as_str()).expect("group");
            g.transfers_completed = n;
            g.mean_fct_s = (n > 0).then(|| sum / n as f64);
        }

        groups.into_values().collect()
    }

    /// Returns the results of every link over the window ending at `end` (`window_s` long).
    fn link_results(&self, end: Time, window_s: f64) -> Vec<LinkResult> {
        let cfg = &self.cfg;
        self.links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let lc = &cfg.links[i];
                let c = l.counters.since(&l.at_warmup);
                let p = l.port.counters.since(&l.port.at_warmup);
                // The qdisc's drops by reason, and the wire's losses beside them.
                let mut drops_by_reason: BTreeMap<String, u64> = DropReason::ALL
                    .iter()
                    .filter(|r| p.drops[**r as usize] > 0)
                    .map(|r| (r.name().to_string(), p.drops[*r as usize]))
                    .collect();
                if c.wire_losses > 0 {
                    drops_by_reason.insert(WIRE_LOSS.to_string(), c.wire_losses);
                }
                let drops = p.total_drops() + c.wire_losses;
                let marks_by_reason: BTreeMap<String, u64> = MarkReason::ALL
                    .iter()
                    .filter(|r| p.marks[**r as usize] > 0)
                    .map(|r| (r.name().to_string(), p.marks[*r as usize]))
                    .collect();
                let h = &l.port.sojourn;
                LinkResult {
                    name: lc.name.clone(),
                    from: lc.from.clone(),
                    to: lc.to.clone(),
                    rate_bps: lc.rate_bps,
                    delay_s: ns_to_s(lc.delay_ns),
                    qdisc: lc.qdisc.kind().into(),
                    utilization: (c.tx_bytes as f64 * 8.0 / (lc.rate_bps as f64 * window_s)).min(1.0),
                    tx_pkts: c.tx_pkts,
                    tx_bytes: c.tx_bytes,
                    arrivals: p.arrivals,
                    drops,
                    drops_by_reason,
                    marks: p.marks.iter().sum(),
                    marks_by_reason,
                    loss_rate: if p.arrivals > 0 { drops as f64 / p.arrivals as f64 } else { 0.0 },
                    mean_queue_pkts: l.port.queue_pkts.mean(end),
                    mean_queue_bytes: l.port.queue_bytes.mean(end),
                    max_queue_pkts: l.port.queue_pkts.max(),
                    mean_delay_s: h.mean().map(|m| m / NS_PER_SEC as f64),
                    p50_delay_s: h.quantile(0.5).map(ns_to_s),
                    p95_delay_s: h.quantile(0.95).map(ns_to_s),
                    p99_delay_s: h.quantile(0.99).map(ns_to_s),
                }
            })
            .collect()
    }

    fn transfer_table(&self) -> Transfers {
        let mut t = Transfers::default();
        for r in &self.transfers {
            t.flow.push(r.root);
            t.round.push(r.round);
            t.start_s.push(r.start.as_secs_f64());
            t.size_bytes.push(r.size);
            t.fct_s.push(r.done.map(|d| (d - r.start).as_secs_f64()));
        }
        t
    }
}
