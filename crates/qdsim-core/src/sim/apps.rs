//! Applications that open TCP connections while the run goes on: repeated synchronised
//! transfers (incast / partition-aggregate) and Poisson short-flow generators.
//!
//! A short flow, and a round of a repeated transfer by default, is a fresh connection
//! (initial window, no RTT history); it gets its own flow id (after the configured flows) so
//! its packets find it, and it reports to its *root* — the configured flow it belongs to —
//! which aggregates goodput, drops and delay. A *persistent* repeated transfer instead sends
//! every round over the configured flow's own connection (the next chunk of its byte
//! stream), which keeps its window and RTO between rounds. Every transfer, fresh or a round
//! of a persistent connection, gets a row in the transfer table with its completion time.
//!
//! Memory grows with the number of transfers (a finished connection's state is kept so that
//! late duplicates still find it); a run with 10^5 transfers needs some tens of MB.

use rand::Rng;
use rand_distr::{Distribution, Exp};

use super::{Endpoints, Flow, FlowAcc, Sim};
use crate::event::{Event, FlowTimer};
use crate::rng::StreamRng;
use crate::tcp::TcpConfig;
use crate::time::{Duration, Time};

/// A Poisson generator of finite TCP transfers.
#[derive(Debug)]
pub(crate) struct ShortFlowGen {
    pub rng: StreamRng,
    pub inter_arrival: Exp<f64>,
    pub size_min: u64,
    pub size_max: u64,
    pub stop: Time,
    pub tcp: TcpConfig,
}

/// Flows that wait for one another between rounds.
#[derive(Debug)]
pub(crate) struct Barrier {
    pub members: Vec<u32>,
    pub outstanding: u32,
    pub round: u32,
    pub rounds: Option<u32>,
    pub think: Duration,
    /// Rounds reuse each member's connection instead of opening new ones.
    pub persistent: bool,
}

/// One finite connection's record.
#[derive(Debug, Clone)]
pub(crate) struct TransferRec {
    pub root: u32,
    pub round: u32,
    pub start: Time,
    pub size: u64,
    pub done: Option<Time>,
}

impl Sim {
    /// Opens a new finite connection for `root` at `start`; returns its flow id.
    pub(super) fn spawn_connection(&mut self, root: u32, size: u64, tcp: &TcpConfig, start: Time, round: u32) -> u32 {
        let id = self.flows.len() as u32;
        let r = &self.flows[root as usize];
        let (src, dst, group, class, barrier) = (r.src, r.dst, r.group, r.class, r.barrier);
        let transfer = self.transfers.len() as u32;
        self.transfers.push(TransferRec { root, round, start, size, done: None });
        self.flows.push(Flow {
            src,
            dst,
            group,
            class,
            start,
            ep: Endpoints::tcp(self.cfg.seed, id, class, src, dst, tcp, Some(size)),
            acc: FlowAcc::default(),
            root,
            transfer: Some(transfer),
            barrier,
        });
        self.q.schedule(start, Event::Flow(id, FlowTimer::Start));
        id
    }

    /// A generator's arrival: opens one transfer now and schedules the next arrival.
    pub(super) fn on_generator_arrival(&mut self, f: u32, now: Time) {
        let Endpoints::Generator(g) = &mut self.flows[f as usize].ep else {
            unreachable!("arrival for flow {f}, which is not a generator")
        };
        if now >= g.stop {
            return;
        }
        let size = g.rng.random_range(g.size_min..=g.size_max);
        let gap = Duration::from_secs_f64(g.inter_arrival.sample(&mut g.rng)).max(Duration::from_ns(1));
        let (next, stop, tcp) = (now + gap, g.stop, g.tcp.clone());
        self.spawn_connection(f, size, &tcp, now, 0);
        if next < stop {
            self.q.schedule(next, Event::Flow(f, FlowTimer::Arrival));
        }
    }

    /// Notes that connection `f` delivered its last byte at `now`; starts the next round of
    /// its barrier when it was the last one outstanding.
    pub(super) fn on_transfer_done(&mut self, f: u32, now: Time) {
        let flow = &self.flows[f as usize];
        if let Some(t) = flow.transfer {
            self.transfers[t as usize].done = Some(now);
        }
        let Some(b) = flow.barrier else { return };
        let barrier = &mut self.barriers[b as usize];
        barrier.outstanding -= 1;
        if barrier.outstanding > 0 {
            return;
        }
        barrier.round += 1;
        if barrier.rounds.is_some_and(|n| barrier.round >= n) {
            return;
        }
        barrier.outstanding = barrier.members.len() as u32;
        let (members, round, start) = (barrier.members.clone(), barrier.round, now + barrier.think);
        if barrier.persistent {
            for m in members {
                self.q.schedule(start, Event::Flow(m, FlowTimer::NextRound));
            }
            return;
        }
        for m in members {
            let (size, tcp) = match &self.cfg.flows[m as usize].source {
                crate::config::SourceConfig::Tcp { size_bytes: Some(size), tcp, .. } => (*size, tcp.clone()),
                other => unreachable!("barrier member {m} is {other:?}"),
            };
            self.spawn_connection(m, size, &tcp, start, round);
        }
    }
}

impl Sim {
    /// The next round of persistent connection `f`: its sender gets the next chunk of data
    /// and the round gets a row in the transfer table.
    pub(super) fn next_round(&mut self, f: u32, now: Time) {
        let b = self.flows[f as usize].barrier.expect("a persistent round belongs to a barrier");
        let round = self.barriers[b as usize].round;
        let size = match &self.cfg.flows[f as usize].source {
            crate::config::SourceConfig::Tcp { size_bytes: Some(size), .. } => *size,
            other => unreachable!("persistent round for flow {f} of {other:?}"),
        };
        let transfer = self.transfers.len() as u32;
        self.transfers.push(TransferRec { root: f, round, start: now, size, done: None });
        let mut out = std::mem::take(&mut self.out);
        let flow = &mut self.flows[f as usize];
        flow.transfer = Some(transfer);
        let Endpoints::Tcp { snd, rcv } = &mut flow.ep else {
            unreachable!("persistent round for flow {f}, which is not TCP")
        };
        rcv.write_chunk();
        snd.write_chunk(now, &mut out);
        let src = flow.src;
        self.flush(f, src, out, now);
    }
}
