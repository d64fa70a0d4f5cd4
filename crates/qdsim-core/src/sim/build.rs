//! Building a [`Sim`] from a validated configuration, in named steps: nodes, links, routes,
//! flow groups, the first events, then each flow's endpoints.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use rand::Rng;

use super::apps::{Barrier, OnOff, ShortFlowGen, SizeDraw, TransferRec};
use super::capture::Capture;
use super::record::PacketRecord;
use super::{Endpoints, Flow, FlowAcc, Sim, READ_AHEAD_LINKS};
use crate::config::{FirstBurst, FlowConfig, PacketSizeLaw, RunConfig, SourceConfig};
use crate::error::ConfigError;
use crate::event::{Event, EventQueue, FlowTimer};
use crate::net::{HostLine, Link, Port, Routes, NO_ROUTE};
use crate::outbox::Outbox;
use crate::packet::NodeId;
use crate::results::Series;
use crate::rng;
use crate::stats::Histogram;
use crate::tcp::SenderStats;
use crate::time::{Duration, Rate, Time};
use crate::traffic::{CbrSource, PacketSizes, PoissonSource};

/// Node ids by name: looked up once per link end and flow end, never iterated (a hash map:
/// with 10⁴ flows an ordered map's string comparisons were a third of the set-up; rustc's
/// fast hash, as [`crate::config::Names`]).
type NodeIds<'a> = FxHashMap<&'a str, NodeId>;

impl Sim {
    /// Validates `cfg` and builds the simulation, with every flow's start scheduled.
    ///
    /// # Errors
    /// A value out of range, an unknown node name, or a flow whose source cannot reach its
    /// destination (or whose destination cannot reach the source, for ACKs).
    pub fn new(cfg: &RunConfig) -> Result<Sim, ConfigError> {
        cfg.validate()?;
        Sim::build(cfg.clone())
    }

    /// Builds the simulation of a configuration already validated
    /// ([`RunConfig::validate`]), which it keeps for the run; the errors are those only
    /// building finds (an unreachable destination, a capture file that cannot be opened).
    pub(super) fn build(cfg: RunConfig) -> Result<Sim, ConfigError> {
        let ids: NodeIds = cfg.nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i as NodeId)).collect();
        let mut links = build_links(&cfg, &ids);
        let hosts = build_hosts(&cfg, &ids);
        let routes = build_routes(&cfg, &ids);
        let (group_index, group_names) = flow_groups(&cfg);
        let mut q = first_events(&cfg);
        let mut apps = Apps::default();
        let mut flows = Vec::with_capacity(cfg.flows.len());
        for (i, f) in cfg.flows.iter().enumerate() {
            for (j, (src, dst)) in f.endpoints().enumerate() {
                check_reachable(&routes, i, j, (src, dst), (ids[src], ids[dst]))?;
            }
            let (src, dst) = (ids[f.src.as_str()], ids[f.dst.as_str()]);
            let start = start_time(&cfg, i, f);
            let group = group_index[f.group.as_str()];
            let flow = apps.flow(&cfg, &ids, i as u32, f, (src, dst), group, start);
            // The flow's own start: an on-off source may begin with an idle time.
            if flow.start.as_ns() < cfg.duration_ns {
                q.schedule(flow.start, Event::Flow(i as u32, FlowTimer::Start));
            }
            flows.push(flow);
        }
        let tcp_sampled = tcp_sampled(&cfg, &group_names);
        let ends: Vec<(NodeId, NodeId)> = links.iter().map(|l| (l.from, l.to)).collect();
        let capture = cfg.pcap.as_ref().map(|p| Capture::open(p, &cfg, &ends)).transpose()?;
        // A link whose transmission ends are read — captured, or the packet record's — needs
        // an event at every end; the others may end a transmission without one.
        let recorded = cfg
            .sampling
            .packets
            .as_ref()
            .map(|p| cfg.links.iter().position(|l| l.name == p.link).expect("validated link name"));
        for (i, link) in links.iter_mut().enumerate() {
            let watched = capture.as_ref().is_some_and(|c| c.taps(i as u32)) || recorded == Some(i);
            link.allow_early_ends(!watched);
        }
        let mut sim = Sim {
            q,
            read_ahead: links.len() >= READ_AHEAD_LINKS,
            waits: Default::default(),
            links,
            any_host_delay: hosts.iter().any(HostLine::is_active),
            hosts,
            routes,
            flows,
            group_delay: vec![Histogram::new(); group_names.len()],
            group_names,
            out: Outbox::default(),
            warmup: Time::from_ns(cfg.warmup_ns),
            end: Time::from_ns(cfg.duration_ns),
            in_window: false,
            sample_interval: Duration::from_ns(cfg.sampling.interval_ns),
            series: Series::default(),
            packets_forwarded: 0,
            finished: false,
            transfers: apps.transfers,
            barriers: apps.barriers,
            stats_at_warmup: vec![SenderStats::default(); cfg.flows.len()],
            on_offs: apps.on_offs,
            tcp_sampled,
            tx_bytes_at_sample: vec![0; cfg.links.len()],
            sojourn_at_sample: vec![(0, 0); cfg.links.len()],
            reasons_at_sample: Vec::new(),
            record: cfg
                .sampling
                .packets
                .as_ref()
                .zip(recorded)
                .map(|(p, l)| PacketRecord::new(l as u32, p, Time::from_ns(cfg.duration_ns))),
            capture,
            // Last: every field above reads it.
            cfg,
        };
        sim.record_waits_in_batches(true);
        Ok(sim)
    }
}

