//! The simulator: builds the network and flows from a [`RunConfig`], runs the event loop
//! and hands back [`RunResults`](crate::RunResults).
//!
//! Lifecycle: [`Sim::new`] (validates and builds; a configuration error is returned, never a
//! panic) → [`Sim::run`] (processes every event before the end time) → [`Sim::results`].
//! Internal invariants (conservation, time monotonicity) are asserted; a violation is a bug
//! and panics with a message naming both sides, which the Python binding turns into an
//! exception.

mod apps;
mod build;
mod capture;
mod record;
mod report;
mod waits;
mod watch;

pub use watch::{BudgetExceeded, MemoryPart, MemoryUse, Progress, Stop, Watch};

use crate::config::RunConfig;
use crate::event::{Event, EventQueue, FlowTimer};
use crate::net::{EarlyEnd, HostLine, Link, Routes, TxOutcome, TxStart, NO_ROUTE};
use crate::outbox::Outbox;
use crate::packet::{NodeId, Packet, PacketKind, SackStore, HEADER_BYTES};
use crate::results::Series;
use crate::stats::Histogram;
use crate::tcp::{SenderStats, TcpConfig, TcpReceiver, TcpSender};
use crate::time::{Duration, Time};
use crate::traffic::{CbrSource, PoissonSource};

/// The endpoints of one flow.
// TCP endpoints dominate (one per flow); boxing them would add a pointer chase to every
// packet delivery to save memory only on the rarer CBR flows and generators.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Endpoints {
    Tcp { snd: TcpSender, rcv: TcpReceiver },
    Cbr { src: CbrSource },
    Poisson { src: PoissonSource },
    Generator(apps::ShortFlowGen),
}

impl Endpoints {
    /// A TCP connection of flow `id` from `src` to `dst` (`size` bytes, or unlimited), its
    /// clock phase (ns-2's `boot_time_`) drawn from the run seed, one stream per connection.
    #[allow(clippy::too_many_arguments)]
    fn tcp(seed: u64, id: u32, class: u32, src: NodeId, dst: NodeId, tcp: &TcpConfig, size: Option<u64>) -> Self {
        let phase = crate::rng::stream_seed(seed, "tcp_clock", id as u64);
        Endpoints::Tcp {
            snd: TcpSender::new(id, class, src, dst, tcp, size).with_clock_phase(tcp, phase),
            rcv: TcpReceiver::new(id, class, dst, src, tcp, size),
        }
    }
}

/// Per-flow accumulators.
#[derive(Debug, Default, Clone)]
pub(crate) struct FlowAcc {
    pub delivered_total: u64,
    pub delivered_at_warmup: u64,
    /// Bytes delivered in the window that had arrived before it, held out of order.
    pub held_before_window: u64,
    pub drops: u64,
    pub drops_at_warmup: u64,
    pub delay_sum_ns: u128,
    pub delay_n: u64,
    pub data_received: u64,
    /// (cwnd, ssthresh) last recorded by on-change sampling.
    pub last_recorded: Option<(u32, u32)>,
}

/// One flow: where it runs, when it starts, its endpoints and statistics.
#[derive(Debug)]
pub(crate) struct Flow {
    pub src: NodeId,
    pub dst: NodeId,
    pub group: u32,
    /// User / class id its packets carry.
    pub class: u32,
    pub start: Time,
    pub ep: Endpoints,
    /// Statistics; for a connection opened by an application, kept by its root instead.
    pub acc: FlowAcc,
    /// The configured flow this one reports to (itself for configured flows).
    pub root: u32,
    /// Its row in the transfer table, for finite TCP connections.
    pub transfer: Option<u32>,
    /// The barrier of a repeated transfer.
    pub barrier: Option<u32>,
    /// The application of an on-off source (its index in `Sim::on_offs`).
    pub on_off: Option<u32>,
}

