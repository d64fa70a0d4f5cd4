//! Watching a long run: a memory budget, progress reports, and a way to stop it early.
//!
//! A run's memory is mostly what grows with it: packets queued at ports and propagating on
//! links, rows of the sampled series and of the TCP event log, transfer records, connections
//! opened by applications, pending events. A 1 Tb/s source into a FIFO without a limit, or a
//! 1 ns sampling interval, grows them without bound until an allocation fails and the process
//! aborts. [`Sim::run_watched`] counts them ([`Sim::memory_use`]) every
//! [`Watch::check_every`] events and stops with [`Stop::Budget`] as soon as they exceed the
//! budget — the count is of the bytes the structures hold, so the check fires long before
//! the allocator runs out. Between checks a run grows by at most a few packets or one sample
//! per event.
//!
//! At the same checks it hands a [`Progress`] (simulated time, events, memory) to a callback,
//! which may ask the run to stop ([`Stop::Interrupted`]): the Python binding uses it to report
//! progress and to let Ctrl-C end a long run. Watching reads the simulation and never changes
//! it, so a watched run's results are those of [`Sim::run`].

use std::fmt;
use std::mem::size_of;
use std::ops::ControlFlow;

use super::apps::TransferRec;
use super::{Flow, Sim};
use crate::event::Event;
use crate::packet::Packet;
use crate::time::{Time, NS_PER_SEC};

/// How a run is watched.
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    /// The most bytes the growing parts of the run may hold ([`Sim::memory_use`]).
    pub memory_limit_bytes: u64,
    /// Events between two checks of the caller's (`on_check`: the clock, signals, progress;
    /// at least 1). The default, 2^14, is about 2 ms of a run on one core. The memory sum
    /// visits every link, so it is spaced to every 64 events per link when that is more,
    /// keeping it under 1 % of the events; the checks between report the last sum.
    pub check_every: u64,
}

impl Default for Watch {
    /// Returns a watch without a budget that checks every 2^14 events.
    fn default() -> Self {
        Watch { memory_limit_bytes: u64::MAX, check_every: 1 << 14 }
    }
}

/// Where a watched run is, at one check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Time,
    /// The run's end time.
    pub end: Time,
    /// Events processed so far.
    pub events: u64,
    /// Bytes held by the growing parts of the run ([`Sim::memory_use`]).
    pub memory_bytes: u64,
}

/// One growing part of a run and the bytes it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPart {
    /// What it is, for people (e.g. `"packets queued or propagating on links"`).
    pub what: &'static str,
    /// Bytes it holds.
    pub bytes: u64,
    /// Its largest contributor or its count (e.g. `"link bottleneck holds 4.2 M packets"`).
    pub detail: String,
}

/// Bytes held by the parts of a run that grow with it.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryUse {
    /// Every part, in a fixed order.
    pub parts: Vec<MemoryPart>,
}

impl MemoryUse {
    /// Returns the total bytes of every part.
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.bytes).sum()
    }

    /// Returns the part holding the most bytes.
    pub fn largest(&self) -> &MemoryPart {
        self.parts.iter().max_by_key(|p| p.bytes).expect("a run has memory parts")
    }
}

/// A run that went over its memory budget.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetExceeded {
    /// The part that held the most bytes when the budget was exceeded.
    pub largest: MemoryPart,
    /// Bytes held by every growing part together.
    pub bytes: u64,
    /// The budget.
    pub limit: u64,
    /// Simulated time at which the check found it.
    pub at: Time,
    /// Whether the network alone exceeded the budget, and the run was refused before it
    /// was built (`setup_part`).
    pub before_build: bool,
}

impl fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the run's memory reached {} at {:.6} s simulated, over its budget of {}: mostly {} ({}, {})",
            human_bytes(self.bytes),
            self.at.as_ns() as f64 / NS_PER_SEC as f64,
            human_bytes(self.limit),
            self.largest.what,
            human_bytes(self.largest.bytes),
            self.largest.detail,
        )
    }
}

/// Why a watched run stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The growing parts of the run went over the memory budget.
    Budget(BudgetExceeded),
    /// The progress callback asked the run to stop.
    Interrupted,
}