/// Returns every link with its qdisc, each with its own random streams (`qdisc`, `link_loss`).
fn build_links(cfg: &RunConfig, ids: &NodeIds) -> Vec<Link> {
    // The links whose waits' distribution is kept (`sampling.link_delays`; all without it).
    let kept: Option<std::collections::HashSet<&str>> =
        cfg.sampling.link_delays.as_ref().map(|names| names.iter().map(String::as_str).collect());
    cfg.links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut port = Port::new(l.qdisc.on_link(l.rate_bps).build(), rng::stream(cfg.seed, "qdisc", i as u64));
            port.keep_waits(kept.as_ref().is_none_or(|names| names.contains(l.name.as_str())));
            Link::new(
                ids[l.from.as_str()],
                ids[l.to.as_str()],
                Rate::from_bps(l.rate_bps),
                Duration::from_ns(l.delay_ns),
                l.loss,
                rng::stream(cfg.seed, "link_loss", i as u64),
                port,
            )
        })
        .collect()
}

/// Returns every node's processing-delay line, each host of `cfg.hosts` with its own random
/// stream (`host_jitter`, the node's index); the others never delay.
fn build_hosts(cfg: &RunConfig, ids: &NodeIds) -> Vec<HostLine> {
    let mut jitter = vec![0; cfg.nodes.len()];
    for h in &cfg.hosts {
        jitter[ids[h.node.as_str()] as usize] = h.jitter_ns;
    }
    jitter
        .into_iter()
        .enumerate()
        .map(|(n, j)| HostLine::new(Duration::from_ns(j), rng::stream(cfg.seed, "host_jitter", n as u64)))
        .collect()
}

/// Returns whether each flow group's TCP state is sampled: those `sampling.tcp_groups`
/// lists, or every group.
fn tcp_sampled(cfg: &RunConfig, group_names: &[String]) -> Vec<bool> {
    group_names.iter().map(|g| cfg.sampling.tcp_groups.as_ref().is_none_or(|list| list.contains(g))).collect()
}

/// Returns the routing tables between the flows' endpoints.
fn build_routes(cfg: &RunConfig, ids: &NodeIds) -> Routes {
    let mut endpoints: Vec<NodeId> = Vec::new();
    for f in &cfg.flows {
        for (src, dst) in f.endpoints() {
            endpoints.push(ids[dst]);
            endpoints.push(ids[src]);
        }
    }
    let edges: Vec<(NodeId, NodeId, u32)> =
        cfg.links.iter().map(|l| (ids[l.from.as_str()], ids[l.to.as_str()], l.metric)).collect();
    Routes::build(cfg.nodes.len(), &edges, &endpoints)
}