/// A simulation in progress.
pub struct Sim {
    cfg: RunConfig,
    q: EventQueue,
    links: Vec<Link>,
    /// Each node's processing-delay line (inactive for routers and hosts without delay).
    hosts: Vec<HostLine>,
    /// Whether some node delays what it sends: if none does, a packet an endpoint sends goes
    /// to its link without a look at its host's line (at 10³ flows that look was a
    /// last-level cache miss per packet sent).
    any_host_delay: bool,
    routes: Routes,
    flows: Vec<Flow>,
    group_names: Vec<String>,
    group_delay: Vec<Histogram>,
    out: Outbox,
    warmup: Time,
    end: Time,
    in_window: bool,
    sample_interval: Duration,
    series: Series,
    packets_forwarded: u64,
    finished: bool,
    transfers: Vec<apps::TransferRec>,
    barriers: Vec<apps::Barrier>,
    /// Each configured flow's sender counters when the window opened.
    stats_at_warmup: Vec<SenderStats>,
    on_offs: Vec<apps::OnOff>,
    /// Whether each flow group's TCP state is sampled (`sampling.tcp_groups`).
    tcp_sampled: Vec<bool>,
    /// Each link's transmitted bytes at the previous sample (`sampling.tx_bytes`).
    tx_bytes_at_sample: Vec<u64>,
    /// Each link's departures and summed sojourn at the previous sample.
    sojourn_at_sample: Vec<(u64, u64)>,
    /// Each link's cumulative count of each drop and mark reason at the previous sample
    /// (`sample_reasons`), allocated at the first sample.
    reasons_at_sample: Vec<u64>,
    /// The packet-emission record (`sampling.packets`).
    record: Option<record::PacketRecord>,
    /// The packet capture (`pcap`).
    capture: Option<capture::Capture>,
    /// Whether each event first reads ahead of the next three (`Sim::read_events_ahead`): in
    /// a network of at least [`READ_AHEAD_LINKS`] links.
    read_ahead: bool,
    /// The waits taken from the ports and not yet recorded (`sim/waits.rs`).
    waits: waits::WaitLog,
}

/// The links from which a network's state outgrows the processor's caches, so that reading
/// ahead of the next events pays (`Sim::read_events_ahead`). Measured on the scaled dumbbell (four
/// links a flow; a `Link` is 1.6 KB, with its packets more): at 10⁴ flows −8 to −10 % CPU, at 10³
/// −4 % (the next event's link alone; three events ahead a further 0.86–0.90 at 10⁴, 0.91–0.94
/// at 10³); at 100 flows, whose 400 links stay in the caches, it cost 5 % more instructions and
/// gained nothing, so it is off below this.
pub const READ_AHEAD_LINKS: usize = 2048;

impl Sim {
    /// Returns the current simulated time.
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// Runs every event before the end time.
    pub fn run(&mut self) {
        while self.step() {}
        self.conclude();
    }

    /// Marks the run finished once its last event is handled: the transmissions still ending
    /// without an event end in the books first, as their events would have before the end.
    pub(crate) fn conclude(&mut self) {
        self.end_early_before(self.end);
        self.waits.flush(&mut self.links);
        self.finished = true;
    }

    /// Handles the next event if it comes before the end time; returns whether there was one.
    #[inline]
    fn step(&mut self) -> bool {
        match self.q.peek_time() {
            Some(t) if t < self.end => {
                let (now, ev) = self.q.pop().expect("peeked");
                if self.read_ahead {
                    self.read_events_ahead();
                } else if let Some(l) = self.q.peek_link() {
                    // A small network's links fit the last-level cache, not the second: the
                    // next event's link's first line, asked for (nothing read).
                    crate::hint::prefetch(&self.links[l as usize]);
                }
                self.handle(now, ev);
                true
            }
            _ => false,
        }
    }