/// Returns `bytes` for people: `512 B`, `3.4 MB`, `1.2 GB` (decimal units).
fn human_bytes(bytes: u64) -> String {
    let units = [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    for (name, scale) in units {
        if bytes as f64 >= scale {
            return format!("{:.1} {name}", bytes as f64 / scale);
        }
    }
    format!("{bytes} B")
}

/// Returns `count` for people: `950`, `12.3 k`, `4.2 M`.
fn human_count(count: u64) -> String {
    match count {
        c if c >= 1_000_000 => format!("{:.1} M", c as f64 / 1e6),
        c if c >= 1_000 => format!("{:.1} k", c as f64 / 1e3),
        c => c.to_string(),
    }
}

/// Bytes of one row of each sampled series (the sum of its columns' element sizes).
const QUEUE_ROW_BYTES: u64 = (size_of::<f64>() + size_of::<u32>() + 4 * size_of::<u64>()) as u64;
const TCP_ROW_BYTES: u64 = (2 * size_of::<f64>() + 3 * size_of::<u32>() + size_of::<u64>() + size_of::<bool>()) as u64;
/// One row of the qdisc-internals series (`[sampling] qdisc`).
const QDISC_ROW_BYTES: u64 = (2 * size_of::<f64>() + size_of::<u32>() + size_of::<&str>() + size_of::<i64>()) as u64;
const EVENT_ROW_BYTES: u64 = (size_of::<f64>() + size_of::<u32>() + size_of::<&str>() + size_of::<u64>()) as u64;

/// The set-up memory a link brings, counted by the budget: its `Link` and port, the delay
/// line's and the FIFO's rings at their first size, the histogram groups its port touches,
/// and its share of the hosts and their routes. Measured, not summed from the structures:
/// about 27 KiB per flow of the dumbbell, four links each (docs/performance.md, "Many flows").
pub const LINK_SETUP_BYTES: u64 = 6 * 1024;

/// Returns the set-up part of a run of `cfg` (its links, [`LINK_SETUP_BYTES`] each), known
/// before it is built: a run whose set-up alone exceeds its budget is refused before it is.
pub fn setup_part(cfg: &crate::config::RunConfig) -> MemoryPart {
    MemoryPart {
        what: "links, their ports and hosts",
        bytes: cfg.links.len() as u64 * LINK_SETUP_BYTES,
        detail: format!(
            "{} links for {} flows, about {} KiB a link",
            human_count(cfg.links.len() as u64),
            human_count(cfg.flows.len() as u64),
            LINK_SETUP_BYTES / 1024
        ),
    }
}

impl Sim {
    /// Returns the bytes held by the run: the set-up part of its links (`setup_part`),
    /// and the parts that grow with it: packets in ports and on links, sampled series rows,
    /// the TCP event log, transfer records, flows and pending events.
    pub fn memory_use(&self) -> MemoryUse {
        let packet = size_of::<Packet>() as u64;
        let propagating = size_of::<(Time, Packet)>() as u64;
        let (mut packet_bytes, mut packets, mut fullest) = (0u64, 0u64, (0u64, 0usize));
        for (i, link) in self.links.iter().enumerate() {
            let (queued, on_link) = (link.port.len_pkts(), link.in_flight());
            packet_bytes += queued * packet + on_link * propagating;
            packets += queued + on_link;
            if queued + on_link > fullest.0 {
                fullest = (queued + on_link, i);
            }
        }
        let s = &self.series;
        let rows = s.queue.t.len() as u64 + s.tcp.t.len() as u64 + s.qdisc.t.len() as u64;
        let series_bytes = s.queue.t.len() as u64 * QUEUE_ROW_BYTES
            + s.tcp.t.len() as u64 * TCP_ROW_BYTES
            + s.qdisc.t.len() as u64 * QDISC_ROW_BYTES;
        let events_logged = s.tcp_events.t.len() as u64;
        let pending = self.q.len() as u64;
        let part = |what, bytes, detail| MemoryPart { what, bytes, detail };
        MemoryUse {
            parts: vec![
                setup_part(&self.cfg),
                part(
                    "packets queued or propagating on links",
                    packet_bytes,
                    if packets == 0 {
                        "none".into()
                    } else {
                        format!(
                            "{} packets; link {} holds {}",
                            human_count(packets),
                            self.cfg.links[fullest.1].name,
                            human_count(fullest.0)
                        )
                    },
                ),
                part(
                    "sampled series rows",
                    series_bytes,
                    format!(
                        "{} rows, one per link, flow or qdisc variable every {} ns of sampling.interval",
                        human_count(rows),
                        self.sample_interval.as_ns()
                    ),
                ),
                part(
                    "TCP event log rows",
                    events_logged * EVENT_ROW_BYTES,
                    format!("{} events logged (sampling.tcp_events)", human_count(events_logged)),
                ),
                part(
                    "transfer records",
                    self.transfers.len() as u64 * size_of::<TransferRec>() as u64,
                    format!("{} finite transfers", human_count(self.transfers.len() as u64)),
                ),
                part(
                    "flows and connections",
                    self.flows.len() as u64 * size_of::<Flow>() as u64,
                    format!(
                        "{} flows, connections opened by applications included",
                        human_count(self.flows.len() as u64)
                    ),
                ),
                part(
                    "pending events",
                    pending * (size_of::<u128>() + size_of::<Event>()) as u64,
                    format!("{} events", human_count(pending)),
                ),
            ],
        }
    }

    /// Runs every event before the end time, like [`Sim::run`], checking every
    /// `watch.check_every` events that the growing parts of the run stay within
    /// `watch.memory_limit_bytes` and handing `on_check` the run's [`Progress`].
    ///
    /// The results of a run that finishes are those of [`Sim::run`]: watching only reads.
    ///
    /// # Errors
    /// [`Stop::Budget`] when the budget is exceeded, [`Stop::Interrupted`] when `on_check`
    /// returns `ControlFlow::Break`. The simulation stops at that event; its partial state
    /// is left as it is.
    pub fn run_watched(
        &mut self,
        watch: Watch,
        on_check: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
    ) -> Result<(), Stop> {
        // The caller's check is cheap and comes every `check_every` events, whatever the
        // network's size (a run of 10^5 flows would otherwise report nothing for seconds); the
        // memory sum visits every link, so it comes at most every 64 events per link.
        let every = watch.check_every.max(1);
        let memory_every = every.max(64 * self.links.len() as u64);
        let (mut since_memory, mut bytes) = (memory_every, 0);
        loop {
            for _ in 0..every {
                if !self.step() {
                    self.conclude();
                    return Ok(());
                }
            }
            since_memory += every;
            if since_memory >= memory_every {
                since_memory = 0;
                let memory = self.memory_use();
                bytes = memory.total();
                if bytes > watch.memory_limit_bytes {
                    let largest = memory.largest().clone();
                    return Err(Stop::Budget(BudgetExceeded {
                        largest,
                        bytes,
                        limit: watch.memory_limit_bytes,
                        at: self.now(),
                        before_build: false,
                    }));
                }
            }
            let progress = Progress { now: self.now(), end: self.end, events: self.events(), memory_bytes: bytes };
            if on_check(&progress).is_break() {
                return Err(Stop::Interrupted);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RunConfig, SourceConfig};
    use crate::qdisc::{FifoParams, QdiscConfig};
    use crate::scenario::{Dumbbell, FlowGroup};
    use crate::tcp::TcpConfig;

    const SECOND: u64 = NS_PER_SEC;

    /// A 10 Mb/s dumbbell with `flows` NewReno flows, run for `seconds`.
    fn dumbbell(flows: usize, seconds: u64) -> RunConfig {
        let qdisc = QdiscConfig::Fifo(FifoParams { limit_pkts: Some(100), limit_bytes: None });
        let groups = vec![FlowGroup::bulk("bulk", flows, 10_000_000, TcpConfig::default())];
        Dumbbell { rate_bps: 10_000_000, delay_ns: 5_000_000, loss: 0.0, qdisc, groups }.config(1, seconds * SECOND, 0)
    }

    /// One UDP source at `rate_bps` into a dumbbell whose every FIFO never drops.
    fn flood(rate_bps: u64) -> RunConfig {
        let mut group = FlowGroup::bulk("flood", 1, 0, TcpConfig::default());
        group.source = SourceConfig::UdpCbr { rate_bps, packet_bytes: 1500, stop_ns: None };
        let qdisc = QdiscConfig::Fifo(FifoParams::default());
        Dumbbell { rate_bps: 10_000_000, delay_ns: 5_000_000, loss: 0.0, qdisc, groups: vec![group] }.config(
            1,
            10 * SECOND,
            0,
        )
    }

    fn go_on(_: &Progress) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    #[test]
    fn a_flood_into_an_unlimited_fifo_stops_at_the_budget_naming_the_link() {
        let mut sim = Sim::new(&flood(1_000_000_000_000)).unwrap();
        let limit = 20_000_000;
        let Err(Stop::Budget(e)) = sim.run_watched(Watch { memory_limit_bytes: limit, ..Watch::default() }, &mut go_on)
        else {
            panic!("the budget did not stop the run")
        };
        assert_eq!(e.largest.what, "packets queued or propagating on links");
        assert!(e.bytes > limit && e.bytes < limit + limit / 10, "{} bytes: checks too far apart", e.bytes);
        assert!(e.largest.detail.contains("link "), "{}", e.largest.detail);
        assert!(sim.now() < Time::from_ns(SECOND), "stopped late, at {}", sim.now());
        let text = e.to_string();
        assert!(text.contains("over its budget of 20.0 MB"), "{text}");
    }

    #[test]
    fn a_watched_run_checks_the_configuration_first_even_one_too_large_for_its_budget() {
        // The binding parses without checking (`RunConfig::parse_json`): the run checks, and
        // a bad value is named before the budget's refusal of the network it describes.
        let mut cfg = dumbbell(2000, 1);
        cfg.links[3].rate_bps = 0;
        let Err(super::super::RunError::Config(e)) =
            super::super::run_watched(cfg, Watch { memory_limit_bytes: 10_000_000, ..Watch::default() }, &mut |_| {
                ControlFlow::Continue(())
            })
        else {
            panic!("the bad rate was not refused")
        };
        assert_eq!(e.key, "links[3].rate_bps");
    }

    #[test]
    fn a_network_too_large_for_the_budget_is_refused_before_it_is_built() {
        // 2000 flows: 8 004 links, about 48 MiB of set-up against a 10 MB budget.
        let cfg = dumbbell(2000, 1);
        let mut checked = 0;
        let Err(super::super::RunError::Stopped(Stop::Budget(e))) = super::super::run_watched(
            cfg.clone(),
            Watch { memory_limit_bytes: 10_000_000, ..Watch::default() },
            &mut |_| {
                checked += 1;
                ControlFlow::Continue(())
            },
        ) else {
            panic!("the set-up was not refused")
        };
        assert_eq!(
            (e.largest.what, e.at, e.before_build, checked),
            ("links, their ports and hosts", Time::ZERO, true, 0)
        );
        assert_eq!(e.bytes, cfg.links.len() as u64 * LINK_SETUP_BYTES);
        assert!(e.largest.detail.contains("for 2.0 k flows"), "{}", e.largest.detail);
        // The same network within a budget runs, its set-up counted in every check.
        let mut sim = Sim::new(&dumbbell(2, 1)).unwrap();
        assert_eq!(sim.memory_use().parts[0].bytes, sim.cfg.links.len() as u64 * LINK_SETUP_BYTES);
        sim.run_watched(Watch { memory_limit_bytes: 10_000_000, ..Watch::default() }, &mut go_on).unwrap();
    }

    /// A check (the caller's) comes every `check_every` events even where the memory sum,
    /// spaced by the links, comes far less often.
    #[test]
    fn the_caller_is_checked_every_check_every_events_whatever_the_links() {
        let cfg = dumbbell(200, 2);
        let links = cfg.links.len() as u64;
        let mut sim = Sim::new(&cfg).unwrap();
        let mut seen: Vec<Progress> = Vec::new();
        sim.run_watched(Watch { check_every: 1000, ..Watch::default() }, &mut |p| {
            seen.push(*p);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(
            64 * links > 1000 && seen.len() as u64 >= sim.events() / 1000 - 1,
            "{} checks, {} events",
            seen.len(),
            sim.events()
        );
        assert!(seen.windows(2).all(|w| w[1].events - w[0].events == 1000));
    }

    #[test]
    fn a_nanosecond_sampling_interval_stops_at_the_budget_naming_the_series() {
        let mut cfg = dumbbell(2, 10);
        cfg.sampling.interval_ns = 1;
        cfg.sampling.queues = true;
        let mut sim = Sim::new(&cfg).unwrap();
        let watch = Watch { memory_limit_bytes: 10_000_000, ..Watch::default() };
        let Err(Stop::Budget(e)) = sim.run_watched(watch, &mut go_on) else {
            panic!("the budget did not stop the run")
        };
        assert_eq!(e.largest.what, "sampled series rows");
        assert!(e.largest.detail.contains("every 1 ns"), "{}", e.largest.detail);
    }

    #[test]
    fn a_watched_run_gives_the_results_of_an_unwatched_one_and_reports_progress() {
        let cfg = dumbbell(4, 3);
        let mut plain = Sim::new(&cfg).unwrap();
        plain.run();
        let mut watched = Sim::new(&cfg).unwrap();
        let mut seen: Vec<Progress> = Vec::new();
        watched
            .run_watched(Watch { check_every: 1000, ..Watch::default() }, &mut |p| {
                seen.push(*p);
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(plain.results(), watched.results());
        assert!(seen.len() > 10, "{} progress reports", seen.len());
        assert!(seen.windows(2).all(|w| w[0].now <= w[1].now && w[0].events < w[1].events));
        assert!(seen.iter().all(|p| p.end == Time::from_ns(3 * SECOND) && p.now < p.end));
    }

    #[test]
    fn a_callback_can_stop_the_run() {
        let cfg = dumbbell(4, 3);
        let mut sim = Sim::new(&cfg).unwrap();
        let mut checks = 0;
        let stopped = sim.run_watched(Watch { check_every: 100, ..Watch::default() }, &mut |_| {
            checks += 1;
            if checks == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(stopped, Err(Stop::Interrupted));
        assert!(sim.now() < Time::from_ns(3 * SECOND));
    }
}