/// Returns the flow groups' indices by name (in order of first appearance) and their names.
fn flow_groups(cfg: &RunConfig) -> (BTreeMap<&str, u32>, Vec<String>) {
    let mut index: BTreeMap<&str, u32> = BTreeMap::new();
    for f in &cfg.flows {
        let n = index.len() as u32;
        index.entry(f.group.as_str()).or_insert(n);
    }
    let mut names = vec![String::new(); index.len()];
    for (name, &i) in &index {
        names[i as usize] = name.to_string();
    }
    (index, names)
}

/// A full-size packet, for sizing the event queue's buckets by the links' packet rates (an
/// estimate: the width decides only speed, never the order of events).
const FULL_PACKET_BITS: f64 = 1500.0 * 8.0;

/// Returns the event queue with the run's own first events: the window opens before
/// anything else that happens at the same instant, then the first sample. Its calendar is
/// sized for the packets all the links could carry ([`EventQueue::for_capacity`]).
fn first_events(cfg: &RunConfig) -> EventQueue {
    let capacity_bps: f64 = cfg.links.iter().map(|l| l.rate_bps as f64).sum();
    let mut q = EventQueue::for_capacity(capacity_bps / FULL_PACKET_BITS);
    q.schedule(Time::from_ns(cfg.warmup_ns), Event::WarmupEnd);
    if cfg.sampling.interval_ns > 0 {
        q.schedule(Time::ZERO, Event::Sample);
    }
    q
}

/// Checks that endpoint pair `j` of flow `i` (0: the flow's own `src` and `dst`, then its
/// transfer pool's) has a path both ways (data and ACKs).
fn check_reachable(
    routes: &Routes,
    i: usize,
    j: usize,
    names: (&str, &str),
    (src, dst): (NodeId, NodeId),
) -> Result<(), ConfigError> {
    let at = if j == 0 { format!("flows[{i}]") } else { format!("flows[{i}].source.hosts[{}]", j - 1) };
    for (a, b, key) in [(src, dst, "dst"), (dst, src, "src")] {
        if routes.next_link(a, b) == NO_ROUTE {
            let (bad, from) = if key == "dst" { (names.1, names.0) } else { (names.0, names.1) };
            return Err(ConfigError::new(
                format!("{at}.{key}"),
                bad,
                format!("a node reachable over the links from `{from}` (no path exists)"),
            ));
        }
    }
    Ok(())
}

/// Returns flow `i`'s start: `start_ns` plus its jitter from the `flow_start` stream.
fn start_time(cfg: &RunConfig, i: usize, f: &FlowConfig) -> Time {
    let jitter = if f.start_jitter_ns > 0 {
        rng::stream(cfg.seed, "flow_start", i as u64).random_range(0..f.start_jitter_ns)
    } else {
        0
    };
    Time::from_ns(f.start_ns + jitter)
}

/// The application state collected while building flows: finite transfers, the barriers
/// of repeated ones, and on-off sources.
#[derive(Default)]
struct Apps<'a> {
    transfers: Vec<TransferRec>,
    barriers: Vec<Barrier>,
    barrier_index: BTreeMap<&'a str, u32>,
    on_offs: Vec<OnOff>,
}