    /// Reads ahead of the event about to be handled, once the network outgrows the caches:
    /// each pending event costs a chain of cache misses, each address known only once the
    /// line before it is in — its link, the packet that link will take, then where that packet
    /// goes (the next link, or its endpoint's state). The chain is spread over the next three
    /// events, one link of it per event, so that each line is asked for an event before it is
    /// read:
    /// - the third event's link (or host's processing line) is asked for (nothing read);
    /// - the second event's link or line, asked for an event ago, is read, and the packet it
    ///   will take asked for — an arrival's, the head of the delay line; a transmission's
    ///   end's, the next packet of a FIFO; a host departure's, the head of its line;
    /// - the next event's packet, asked for an event ago, is read: the link it goes on by is
    ///   looked up and asked for, or, at its destination, its endpoint's state.
    ///
    /// Only prefetches and reads: nothing changes. An event this one schedules before those read
    /// makes the reads vain; only the calendar's current bucket (or step) is looked at
    /// ([`EventQueue::peek_event_nth`]).
    #[inline(never)]
    fn read_events_ahead(&self) {
        let q = &self.q;
        match q.peek_event_nth(2) {
            Some(Event::Arrival(l) | Event::TxDone(l)) => self.ask_for_link(l),
            Some(Event::HostDeparture(node)) => crate::hint::prefetch_all(&self.hosts[node as usize]),
            _ => {}
        }
        let next = match q.peek_event_nth(1) {
            Some(Event::Arrival(l)) => self.links[l as usize].delay_head(),
            Some(Event::TxDone(l)) => self.links[l as usize].port.fifo_front(),
            Some(Event::HostDeparture(node)) => self.hosts[node as usize].head(),
            _ => None,
        };
        if let Some(pkt) = next {
            crate::hint::prefetch(pkt);
        }
        match q.peek_event_nth(0) {
            Some(Event::Arrival(l)) => {
                let link = &self.links[l as usize];
                if let Some(pkt) = link.delay_head() {
                    if pkt.dst == link.to {
                        self.prefetch_endpoint(pkt);
                    } else {
                        self.prefetch_onward_link(link.to, pkt.dst);
                    }
                }
            }
            Some(Event::HostDeparture(node)) => {
                if let Some(pkt) = self.hosts[node as usize].head() {
                    self.prefetch_onward_link(node, pkt.dst);
                }
            }
            _ => {}
        }
    }

    /// Asks for the state of the endpoint `pkt` reaches ([`Sim::read_events_ahead`]) and,
    /// where hosts send at once, the link its answer leaves by.
    #[inline]
    fn prefetch_endpoint(&self, pkt: &Packet) {
        let flow = &self.flows[pkt.flow as usize];
        crate::hint::prefetch(flow);
        match &flow.ep {
            Endpoints::Tcp { rcv, .. } if pkt.kind == PacketKind::Data => crate::hint::prefetch_all(rcv),
            Endpoints::Tcp { snd, .. } => crate::hint::prefetch_all(snd),
            _ => {}
        }
        if !self.any_host_delay {
            self.prefetch_onward_link(pkt.dst, pkt.src);
        }
    }

    /// Asks for the link a packet to `dst` leaves `node` by ([`Sim::read_events_ahead`]).
    #[inline]
    fn prefetch_onward_link(&self, node: NodeId, dst: NodeId) {
        let l = self.routes.next_link(node, dst);
        if l != NO_ROUTE {
            self.ask_for_link(l);
        }
    }

    /// Asks for link `l`'s first line and its qdisc's, which an event on it reads first
    /// ([`Sim::read_events_ahead`]); nothing is read.
    #[inline]
    fn ask_for_link(&self, l: u32) {
        let link = &self.links[l as usize];
        crate::hint::prefetch(link);
        crate::hint::prefetch(link.port.qdisc_place());
    }

