//! Turning a finished run's collectors into [`RunResults`], and sampling time series.

use std::collections::BTreeMap;

use super::{Endpoints, Sim};
use crate::config::SourceConfig;
use crate::event::Event;
use crate::net::WIRE_LOSS;
use crate::qdisc::{DropReason, MarkReason, Probe};
use crate::results::{
    FlowResult, GeneratorResult, GroupResult, LinkResult, QdiscSeries, RunResults, Series, Transfers,
};
use crate::stats::Counters;
use crate::tcp::SenderStats;
use crate::time::{Time, NS_PER_SEC};

fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_SEC as f64
}

/// Appends a link's qdisc internals at one sample to the series.
struct QdiscRows<'a> {
    s: &'a mut QdiscSeries,
    t: f64,
    link: u32,
}

impl Probe for QdiscRows<'_> {
    fn record(&mut self, name: &'static str, class: Option<u32>, value: f64) {
        self.s.t.push(self.t);
        self.s.link.push(self.link);
        self.s.var.push(name);
        self.s.class.push(class.map_or(-1, i64::from));
        self.s.value.push(value);
    }
}

impl Sim {
    pub(super) fn on_sample(&mut self, now: Time) {
        if self.cfg.sampling.tx_bytes {
            self.end_early_all(now);
        }
        let t = now.as_secs_f64();
        if self.cfg.sampling.queues || self.cfg.sampling.tx_bytes {
            for (i, l) in self.links.iter().enumerate() {
                let s = &mut self.series.queue;
                s.t.push(t);
                s.link.push(i as u32);
                s.pkts.push(l.port.len_pkts());
                s.bytes.push(l.port.len_bytes());
                s.drops.push(l.port.reasons.total_drops());
                s.overflow_drops.push(l.port.reasons.drops[DropReason::Overflow as usize]);
                let (departures, sojourn_ns) = (l.port.counters.departures, l.port.counters.sojourn_ns);
                let (d0, s0) = std::mem::replace(&mut self.sojourn_at_sample[i], (departures, sojourn_ns));
                s.sojourn_s.push((departures > d0).then(|| (sojourn_ns - s0) as f64 / (departures - d0) as f64 / 1e9));
                if self.cfg.sampling.tx_bytes {
                    let tx = l.counters.tx_bytes;
                    s.tx_bytes.push(tx - self.tx_bytes_at_sample[i]);
                    self.tx_bytes_at_sample[i] = tx;
                }
            }
        }
        if self.cfg.sampling.queues {
            self.sample_reasons(t);
        }
        if self.cfg.sampling.qdisc {
            for (i, l) in self.links.iter().enumerate() {
                l.port.internals(&mut QdiscRows { s: &mut self.series.qdisc, t, link: i as u32 });
            }
        }
        if self.cfg.sampling.tcp {
            for i in 0..self.flows.len() {
                // Finished connections of applications would only repeat their last state.
                let active = match &self.flows[i].ep {
                    Endpoints::Tcp { snd, .. } => (i < self.cfg.flows.len()) || !snd.is_done(),
                    _ => false,
                };
                let active = active && self.tcp_sampled[self.flows[i].group as usize];
                if active {
                    self.record_tcp(i, now);
                }
            }
        }
        self.q.schedule(now + self.sample_interval, Event::Sample);
    }

    /// Appends a row to the drop and mark series for every (link, reason) whose cumulative
    /// count changed since the previous sample: the qdisc's drop reasons, the wire's losses,
    /// the marks.
    fn sample_reasons(&mut self, t: f64) {
        const PER_LINK: usize = DropReason::COUNT + 1 + MarkReason::COUNT;
        let reasons = &mut self.reasons_at_sample;
        if reasons.is_empty() {
            reasons.resize(self.links.len() * PER_LINK, 0);
        }
        let s = &mut self.series.reasons;
        for (i, l) in self.links.iter().enumerate() {
            let c = &l.port.reasons;
            let drops = DropReason::ALL.iter().map(|r| ("drop", r.name(), c.drops[*r as usize]));
            let wire = std::iter::once(("drop", WIRE_LOSS, l.counters.wire_losses));
            let marks = MarkReason::ALL.iter().map(|r| ("mark", r.name(), c.marks[*r as usize]));
            for (j, (kind, reason, count)) in drops.chain(wire).chain(marks).enumerate() {
                let last = &mut reasons[i * PER_LINK + j];
                if count != *last {
                    *last = count;
                    s.t.push(t);
                    s.link.push(i as u32);
                    s.kind.push(kind);
                    s.reason.push(reason);
                    s.count.push(count);
                }
            }
        }
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

    /// Records flow `i`'s TCP state if its cwnd or ssthresh changed since the last record
    /// (and its group is sampled).
    pub(super) fn record_tcp_if_changed(&mut self, i: usize, now: Time) {
        if !self.tcp_sampled[self.flows[i].group as usize] {
            return;
        }
        if let Endpoints::Tcp { snd, .. } = &self.flows[i].ep {
            if self.flows[i].acc.last_recorded != Some((snd.win.cwnd, snd.win.ssthresh)) {
                self.record_tcp(i, now);
            }
        }
    }

    /// Returns the results of the run so far (call after [`Sim::run`]).
    pub fn results(&self) -> RunResults {
        let end = self.end_time();
        let window_s = ns_to_s(end.saturating_since(self.warmup).as_ns().max(1));
        let cfg = &self.cfg;
        let flows = self.flow_results(window_s, end);
        let groups = self.group_results(&flows, end);
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
            transfers: self.transfer_table(end),
            series: Series {
                packets: self.record.as_ref().map(|r| r.rows.clone()).unwrap_or_default(),
                ..self.series.clone()
            },
            generators: self.generator_results(end),
            packets_not_recorded: self.record.as_ref().map(|r| r.not_recorded),
        }
    }