impl<'a> Apps<'a> {
    /// Returns configured flow `fid` (`f`, between nodes `(src, dst)`, starting at `start`)
    /// with its endpoints, registering its transfer, barrier or on-off source.
    #[allow(clippy::too_many_arguments)] // the flow's coordinates, each needed once
    fn flow(
        &mut self,
        cfg: &RunConfig,
        ids: &NodeIds,
        fid: u32,
        f: &'a FlowConfig,
        (src, dst): (NodeId, NodeId),
        group: u32,
        mut start: Time,
    ) -> Flow {
        let class = f.user.unwrap_or(group);
        let mut transfer = None;
        let mut barrier = None;
        let mut on_off = None;
        let ep = match &f.source {
            SourceConfig::Tcp { size_bytes, tcp, repeat } => {
                if let Some(size) = size_bytes {
                    transfer = Some(self.transfers.len() as u32);
                    self.transfers.push(TransferRec { root: fid, round: 0, start, size: *size, done: None });
                }
                if let Some(r) = repeat {
                    let next = self.barriers.len() as u32;
                    let b = *self.barrier_index.entry(r.barrier.as_str()).or_insert(next);
                    if b == next {
                        self.barriers.push(Barrier {
                            members: vec![],
                            outstanding: 0,
                            round: 0,
                            rounds: r.rounds,
                            think: Duration::from_ns(r.think_ns),
                            persistent: r.persistent,
                        });
                    }
                    self.barriers[b as usize].members.push(fid);
                    self.barriers[b as usize].outstanding += 1;
                    barrier = Some(b);
                }
                Endpoints::tcp(cfg.seed, fid, class, src, dst, tcp, *size_bytes)
            }
            SourceConfig::ShortFlows {
                arrival_rate_per_s,
                size_min_bytes,
                size_max_bytes,
                sizes,
                tcp,
                stop_ns,
                hosts,
            } => Endpoints::Generator(ShortFlowGen::new(
                rng::stream(cfg.seed, "short_flows", fid as u64),
                *arrival_rate_per_s,
                sizes.map_or(SizeDraw::Uniform { min: *size_min_bytes, max: *size_max_bytes }, SizeDraw::Law),
                Time::from_ns(stop_ns.unwrap_or(cfg.duration_ns)),
                tcp.clone(),
                hosts.iter().map(|h| (ids[h.src.as_str()], ids[h.dst.as_str()])).collect(),
            )),
            SourceConfig::OnOff { idle_ns, first_burst, tcp, .. } => {
                let size = f.source.burst_bytes().expect("an on-off source has a burst size");
                let mut app = OnOff::new(cfg.seed, fid, size, Duration::from_ns(*idle_ns));
                if *first_burst == FirstBurst::Idle {
                    start += app.idle_time();
                }
                // The first burst is handed to TCP when the connection starts.
                app.bursts = 1;
                if start.as_ns() < cfg.duration_ns {
                    transfer = Some(self.transfers.len() as u32);
                    self.transfers.push(TransferRec { root: fid, round: 0, start, size, done: None });
                }
                on_off = Some(self.on_offs.len() as u32);
                self.on_offs.push(app);
                Endpoints::tcp(cfg.seed, fid, class, src, dst, tcp, Some(size))
            }
            SourceConfig::PoissonPackets {
                rate_bps,
                packet_bytes,
                size_distribution,
                min_packet_bytes,
                max_packet_bytes,
                stop_ns,
            } => {
                let sizes = match size_distribution {
                    PacketSizeLaw::Fixed => PacketSizes::Fixed(*packet_bytes),
                    PacketSizeLaw::Exponential => PacketSizes::Exponential {
                        mean: *packet_bytes as f64,
                        min: *min_packet_bytes,
                        max: *max_packet_bytes,
                    },
                };
                Endpoints::Poisson {
                    src: PoissonSource::new(
                        fid,
                        class,
                        (src, dst),
                        *rate_bps,
                        sizes,
                        Time::from_ns(stop_ns.unwrap_or(cfg.duration_ns)),
                        rng::stream(cfg.seed, "poisson_packets", fid as u64),
                    ),
                }
            }
            SourceConfig::UdpCbr { rate_bps, packet_bytes, stop_ns } => Endpoints::Cbr {
                src: CbrSource::new(
                    fid,
                    class,
                    src,
                    dst,
                    *rate_bps,
                    *packet_bytes,
                    Time::from_ns(stop_ns.unwrap_or(cfg.duration_ns)),
                ),
            },
        };
        Flow { src, dst, group, class, start, ep, acc: FlowAcc::default(), root: fid, transfer, barrier, on_off }
    }
}