    /// Runs events up to (not including) `until`; for tests that inspect mid-run state.
    pub fn run_until(&mut self, until: Time) {
        while let Some(t) = self.q.peek_time() {
            if t >= until.min(self.end) {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.handle(now, ev);
        }
        self.end_early_before(until.min(self.end));
        self.waits.flush(&mut self.links);
    }

    /// Ends every early transmission that ends before `t` (a run stopping at `t`: every end
    /// before it would have had its event).
    fn end_early_before(&mut self, t: Time) {
        self.end_early_where(|link| link.end_early_before(t));
    }

    /// Ends every early transmission whose end comes before the event being handled at `now`
    /// (a sample or the warm-up, which read every link's books).
    fn end_early_all(&mut self, now: Time) {
        let seq = self.q.current_seq();
        self.end_early_where(|link| link.end_early_if_due(now, seq));
    }

    /// Ends, on every link, the early transmission `end` ends, counting its packet forwarded.
    fn end_early_where(&mut self, mut end: impl FnMut(&mut Link) -> Option<EarlyEnd>) {
        for link in &mut self.links {
            if let Some(ended) = end(link) {
                self.packets_forwarded += ended.data as u64;
            }
        }
    }

    /// Ends link `l`'s early transmission if its end comes before the event being handled at
    /// `now`, or is that event ([`Link::end_early_if_due`]); returns what ended.
    #[inline]
    fn end_early(&mut self, l: u32, now: Time) -> Option<EarlyEnd> {
        let link = &mut self.links[l as usize];
        if !link.has_early() {
            return None;
        }
        let end = link.end_early_if_due(now, self.q.current_seq())?;
        self.packets_forwarded += end.data as u64;
        Some(end)
    }

    fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::TxDone(l) => self.on_tx_done(l, now),
            Event::Arrival(l) => self.on_arrival(l, now),
            Event::HostDeparture(n) => self.on_host_departure(n, now),
            Event::Flow(f, timer) => self.on_flow_timer(f, timer, now),
            Event::QdiscTimer(l) => {
                self.end_early(l, now);
                self.links[l as usize].port.on_timer(now);
                self.note_drops(l, now);
                self.poll_qdisc_timer(l);
                if self.links[l as usize].is_idle() {
                    self.start_tx(l, now);
                }
            }
            Event::Sample => self.on_sample(now),
            Event::WarmupEnd => self.on_warmup_end(now),
        }
    }

    fn on_flow_timer(&mut self, f: u32, timer: FlowTimer, now: Time) {
        if timer == FlowTimer::NextRound {
            self.next_round(f, now);
            return;
        }
        if timer == FlowTimer::NextBurst {
            self.next_burst(f, now);
            return;
        }
        let out = &mut self.out;
        let flow = &mut self.flows[f as usize];
        let node = match (&mut flow.ep, timer) {
            (Endpoints::Tcp { snd, .. }, FlowTimer::Start) => {
                snd.start(now, out);
                flow.src
            }
            (Endpoints::Tcp { snd, .. }, FlowTimer::Rto(g)) => {
                snd.on_rto_timer(g, now, out);
                flow.src
            }
            (Endpoints::Tcp { rcv, .. }, FlowTimer::DelayedAck(g)) => {
                rcv.on_delack_timer(g, now, out);
                flow.dst
            }
            (Endpoints::Cbr { src }, FlowTimer::Start | FlowTimer::CbrSend) => {
                src.on_send_timer(now, out);
                flow.src
            }
            (Endpoints::Poisson { src }, FlowTimer::Start) => {
                src.start(now, out);
                flow.src
            }
            (Endpoints::Poisson { src }, FlowTimer::PoissonSend) => {
                src.on_send_timer(now, out);
                flow.src
            }
            (Endpoints::Generator(_), FlowTimer::Start | FlowTimer::Arrival) => {
                self.on_generator_arrival(f, now);
                return;
            }
            (ep, t) => unreachable!("timer {t:?} for flow {f} of kind {ep:?}"),
        };
        self.flush(f, node, now);
    }

    /// Sends what an endpoint of flow `f` at `node` produced (`self.out`, written in place:
    /// taking the outbox out of `Sim` and moving it back cost 2 % of a run's instructions) and
    /// schedules its timers.
    fn flush(&mut self, f: u32, node: NodeId, now: Time) {
        if !self.out.events.is_empty() {
            if self.cfg.sampling.tcp_events {
                let log = &mut self.series.tcp_events;
                for &(kind, seq) in &self.out.events {
                    log.t.push(now.as_secs_f64());
                    log.flow.push(f);
                    log.kind.push(kind);
                    log.seq.push(seq);
                }
            }
            self.out.events.clear();
        }
        if self.cfg.sampling.tcp_on_change {
            self.record_tcp_if_changed(f as usize, now);
        }
        for (t, timer) in self.out.timers.drain(..) {
            self.q.schedule(t, Event::Flow(f, timer));
        }
        if !self.out.pkts.is_empty() {
            // Sending reaches no endpoint (they answer at their arrival events), so nothing
            // writes to the outbox meanwhile; its vector goes back, emptied, for its room.
            let mut pkts = std::mem::take(&mut self.out.pkts);
            for &pkt in &pkts {
                self.send_from_host(node, pkt, now);
            }
            pkts.clear();
            debug_assert!(self.out.pkts.is_empty(), "the outbox was written to while its packets were sent");
            self.out.pkts = pkts;
        }
    }

    /// Sends `pkt`, which an endpoint at `node` produced: through the host's processing-delay
    /// line if it has one, else straight to its link.
    fn send_from_host(&mut self, node: NodeId, pkt: Packet, now: Time) {
        if !self.any_host_delay {
            return self.forward(node, pkt, now);
        }
        let host = &mut self.hosts[node as usize];
        if !host.is_active() {
            self.forward(node, pkt, now);
        } else if let Some(at) = host.push(pkt, now) {
            self.q.schedule(at, Event::HostDeparture(node));
        }
    }

    /// The head of host `node`'s processing-delay line leaves for its link.
    fn on_host_departure(&mut self, node: NodeId, now: Time) {
        let (pkt, next) = self.hosts[node as usize].pop(now);
        if let Some(next) = next {
            self.q.schedule(next, Event::HostDeparture(node));
        }
        self.forward(node, pkt, now);
    }

    /// Sends `pkt` from `node` on the next link of its route.
    fn forward(&mut self, node: NodeId, pkt: Packet, now: Time) {
        let l = self.routes.next_link(node, pkt.dst);
        assert!(l != NO_ROUTE, "no route from node {node} to node {} (validated at build)", pkt.dst);
        if let Some(r) = &mut self.record {
            r.offered(l, &pkt, self.flows[pkt.flow as usize].root, now);
        }
        if self.links[l as usize].has_early() {
            // A transmission under way: if it has not ended, the packet waits for it, and
            // its end must start the next.
            if self.end_early(l, now).is_none() {
                if let Some((at, seq)) = self.links[l as usize].need_end_event() {
                    self.q.schedule_reserved(at, seq, Event::TxDone(l));
                }
            }
        }
        let q = &mut self.q;
        if let Some(start) = self.links[l as usize].pass_through(&pkt, now, || q.reserve_seq()) {
            return schedule_tx(&mut self.q, l, start);
        }
        self.links[l as usize].port.enqueue(pkt, now);
        self.note_drops(l, now);
        self.poll_qdisc_timer(l);
        if self.links[l as usize].is_idle() {
            self.start_tx(l, now);
        }
    }

    /// Starts link `l`'s next transmission, if it is free and has a packet.
    fn start_tx(&mut self, l: u32, now: Time) {
        let q = &mut self.q;
        let Some(start) = self.links[l as usize].start_tx(now, || q.reserve_seq()) else {
            return; // busy: the qdisc was not asked
        };
        schedule_tx(q, l, start);
        self.note_drops(l, now);
        self.waits.take(l, &mut self.links);
        self.poll_qdisc_timer(l);
    }

    fn poll_qdisc_timer(&mut self, l: u32) {
        if let Some(t) = self.links[l as usize].port.take_timer_request() {
            self.q.schedule(t.max(self.q.now()), Event::QdiscTimer(l));
        }
    }

    /// Charges the data packets link `l`'s qdisc dropped in its last call to their flows'
    /// drop counts, and marks them lost in the packet record and writes them to the capture
    /// of dropped packets.
    ///
    /// Most calls have no drop: that case is inlined and costs one test; the rest is out of
    /// line. (The drops are read back from the port here, not handed over by the caller:
    /// the references the rest needs, built at every call, cost 0.7 % of a run's
    /// instructions.)
    #[inline]
    fn note_drops(&mut self, l: u32, now: Time) {
        if !self.links[l as usize].port.last_drops().is_empty() {
            self.note_some_drops(l, now);
        }
    }

    #[inline(never)]
    fn note_some_drops(&mut self, l: u32, now: Time) {
        let drops = self.links[l as usize].port.last_drops();
        let (flows, sacks) = (&mut self.flows, &mut self.out.sacks);
        for (p, _, _) in drops {
            if let Some(c) = &mut self.capture {
                c.dropped(l, p, now, capture::RunView { flows, config: &self.cfg, sacks });
            }
            note_drop(flows, sacks, p);
            if let Some(r) = &mut self.record {
                r.left(l, p, true);
            }
        }
    }

    fn on_tx_done(&mut self, l: u32, now: Time) {
        // The end of an early transmission, made an event by a packet offered meanwhile.
        if self.end_early(l, now).is_some() {
            self.start_tx(l, now);
            return;
        }
        let link = &mut self.links[l as usize];
        if let Some((pkt, outcome)) = link.finish_tx(now) {
            if pkt.kind != PacketKind::Ack {
                self.packets_forwarded += 1;
            }
            if let Some(r) = &mut self.record {
                r.left(l, &pkt, outcome == TxOutcome::Lost);
            }
            if let Some(c) = &mut self.capture {
                let began = Time::from_ns(now.as_ns() - self.links[l as usize].tx_time(pkt.size_bytes).as_ns());
                let run = capture::RunView { flows: &self.flows, config: &self.cfg, sacks: &self.out.sacks };
                c.sent(l, &pkt, began, run);
                if outcome == TxOutcome::Lost {
                    c.dropped(l, &pkt, now, run);
                }
            }
            match outcome {
                TxOutcome::Lost => note_drop(&mut self.flows, &mut self.out.sacks, &pkt),
                // A link without propagation delay: the packet arrives as its transmission
                // ends, before the next starts — ns-2's order, whose arrival event (scheduled at
                // the transmission's start, just before the transmitter's) fires first. It
                // arrives as it would from the delay line's head: stamped with its arrival.
                TxOutcome::Arrived => {
                    let to = self.links[l as usize].to;
                    self.hand_over(to, Packet { enq_time: now, ..pkt }, now);
                }
                TxOutcome::NewHead(at, _) if at == now => self.on_arrival(l, now),
                TxOutcome::NewHead(at, seq) => self.q.schedule_reserved(at, seq, Event::Arrival(l)),
                TxOutcome::Queued => {}
            }
        }
        self.start_tx(l, now);
    }

    fn on_arrival(&mut self, l: u32, now: Time) {
        let ended = self.end_early(l, now);
        let link = &mut self.links[l as usize];
        let (pkt, next) = link.deliver_head(now);
        let to = link.to;
        if let Some((next, seq)) = next {
            self.q.schedule_reserved(next, seq, Event::Arrival(l));
        }
        self.hand_over(to, pkt, now);
        // On a link without delay the arrival is the end of its transmission: a packet
        // offered meanwhile goes next, after the arrival, as `on_tx_done` orders them.
        if ended.is_some_and(|e| e.evented) {
            self.start_tx(l, now);
        }
    }

    /// Hands `pkt`, arrived at node `to`, to its endpoint there or on towards it.
    #[inline]
    fn hand_over(&mut self, to: NodeId, pkt: Packet, now: Time) {
        if pkt.dst == to {
            self.deliver(pkt, now);
        } else {
            self.forward(to, pkt, now);
        }
    }

    /// Hands `pkt` to its endpoint at its destination.
    fn deliver(&mut self, pkt: Packet, now: Time) {
        let f = pkt.flow;
        // The host whose line the endpoint's answer leaves through (`flush`), asked for now
        // so that it comes in while the endpoint works, in a network too large for the caches.
        if self.read_ahead {
            let flow = &self.flows[f as usize];
            let host = if pkt.kind == PacketKind::Ack { flow.src } else { flow.dst };
            crate::hint::prefetch_all(&self.hosts[host as usize]);
        }
        let out = &mut self.out;
        let in_window = self.in_window;
        let flow = &mut self.flows[f as usize];
        let node;
        let mut delivered = 0;
        let mut held_before_window = 0;
        let mut completed = false;
        match (&mut flow.ep, pkt.kind) {
            (Endpoints::Tcp { rcv, .. }, PacketKind::Data) => {
                let d = rcv.on_data(&pkt, now, out);
                delivered = d.bytes;
                held_before_window = d.held_before_window;
                completed = d.completed;
                node = flow.dst;
            }
            (Endpoints::Tcp { snd, .. }, PacketKind::Ack) => {
                snd.on_ack(&pkt, now, out);
                out.sacks.release(pkt.sack);
                node = flow.src;
            }
            (Endpoints::Cbr { .. } | Endpoints::Poisson { .. }, PacketKind::Udp) => {
                delivered = (pkt.size_bytes - HEADER_BYTES) as u64;
                node = flow.dst;
            }
            (ep, k) => unreachable!("{k:?} packet delivered to flow {f} of kind {ep:?}"),
        }
        let (root, group) = (flow.root, flow.group);
        let acc = &mut self.flows[root as usize].acc;
        acc.delivered_total += delivered;
        acc.held_before_window += held_before_window;
        if pkt.kind != PacketKind::Ack {
            acc.data_received += 1;
        }
        // Queueing delay of data: a SYN carries none.
        if pkt.kind != PacketKind::Ack && in_window && !pkt.has(crate::packet::FLAG_SYN) {
            acc.delay_sum_ns += pkt.queue_delay_ns as u128;
            acc.delay_n += 1;
            self.group_delay[group as usize].record(pkt.queue_delay_ns);
        }
        self.flush(f, node, now);
        if completed {
            self.on_transfer_done(f, now);
        }
    }

    fn on_warmup_end(&mut self, now: Time) {
        self.end_early_all(now);
        self.in_window = true;
        self.waits.flush(&mut self.links);
        for link in &mut self.links {
            link.start_window(now);
        }
        for flow in &mut self.flows {
            flow.acc.delivered_at_warmup = flow.acc.delivered_total;
            flow.acc.drops_at_warmup = flow.acc.drops;
            if let Endpoints::Tcp { rcv, .. } = &mut flow.ep {
                rcv.start_window();
            }
        }
        self.stats_at_warmup = self.sender_stats();
        for h in &mut self.group_delay {
            h.clear();
        }
        for flow in &mut self.flows {
            if let Endpoints::Generator(g) = &mut flow.ep {
                g.in_progress.restart(now);
            }
        }
    }

    /// Makes every transmission end with an event, as before the early ends of `net::link`
    /// (for the test that the two give the same run; call before [`Sim::run`]).
    #[doc(hidden)]
    pub fn end_every_transmission_with_an_event(&mut self) {
        for link in &mut self.links {
            link.allow_early_ends(false);
        }
    }

    /// Makes every event read ahead of the next ones first, or none, whatever the network's size
    /// (for the test that reading ahead changes nothing; call before [`Sim::run`]).
    #[doc(hidden)]
    pub fn set_read_ahead(&mut self, on: bool) {
        self.read_ahead = on;
    }

    /// Makes the ports record each wait as it ends, or (the default) leave it to be recorded
    /// in a batch (`sim/waits.rs`), for the test that the batches change nothing.
    #[doc(hidden)]
    pub fn record_waits_in_batches(&mut self, on: bool) {
        self.waits.flush(&mut self.links);
        for link in &mut self.links {
            link.port.defer_waits(on);
        }
    }

    /// Checks packet and byte conservation on every port; returns the first violation.
    pub fn check_conservation(&self) -> Result<(), String> {
        for (i, l) in self.links.iter().enumerate() {
            l.check_conservation().map_err(|e| format!("link {i} ({}): {e}", self.cfg.links[i].name))?;
        }
        Ok(())
    }

    /// Returns the TCP sender of flow `f`, if it is a TCP flow (for tests and probes).
    pub fn tcp_sender(&self, f: usize) -> Option<&TcpSender> {
        match &self.flows.get(f)?.ep {
            Endpoints::Tcp { snd, .. } => Some(snd),
            _ => None,
        }
    }

    /// Returns the number of data and UDP packets currently inside the network (waiting in a
    /// host's processing delay, queued, being transmitted or propagating).
    pub fn data_packets_in_network(&self) -> u64 {
        self.links.iter().map(Link::data_pkts_inside).sum::<u64>()
            + self.hosts.iter().map(HostLine::data_pkts_waiting).sum::<u64>()
    }

    /// Returns the number of ACKs currently inside the network.
    pub fn acks_in_network(&self) -> u64 {
        let all = self.links.iter().map(Link::pkts_inside).sum::<u64>()
            + self.hosts.iter().map(HostLine::pkts_waiting).sum::<u64>();
        all - self.data_packets_in_network()
    }

    /// Returns the number of slots of the SACK store in use: ACKs with SACK blocks sent and
    /// neither read by their sender nor dropped. Never more than [`Sim::acks_in_network`].
    pub fn sack_slots_in_use(&self) -> usize {
        self.out.sacks.in_use()
    }

    /// Returns the number of data and UDP packets that reached their receiver.
    pub fn data_packets_received(&self) -> u64 {
        self.flows.iter().map(|f| f.acc.data_received).sum()
    }

    /// Returns the number of events processed.
    pub fn events(&self) -> u64 {
        self.q.events_processed()
    }
}

