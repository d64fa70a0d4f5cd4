//! Building a [`Sim`] from a validated configuration.

use std::collections::BTreeMap;

use rand::Rng;

use super::{Endpoints, Flow, FlowAcc, Sim};
use crate::config::{RunConfig, SourceConfig};
use crate::error::ConfigError;
use crate::event::{Event, EventQueue, FlowTimer};
use crate::net::{Link, Port, Routes, NO_ROUTE};
use crate::outbox::Outbox;
use crate::packet::NodeId;
use crate::results::Series;
use crate::rng;
use crate::stats::Histogram;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::{Duration, Rate, Time};
use crate::traffic::CbrSource;

impl Sim {
    /// Validates `cfg` and builds the simulation, with every flow's start scheduled.
    ///
    /// # Errors
    /// A value out of range, an unknown node name, or a flow whose source cannot reach its
    /// destination (or whose destination cannot reach the source, for ACKs).
    pub fn new(cfg: &RunConfig) -> Result<Sim, ConfigError> {
        cfg.validate()?;
        let node_id: BTreeMap<&str, NodeId> =
            cfg.nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i as NodeId)).collect();
        let id = |n: &str| node_id[n];

        let links: Vec<Link> = cfg
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let port = Port::new(l.qdisc.on_link(l.rate_bps).build(), rng::stream(cfg.seed, "qdisc", i as u64));
                Link::new(
                    id(&l.from),
                    id(&l.to),
                    Rate::from_bps(l.rate_bps),
                    Duration::from_ns(l.delay_ns),
                    l.loss,
                    rng::stream(cfg.seed, "link_loss", i as u64),
                    port,
                )
            })
            .collect();

        let mut endpoints: Vec<NodeId> = Vec::new();
        for f in &cfg.flows {
            endpoints.push(id(&f.dst));
            endpoints.push(id(&f.src));
        }
        let edges: Vec<(NodeId, NodeId, u32)> = cfg.links.iter().map(|l| (id(&l.from), id(&l.to), l.metric)).collect();
        let routes = Routes::build(cfg.nodes.len(), &edges, &endpoints);

        let mut group_index: BTreeMap<&str, u32> = BTreeMap::new();
        for f in &cfg.flows {
            let n = group_index.len() as u32;
            group_index.entry(f.group.as_str()).or_insert(n);
        }
        let mut group_names = vec![String::new(); group_index.len()];
        for (name, &i) in &group_index {
            group_names[i as usize] = name.to_string();
        }

        let mut q = EventQueue::new();
        // The window opens before anything else that happens at the same instant.
        q.schedule(Time::from_ns(cfg.warmup_ns), Event::WarmupEnd);
        let sample_interval = Duration::from_ns(cfg.sampling.interval_ns);
        if sample_interval > Duration::ZERO {
            q.schedule(Time::ZERO, Event::Sample);
        }

        let mut flows = Vec::with_capacity(cfg.flows.len());
        let mut transfers = Vec::new();
        let mut barriers: Vec<super::apps::Barrier> = Vec::new();
        let mut barrier_index: BTreeMap<&str, u32> = BTreeMap::new();
        for (i, f) in cfg.flows.iter().enumerate() {
            let (src, dst) = (id(&f.src), id(&f.dst));
            for (a, b, key) in [(src, dst, "dst"), (dst, src, "src")] {
                if !reaches(&routes, a, b) {
                    return Err(ConfigError::new(
                        format!("flows[{i}].{key}"),
                        if key == "dst" { &f.dst } else { &f.src },
                        format!(
                            "a node reachable over the links from `{}` (no path exists)",
                            if key == "dst" { &f.src } else { &f.dst }
                        ),
                    ));
                }
            }
            let jitter = if f.start_jitter_ns > 0 {
                rng::stream(cfg.seed, "flow_start", i as u64).random_range(0..f.start_jitter_ns)
            } else {
                0
            };
            let start = Time::from_ns(f.start_ns + jitter);
            let group = group_index[f.group.as_str()];
            let class = f.user.unwrap_or(group);
            let fid = i as u32;
            let mut transfer = None;
            let mut barrier = None;
            let ep = match &f.source {
                SourceConfig::Tcp { size_bytes, tcp, repeat } => {
                    if let Some(size) = size_bytes {
                        transfer = Some(transfers.len() as u32);
                        transfers.push(super::apps::TransferRec {
                            root: fid,
                            round: 0,
                            start,
                            size: *size,
                            done: None,
                        });
                    }
                    if let Some(r) = repeat {
                        let next = barriers.len() as u32;
                        let b = *barrier_index.entry(r.barrier.as_str()).or_insert(next);
                        if b == next {
                            barriers.push(super::apps::Barrier {
                                members: vec![],
                                outstanding: 0,
                                round: 0,
                                rounds: r.rounds,
                                think: Duration::from_ns(r.think_ns),
                                persistent: r.persistent,
                            });
                        }
                        barriers[b as usize].members.push(fid);
                        barriers[b as usize].outstanding += 1;
                        barrier = Some(b);
                    }
                    Endpoints::Tcp {
                        snd: TcpSender::new(fid, class, src, dst, tcp, *size_bytes),
                        rcv: TcpReceiver::new(fid, class, dst, src, tcp, *size_bytes),
                    }
                }
                SourceConfig::ShortFlows { arrival_rate_per_s, size_min_bytes, size_max_bytes, tcp, stop_ns } => {
                    Endpoints::Generator(super::apps::ShortFlowGen {
                        rng: rng::stream(cfg.seed, "short_flows", i as u64),
                        inter_arrival: rand_distr::Exp::new(*arrival_rate_per_s).expect("validated rate > 0"),
                        size_min: *size_min_bytes,
                        size_max: *size_max_bytes,
                        stop: Time::from_ns(stop_ns.unwrap_or(cfg.duration_ns)),
                        tcp: tcp.clone(),
                    })
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
            if start.as_ns() < cfg.duration_ns {
                q.schedule(start, Event::Flow(fid, FlowTimer::Start));
            }
            flows.push(Flow {
                src,
                dst,
                group,
                class,
                start,
                ep,
                acc: FlowAcc::default(),
                root: fid,
                transfer,
                barrier,
            });
        }

        Ok(Sim {
            cfg: cfg.clone(),
            q,
            links,
            routes,
            flows,
            group_delay: vec![Histogram::new(); group_names.len()],
            group_names,
            out: Outbox::default(),
            warmup: Time::from_ns(cfg.warmup_ns),
            end: Time::from_ns(cfg.duration_ns),
            in_window: false,
            sample_interval,
            series: Series::default(),
            packets_forwarded: 0,
            finished: false,
            transfers,
            barriers,
        })
    }
}

/// Returns whether packets from `a` reach `b` by following the tables hop by hop.
fn reaches(routes: &Routes, a: NodeId, b: NodeId) -> bool {
    routes.next_link(a, b) != NO_ROUTE
}