    /// Returns the generators to report (those with a host pool, or every one with
    /// `sampling.flows_in_progress`) over the window ending at `end`.
    fn generator_results(&self, end: Time) -> Vec<GeneratorResult> {
        let window_ns = end.saturating_since(self.warmup).as_ns().max(1) as f64;
        self.flows[..self.cfg.flows.len()]
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match &f.ep {
                Endpoints::Generator(g) if g.has_pool() || self.cfg.sampling.flows_in_progress => {
                    let time_at = g.in_progress.time_at(end);
                    let fraction: Vec<f64> = time_at.iter().map(|&t| t as f64 / window_ns).collect();
                    Some(GeneratorResult {
                        flow: i as u32,
                        group: self.cfg.flows[i].group.clone(),
                        arrivals: g.arrivals,
                        shared_arrivals: g.shared_arrivals,
                        mean_in_progress: fraction.iter().enumerate().map(|(n, p)| n as f64 * p).sum(),
                        max_in_progress: g.in_progress.max() as u64,
                        in_progress_fraction: fraction,
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// Returns the sender counters of each configured flow since the start of the run,
    /// summed over the connections its applications opened.
    pub(super) fn sender_stats(&self) -> Vec<SenderStats> {
        // Connections opened by applications report to their configured flow.
        let mut stats = vec![SenderStats::default(); self.cfg.flows.len()];
        for f in &self.flows {
            let t = &mut stats[f.root as usize];
            match &f.ep {
                Endpoints::Tcp { snd, .. } => t.add(&snd.stats),
                Endpoints::Cbr { src } => t.sent_pkts += src.sent_pkts,
                Endpoints::Poisson { src } => t.sent_pkts += src.sent_pkts,
                Endpoints::Generator(_) => {}
            }
        }
        stats
    }

    /// Returns the end of the run (or now, for a run stopped early).
    fn end_time(&self) -> Time {
        if self.finished {
            self.end
        } else {
            self.q.now()
        }
    }

    /// Returns a transfer's completion time, censored at `end` if it has not finished, and
    /// whether it finished.
    fn completion(t: &super::apps::TransferRec, end: Time) -> (f64, bool) {
        match t.done {
            Some(done) => ((done - t.start).as_secs_f64(), true),
            None => (end.saturating_since(t.start).as_secs_f64(), false),
        }
    }

    /// Returns the results of the configured flows over a window of `window_s` seconds
    /// ending at `end`.
    fn flow_results(&self, window_s: f64, end: Time) -> Vec<FlowResult> {
        let cfg = &self.cfg;
        let configured = cfg.flows.len();
        let stats = self.sender_stats();
        // A finite flow's own transfer: the first row of the transfer table it owns (its
        // configured connection's, registered when the run was built).
        let mut first_transfer = vec![None; configured];
        for t in &self.transfers {
            first_transfer[t.root as usize].get_or_insert(t);
        }
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
                let w = s.since(&self.stats_at_warmup[i]);
                let fct = size.and(first_transfer[i]).map(|t| Self::completion(t, end));
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
                    held_before_window_bytes: f.acc.held_before_window,
                    delivered_bytes_total: f.acc.delivered_total,
                    sent_pkts: w.sent_pkts,
                    retransmits: w.retransmits,
                    fast_retransmits: w.fast_retransmits,
                    timeouts: w.timeouts,
                    ecn_reductions: w.ecn_reductions,
                    drops: f.acc.drops - f.acc.drops_at_warmup,
                    sent_pkts_total: s.sent_pkts,
                    retransmits_total: s.retransmits,
                    fast_retransmits_total: s.fast_retransmits,
                    timeouts_total: s.timeouts,
                    ecn_reductions_total: s.ecn_reductions,
                    drops_total: f.acc.drops,
                    fct_s: fct.map(|(t, _)| t),
                    finished: fct.map(|(_, done)| done),
                    mean_queue_delay_s: (f.acc.delay_n > 0)
                        .then(|| f.acc.delay_sum_ns as f64 / f.acc.delay_n as f64 / NS_PER_SEC as f64),
                    rwnd_limited: (w.new_acks > 0).then(|| w.rwnd_limited_acks as f64 / w.new_acks as f64),
                }
            })
            .collect()
    }

    /// Returns the results of each flow group, from its flows' results and its delay and
    /// transfer records; unfinished transfers count with their time until `end`.
    fn group_results(&self, flows: &[FlowResult], end: Time) -> Vec<GroupResult> {
        let mut groups: BTreeMap<&str, GroupResult> = BTreeMap::new();
        for (gi, name) in self.group_names.iter().enumerate() {
            let h = &self.group_delay[gi];
            groups.insert(
                name,
                GroupResult {
                    group: name.clone(),
                    flows: 0,
                    goodput_bps: 0.0,
                    held_before_window_bytes: 0,
                    delay_samples: h.count(),
                    mean_queue_delay_s: h.mean().map(|m| m / NS_PER_SEC as f64),
                    p50_queue_delay_s: h.quantile(0.5).map(ns_to_s),
                    p95_queue_delay_s: h.quantile(0.95).map(ns_to_s),
                    p99_queue_delay_s: h.quantile(0.99).map(ns_to_s),
                    mean_fct_s: None,
                    transfers_completed: 0,
                    unfinished_transfers: 0,
                },
            );
        }
        for fr in flows {
            let g = groups.get_mut(fr.group.as_str()).expect("group of every flow");
            g.flows += 1;
            g.goodput_bps += fr.goodput_bps;
            g.held_before_window_bytes += fr.held_before_window_bytes;
        }
        // (sum of completion times, finished, unfinished) of the transfers started in the window.
        let mut fct_sum = vec![(0.0f64, 0u64, 0u64); self.group_names.len()];
        for t in self.transfers.iter().filter(|t| t.start >= self.warmup) {
            let e = &mut fct_sum[self.flows[t.root as usize].group as usize];
            let (fct, finished) = Self::completion(t, end);
            e.0 += fct;
            if finished {
                e.1 += 1;
            } else {
                e.2 += 1;
            }
        }
        for (gi, (sum, done, unfinished)) in fct_sum.into_iter().enumerate() {
            let g = groups.get_mut(self.group_names[gi].as_str()).expect("group");
            g.transfers_completed = done;
            g.unfinished_transfers = unfinished;
            g.mean_fct_s = (done + unfinished > 0).then(|| sum / (done + unfinished) as f64);
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
                let r = l.port.reasons.since(&l.port.reasons_at_warmup);
                // The qdisc's drops by reason, and the wire's losses beside them.
                let mut drops_by_reason: BTreeMap<String, u64> = DropReason::ALL
                    .iter()
                    .filter(|reason| r.drops[**reason as usize] > 0)
                    .map(|reason| (reason.name().to_string(), r.drops[*reason as usize]))
                    .collect();
                if c.wire_losses > 0 {
                    drops_by_reason.insert(WIRE_LOSS.to_string(), c.wire_losses);
                }
                let drops = r.total_drops() + c.wire_losses;
                let marks_by_reason: BTreeMap<String, u64> = MarkReason::ALL
                    .iter()
                    .filter(|reason| r.marks[**reason as usize] > 0)
                    .map(|reason| (reason.name().to_string(), r.marks[*reason as usize]))
                    .collect();
                let h = l.port.sojourn();
                let quantile = |q| h.as_ref().and_then(|h| h.quantile(q)).map(ns_to_s);
                let [mean_queue_pkts, mean_queue_bytes] = l.port.mean_queue(end);
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
                    marks: r.marks.iter().sum(),
                    marks_by_reason,
                    loss_rate: if p.arrivals > 0 { drops as f64 / p.arrivals as f64 } else { 0.0 },
                    mean_queue_pkts,
                    mean_queue_bytes,
                    max_queue_pkts: l.port.max_queue_pkts(),
                    mean_delay_s: l.port.mean_sojourn().map(|m| m / NS_PER_SEC as f64),
                    p50_delay_s: quantile(0.5),
                    p95_delay_s: quantile(0.95),
                    p99_delay_s: quantile(0.99),
                }
            })
            .collect()
    }

    /// Returns the transfer table, unfinished transfers censored at `end`.
    fn transfer_table(&self, end: Time) -> Transfers {
        let mut t = Transfers::default();
        for r in &self.transfers {
            let (fct, finished) = Self::completion(r, end);
            t.flow.push(r.root);
            t.round.push(r.round);
            t.start_s.push(r.start.as_secs_f64());
            t.size_bytes.push(r.size);
            t.fct_s.push(fct);
            t.finished.push(finished);
        }
        t
    }
}