/// Schedules the event a transmission that started on link `l` asks for.
fn schedule_tx(q: &mut EventQueue, l: u32, start: TxStart) {
    match start {
        TxStart::Timed(done) => q.schedule(done, Event::TxDone(l)),
        TxStart::Early(Some((at, seq))) => q.schedule_reserved(at, seq, Event::Arrival(l)),
        TxStart::Early(None) | TxStart::Nothing => {}
    }
}

/// Charges a lost data packet to its flow (the configured flow it reports to); frees a lost
/// ACK's SACK blocks.
fn note_drop(flows: &mut [Flow], sacks: &mut SackStore, p: &Packet) {
    sacks.release(p.sack);
    if p.kind != PacketKind::Ack {
        let root = flows[p.flow as usize].root;
        flows[root as usize].acc.drops += 1;
    }
}

/// Runs the configuration to the end and returns its results.
///
/// # Errors
/// A configuration the core refuses (see [`RunConfig::validate`]) or a flow whose
/// destination cannot be reached.
pub fn run_config(cfg: &RunConfig) -> Result<crate::results::RunResults, crate::error::ConfigError> {
    let mut sim = Sim::new(cfg)?;
    sim.run();
    finish(&mut sim)
}

/// Why a watched run ([`run_watched`]) ended without results.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    /// A configuration the core refuses, or an unreachable flow destination.
    Config(crate::error::ConfigError),
    /// The memory budget was exceeded, or the watcher stopped the run.
    Stopped(Stop),
}

/// Runs the configuration to the end like [`run_config`], watched by `watch` and
/// `on_check` (see [`Sim::run_watched`]); the results of a run that finishes are the same.
/// The run takes the configuration: at 10⁵ flows a copy of it was 0.2 GB and a tenth of the
/// set-up.
///
/// # Errors
/// [`RunError::Config`] as [`run_config`]; [`RunError::Stopped`] when the memory budget is
/// exceeded or `on_check` stops the run.
pub fn run_watched(
    cfg: RunConfig,
    watch: Watch,
    on_check: &mut dyn FnMut(&Progress) -> std::ops::ControlFlow<()>,
) -> Result<crate::results::RunResults, RunError> {
    cfg.validate().map_err(RunError::Config)?;
    // A network too large for the budget is refused before it is built.
    let setup = watch::setup_part(&cfg);
    if setup.bytes > watch.memory_limit_bytes {
        let bytes = setup.bytes;
        return Err(RunError::Stopped(Stop::Budget(BudgetExceeded {
            largest: setup,
            bytes,
            limit: watch.memory_limit_bytes,
            at: Time::ZERO,
            before_build: true,
        })));
    }
    let mut sim = Sim::build(cfg).map_err(RunError::Config)?;
    sim.run_watched(watch, on_check).map_err(RunError::Stopped)?;
    finish(&mut sim).map_err(RunError::Config)
}

/// Checks conservation at the end of a finished run, closes its capture and returns its
/// results.
///
/// # Errors
/// A capture that could not be written (`pcap.dir`).
fn finish(sim: &mut Sim) -> Result<crate::results::RunResults, crate::error::ConfigError> {
    if let Err(e) = sim.check_conservation() {
        panic!("conservation violated at the end of the run: {e}");
    }
    if let Some(c) = &mut sim.capture {
        c.finish()?;
    }
    Ok(sim.results())
}
