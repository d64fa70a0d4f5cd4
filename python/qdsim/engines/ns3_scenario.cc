// qdsim-ns3: runs one qdsim scenario file in ns-3.37 and prints qdsim's measurement protocol.
//
// Built once per machine by python/qdsim/engines/ns3.py (`python -m qdsim.engines.ns3 --build`)
// and run as `qdsim-ns3 <scenario>`. It is a generic executor: every ns-3 TypeId, attribute
// name and value comes from the scenario file, which qdsim writes from a resolved run
// configuration (the mapping, and why each part maps as it does, is ns3.py's and
// docs/engine-ns3.md's). What this program knows is how to build a network of point-to-point
// links, open connections the way qdsim's applications do, and measure what qdsim measures.
//
// Scenario file: one directive per line, words separated by blanks; a line starting with '#'
// is a comment. Nodes and links are referred to by index (the order of `node` lines, and the
// index `j` of the configuration's links); values never contain blanks.
//
//   qdsim-ns3 1                                   format version (first directive)
//   run <seed> <duration_ns> <warmup_ns>          RngSeedManager seed 1, run <seed>
//   default <attribute path> <value>              Config::SetDefault
//   node <name>                                   one per node, in index order
//   link <j> <from> <to> <rate_bps> <metric>      a unidirectional link: the device on <from>
//   channel <j> <k> <delay_ns>                    links j (a->b) and k (b->a) on one channel
//   loss <j> <probability>                        per-packet RateErrorModel on j's receiver
//   devqueue <j> <QueueSize>                      MaxSize of j's device DropTailQueue
//   qdisc <j> <TypeId|none> [<Attr>=<v>] [@Quantum=<v>]   root queue disc of j's device;
//                                                 none: the device queue alone, unwatched by
//                                                 flow control (a full one drops the arrival)
//   reason <TypeId> <qdsim reason> <ns-3 drop reason, rest of line>
//   tcp <k> <congestion TypeId> <recovery TypeId> <RTT estimator TypeId>
//   tcpattr <k> socket|cc|recovery|rtt <Attr>=<v> ...    attributes of option set k's objects
//   flow <i> <kind> <src> <dst> <start_ns> <jitter_ns> [<key>=<value>] ...
//   pair <i> <src> <dst>                          the host pool of short-flow generator i
//
// Flow kinds and their keys (sizes in bytes, times in ns):
//   bulk     tcp=<k>                              a saturated connection
//   finite   tcp=<k> size=<B>                     one transfer
//   rounds   tcp=<k> size=<B> barrier=<b> rounds=<n, 0 = until the end> think_ns=<t>
//            persistent=<0|1>                     incast rounds: all members of a barrier
//                                                 finish a round before the next starts
//   short    tcp=<k> rate=<per s> stop_ns=<t> sizes=uniform:<min>:<max> | exponential:<mean>
//            | pareto:<mean>:<shape> | fixed:<B>  Poisson arrivals of fresh connections
//   onoff    tcp=<k> burst=<B> idle_ns=<mean> first=idle|start   bursts on one connection
//   cbr      bytes=<IP size> interval_ns=<t> stop_ns=<t> uncounted=<B>
//   poisson  bytes=<mean IP size> law=fixed|exponential min=<B> max=<B> gap_ns=<mean gap>
//            stop_ns=<t> uncounted=<B>            (a datagram delivers its IP size - uncounted)
//
// Measurement (qdsim.engines.measure): counters are cumulative and printed at the warm-up and
// at the end, both scheduled before anything else so that they come first among the events
// of their instant (qdsim handles the events strictly before the end). A link's queue is its
// queue disc plus its device queue (the device holds one waiting packet when the queue disc
// limit is N - 1, see ns3.py): its time integrals, and the sojourn from the queue disc's
// enqueue to the start of transmission. Byte counts are IP bytes (a device adds a 2-byte PPP
// header). Beyond the protocol's counters a link reports queued_pkts, the packets waiting at
// the snapshot's instant (measure ignores it; it lets a test check that arrivals = sent +
// dropped + the change of the queue, the packet on the wire aside). A flow's data packets
// sent and retransmitted come from its sockets' Tx trace, recoveries from CongState, timeouts
// from a congestion-ops wrapper that counts CA_EVENT_LOSS (every retransmission timeout),
// delivered bytes from the receiving application, drops from the destination port of a
// dropped packet (flow i listens on port 1000 + i). No per-packet output, no pcap, no
// FlowMonitor.
//
// A fresh connection (finite, short flow, incast round) is released when its receiver has
// every byte and its sender the last ACK: its endpoints are deleted, without a FIN (qdsim
// never closes one), which keeps ns-3's endpoint demultiplexer, a linear list, short.

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/error-model.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-end-point.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv4.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

const uint16_t kPortBase = 1000;        // flow i's receivers listen on port kPortBase + i
const uint32_t kPppHeader = 2;          // bytes a PointToPointNetDevice adds to a packet
const uint32_t kIpUdpHeaders = 28;      // IPv4 (20) and UDP (8) headers of a datagram

[[noreturn]] void
Fail(const std::string& what)
{
    std::fprintf(stderr, "qdsim-ns3: %s\n", what.c_str());
    std::exit(2);
}

using Attrs = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------
// The scenario as read

struct LinkSpec
{
    int from = -1;
    int to = -1;
    uint64_t rateBps = 0;
    uint32_t metric = 1;
    double loss = 0;
    std::string devQueue = "1p";
    std::string qdiscType = "none";
    Attrs qdiscAttrs;
    int64_t quantum = -1; // FqCoDel's quantum (a method, not an attribute, in ns-3.37)
};

struct TcpOpts
{
    std::string cc, recovery, rtt;
    Attrs socket, ccAttrs, recoveryAttrs, rttAttrs;
};

struct FlowSpec
{
    std::string kind;
    int src = -1;
    int dst = -1;
    int64_t startNs = 0;
    int64_t jitterNs = 0;
    std::map<std::string, std::string> keys;
    std::vector<std::pair<int, int>> pool;

    const std::string& Key(const std::string& k) const
    {
        auto it = keys.find(k);
        if (it == keys.end())
        {
            Fail("flow of kind " + kind + " without key " + k);
        }
        return it->second;
    }

    int64_t Int(const std::string& k) const
    {
        return std::stoll(Key(k));
    }

    double Real(const std::string& k) const
    {
        return std::stod(Key(k));
    }
};

struct Scenario
{
    uint64_t seed = 1;
    int64_t durationNs = 0;
    int64_t warmupNs = 0;
    std::vector<std::pair<std::string, std::string>> defaults;
    std::vector<std::string> nodes;
    std::vector<LinkSpec> links;
    std::vector<std::tuple<int, int, int64_t>> channels;
    std::map<std::string, std::map<std::string, std::string>> reasons; // TypeId -> ns-3 -> qdsim
    std::map<int, TcpOpts> tcp;
    std::vector<FlowSpec> flows;
};

std::pair<std::string, std::string>
SplitAttr(const std::string& word)
{
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        Fail("expected <name>=<value>, got '" + word + "'");
    }
    return {word.substr(0, eq), word.substr(eq + 1)};
}

Scenario
Read(const char* path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail(std::string("cannot read ") + path);
    }
    Scenario s;
    std::string line;
    int number = 0;
    bool versioned = false;
    while (std::getline(in, line))
    {
        ++number;
        std::istringstream words(line);
        std::string d;
        if (!(words >> d) || d[0] == '#')
        {
            continue;
        }
        auto where = [&]() { return std::string(path) + ":" + std::to_string(number) + ": "; };
        auto need = [&](bool ok) {
            if (!ok)
            {
                Fail(where() + "malformed '" + line + "'");
            }
        };
        if (d == "qdsim-ns3")
        {
            int version = 0;
            need(bool(words >> version) && version == 1);
            versioned = true;
            continue;
        }
        need(versioned);
        if (d == "run")
        {
            need(bool(words >> s.seed >> s.durationNs >> s.warmupNs));
        }
        else if (d == "default")
        {
            std::string name, value;
            need(bool(words >> name >> value));
            s.defaults.emplace_back(name, value);
        }
        else if (d == "node")
        {
            std::string name;
            need(bool(words >> name));
            s.nodes.push_back(name);
        }
        else if (d == "link")
        {
            size_t j;
            LinkSpec l;
            need(bool(words >> j >> l.from >> l.to >> l.rateBps >> l.metric) &&
                 j == s.links.size());
            s.links.push_back(l);
        }
        else if (d == "channel")
        {
            int j, k;
            int64_t delay;
            need(bool(words >> j >> k >> delay));
            s.channels.emplace_back(j, k, delay);
        }
        else if (d == "loss" || d == "devqueue" || d == "qdisc")
        {
            size_t j;
            need(bool(words >> j) && j < s.links.size());
            LinkSpec& l = s.links[j];
            if (d == "loss")
            {
                need(bool(words >> l.loss));
            }
            else if (d == "devqueue")
            {
                need(bool(words >> l.devQueue));
            }
            else
            {
                need(bool(words >> l.qdiscType));
                std::string w;
                while (words >> w)
                {
                    auto kv = SplitAttr(w);
                    if (kv.first == "@Quantum")
                    {
                        l.quantum = std::stoll(kv.second);
                    }
                    else if (kv.first[0] == '@')
                    {
                        Fail(where() + "unknown method " + kv.first);
                    }
                    else
                    {
                        l.qdiscAttrs.push_back(kv);
                    }
                }
            }
        }
        else if (d == "reason")
        {
            std::string type, qdsim, rest;
            need(bool(words >> type >> qdsim));
            std::getline(words, rest);
            auto first = rest.find_first_not_of(" \t");
            need(first != std::string::npos);
            s.reasons[type][rest.substr(first)] = qdsim;
        }
        else if (d == "tcp")
        {
            int k;
            TcpOpts o;
            need(bool(words >> k >> o.cc >> o.recovery >> o.rtt));
            s.tcp[k] = o;
        }
        else if (d == "tcpattr")
        {
            int k;
            std::string part, w;
            need(bool(words >> k >> part) && s.tcp.count(k));
            TcpOpts& o = s.tcp[k];
            Attrs* to = part == "socket"     ? &o.socket
                        : part == "cc"       ? &o.ccAttrs
                        : part == "recovery" ? &o.recoveryAttrs
                        : part == "rtt"      ? &o.rttAttrs
                                             : nullptr;
            need(to != nullptr);
            while (words >> w)
            {
                to->push_back(SplitAttr(w));
            }
        }
        else if (d == "flow")
        {
            size_t i;
            FlowSpec f;
            need(bool(words >> i >> f.kind >> f.src >> f.dst >> f.startNs >> f.jitterNs) &&
                 i == s.flows.size());
            std::string w;
            while (words >> w)
            {
                f.keys.insert(SplitAttr(w));
            }
            s.flows.push_back(f);
        }
        else if (d == "pair")
        {
            size_t i;
            int a, b;
            need(bool(words >> i >> a >> b) && i < s.flows.size());
            s.flows[i].pool.emplace_back(a, b);
        }
        else
        {
            Fail(where() + "unknown directive '" + d + "'");
        }
    }
    if (!versioned)
    {
        Fail(std::string(path) + " is not a qdsim-ns3 scenario (no 'qdsim-ns3 1' line)");
    }
    if (s.flows.size() + kPortBase >= 49152)
    {
        Fail("too many flows for one port each below ns-3's ephemeral ports");
    }
    return s;
}

// ---------------------------------------------------------------------------------------
// Counters

struct FlowStats
{
    bool tcp = false;
    uint64_t delivered = 0;
    uint64_t sent = 0;
    uint64_t retransmits = 0;
    uint64_t fastRetransmits = 0;
    uint64_t timeouts = 0;
    uint64_t drops = 0;
};

struct LinkStats
{
    Ptr<PointToPointNetDevice> dev;
    Ptr<QueueDisc> qdisc;
    std::string qdiscType;
    uint64_t devEnqueued = 0; // only counted without a queue disc (the arrivals then)
    uint64_t devDrops = 0;    // device queue overflow
    uint64_t wireDrops = 0;   // lost on the wire (the receiver's error model)
    uint64_t txPkts = 0;
    uint64_t txBytes = 0;
    // Packets and bytes waiting: queue disc and device queue (device bytes carry PPP headers).
    uint32_t qdPkts = 0, qdBytes = 0, devPkts = 0, devBytes = 0;
    int64_t lastNs = 0;
    unsigned __int128 areaPkts = 0, areaBytes = 0; // packet-ns, byte-ns
    // The packets between the queue disc and the wire: uid, queue disc enqueue time.
    std::deque<std::pair<uint64_t, int64_t>> enqueuedAt;
    long double delaySumNs = 0;
    uint64_t delayN = 0;

    void Touch()
    {
        int64_t now = Simulator::Now().GetNanoSeconds();
        uint64_t dt = static_cast<uint64_t>(now - lastNs);
        uint64_t pkts = uint64_t(qdPkts) + devPkts;
        uint64_t bytes = uint64_t(qdBytes) + devBytes - uint64_t(kPppHeader) * devPkts;
        areaPkts += (unsigned __int128)pkts * dt;
        areaBytes += (unsigned __int128)bytes * dt;
        lastNs = now;
    }
};

Scenario g_s;
NodeContainer g_nodes;
std::vector<Ipv4Address> g_addr;
std::vector<FlowStats> g_flows;
std::vector<LinkStats> g_links;
Ptr<UniformRandomVariable> g_startRv; // flow start jitter

// Charges a dropped packet (its L4 part, protocol `proto`) to the flow whose port it is for.
void
ChargeL4(Ptr<const Packet> l4, uint8_t proto)
{
    uint16_t port = 0;
    if (proto == 6)
    {
        TcpHeader h;
        if (l4->PeekHeader(h) == 0)
        {
            return;
        }
        bool payload = l4->GetSize() > h.GetSerializedSize();
        uint8_t flags = h.GetFlags();
        bool syn = (flags & TcpHeader::SYN) && !(flags & TcpHeader::ACK);
        if (!payload && !syn)
        {
            return; // an ACK
        }
        port = h.GetDestinationPort();
    }
    else if (proto == 17)
    {
        UdpHeader h;
        l4->PeekHeader(h);
        port = h.GetDestinationPort();
    }
    if (port >= kPortBase && size_t(port - kPortBase) < g_flows.size())
    {
        ++g_flows[port - kPortBase].drops;
    }
}

void
ChargeDevicePacket(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    ChargeL4(c, ip.GetProtocol());
}

void
OnQdiscDrop(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ip)
    {
        ChargeL4(ip->GetPacket(), ip->GetHeader().GetProtocol());
    }
}

void
OnQdiscPackets(LinkStats* s, uint32_t, uint32_t v)
{
    s->Touch();
    s->qdPkts = v;
}

void
OnQdiscBytes(LinkStats* s, uint32_t, uint32_t v)
{
    s->Touch();
    s->qdBytes = v;
}

void
OnDevPackets(LinkStats* s, uint32_t, uint32_t v)
{
    s->Touch();
    s->devPkts = v;
}

void
OnDevBytes(LinkStats* s, uint32_t, uint32_t v)
{
    s->Touch();
    s->devBytes = v;
}

void
OnQdiscDequeue(LinkStats* s, Ptr<const QueueDiscItem> item)
{
    s->enqueuedAt.emplace_back(item->GetPacket()->GetUid(), item->GetTimeStamp().GetNanoSeconds());
}

// A packet dequeued and then dropped (CoDel, FQ-CoDel) never reaches the device.
void
OnQdiscDropAfterDequeue(LinkStats* s, Ptr<const QueueDiscItem> item, const char*)
{
    uint64_t uid = item->GetPacket()->GetUid();
    for (auto it = s->enqueuedAt.rbegin(); it != s->enqueuedAt.rend(); ++it)
    {
        if (it->first == uid)
        {
            s->enqueuedAt.erase(std::next(it).base());
            break;
        }
    }
}

void
OnDevEnqueue(LinkStats* s, Ptr<const Packet> p)
{
    ++s->devEnqueued;
    if (!s->qdisc)
    {
        s->enqueuedAt.emplace_back(p->GetUid(), Simulator::Now().GetNanoSeconds());
    }
}

// The packet starts its transmission: its sojourn ends (qdsim's dequeue onto the wire).
void
OnDevDequeue(LinkStats* s, Ptr<const Packet> p)
{
    uint64_t uid = p->GetUid();
    while (!s->enqueuedAt.empty() && s->enqueuedAt.front().first != uid)
    {
        s->enqueuedAt.pop_front(); // not expected: every packet goes through the device queue
    }
    if (!s->enqueuedAt.empty())
    {
        s->delaySumNs += Simulator::Now().GetNanoSeconds() - s->enqueuedAt.front().second;
        ++s->delayN;
        s->enqueuedAt.pop_front();
    }
}

void
OnDevDrop(LinkStats* s, Ptr<const Packet> p)
{
    ++s->devDrops;
    ChargeDevicePacket(p);
}

void
OnTxEnd(LinkStats* s, Ptr<const Packet> p)
{
    ++s->txPkts;
    s->txBytes += p->GetSize() - kPppHeader;
}

void
OnWireDrop(LinkStats* s, Ptr<const Packet> p)
{
    ++s->wireDrops;
    ChargeDevicePacket(p);
}

// ---------------------------------------------------------------------------------------
// Output

std::string
Seconds9(int64_t ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9f", ns / 1e9);
    return buf;
}

void
Snap(const char* phase)
{
    for (size_t i = 0; i < g_flows.size(); ++i)
    {
        const FlowStats& f = g_flows[i];
        std::printf("snap %s flow %zu delivered_bytes=%llu sent_pkts=%llu retransmits=%llu "
                    "fast_retransmits=%llu timeouts=%llu drops=%llu\n",
                    phase,
                    i,
                    (unsigned long long)f.delivered,
                    (unsigned long long)f.sent,
                    (unsigned long long)f.retransmits,
                    (unsigned long long)f.fastRetransmits,
                    (unsigned long long)f.timeouts,
                    (unsigned long long)f.drops);
    }
    for (size_t j = 0; j < g_links.size(); ++j)
    {
        LinkStats& l = g_links[j];
        l.Touch();
        uint64_t arrivals = l.devEnqueued + l.devDrops;
        std::map<std::string, uint64_t> byReason;
        uint64_t drops = l.devDrops + l.wireDrops;
        if (l.devDrops)
        {
            byReason["overflow"] += l.devDrops;
        }
        if (l.wireDrops)
        {
            byReason["random_loss"] += l.wireDrops;
        }
        if (l.qdisc)
        {
            const QueueDisc::Stats& st = l.qdisc->GetStats();
            arrivals = st.nTotalReceivedPackets;
            drops += st.nTotalDroppedPackets;
            const auto& names = g_s.reasons[l.qdiscType];
            for (const auto* m : {&st.nDroppedPacketsBeforeEnqueue, &st.nDroppedPacketsAfterDequeue})
            {
                for (const auto& [reason, n] : *m)
                {
                    auto it = names.find(reason);
                    if (it == names.end())
                    {
                        static std::map<std::string, bool> warned;
                        if (!warned[reason])
                        {
                            std::fprintf(stderr,
                                         "qdsim-ns3: link %zu: drop reason '%s' has no qdsim "
                                         "name (counted in drops only)\n",
                                         j,
                                         reason.c_str());
                            warned[reason] = true;
                        }
                        continue;
                    }
                    byReason[it->second] += n;
                }
            }
        }
        std::printf("snap %s link %zu arrivals=%llu tx_pkts=%llu tx_bytes=%llu drops=%llu",
                    phase,
                    j,
                    (unsigned long long)arrivals,
                    (unsigned long long)l.txPkts,
                    (unsigned long long)l.txBytes,
                    (unsigned long long)drops);
        for (const auto& [reason, n] : byReason)
        {
            std::printf(" drop_%s=%llu", reason.c_str(), (unsigned long long)n);
        }
        std::printf(" queue_pkt_s=%.17g queue_byte_s=%.17g delay_sum_s=%.17g delay_n=%llu "
                    "queued_pkts=%llu\n",
                    (double)((long double)l.areaPkts / 1e9L),
                    (double)((long double)l.areaBytes / 1e9L),
                    (double)(l.delaySumNs / 1e9L),
                    (unsigned long long)l.delayN,
                    (unsigned long long)(l.qdPkts + l.devPkts));
    }
}

// ---------------------------------------------------------------------------------------
// TCP: sockets built from an option set, with a congestion-ops wrapper that counts timeouts

// Forwards every call to the congestion control it wraps; counts CA_EVENT_LOSS, which
// TcpSocketBase::ReTxTimeout signals on every retransmission timeout (and nothing else does).
class CountingCongestionOps : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::QdsimCountingCongestionOps")
                                .SetParent<TcpCongestionOps>()
                                .AddConstructor<CountingCongestionOps>();
        return tid;
    }

    Ptr<TcpCongestionOps> m_inner;
    uint64_t* m_timeouts = nullptr;

    std::string GetName() const override
    {
        return m_inner->GetName();
    }

    void Init(Ptr<TcpSocketState> tcb) override
    {
        m_inner->Init(tcb);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return m_inner->GetSsThresh(tcb, bytesInFlight);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        m_inner->IncreaseWindow(tcb, segmentsAcked);
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override
    {
        m_inner->PktsAcked(tcb, segmentsAcked, rtt);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        m_inner->CongestionStateSet(tcb, newState);
    }

    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override
    {
        if (event == TcpSocketState::CA_EVENT_LOSS && m_timeouts)
        {
            ++*m_timeouts;
        }
        m_inner->CwndEvent(tcb, event);
    }

    bool HasCongControl() const override
    {
        return m_inner->HasCongControl();
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        m_inner->CongControl(tcb, rc, rs);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        Ptr<CountingCongestionOps> copy = CreateObject<CountingCongestionOps>();
        copy->m_inner = m_inner->Fork();
        copy->m_timeouts = m_timeouts;
        return copy;
    }
};

void
SetAttrs(Ptr<Object> o, const Attrs& attrs, const std::string& what)
{
    for (const auto& [name, value] : attrs)
    {
        if (!o->SetAttributeFailSafe(name, StringValue(value)))
        {
            Fail("cannot set " + what + " attribute " + name + "=" + value + " on " +
                 o->GetInstanceTypeId().GetName());
        }
    }
}

template <class T>
Ptr<T>
Make(const std::string& type, const Attrs& attrs, const std::string& what)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid))
    {
        Fail("no ns-3 TypeId " + type + " (" + what + ")");
    }
    ObjectFactory f;
    f.SetTypeId(tid);
    Ptr<T> o = f.Create<T>();
    SetAttrs(o, attrs, what);
    return o;
}

Ptr<TcpSocketBase>
MakeTcpSocket(int node, const TcpOpts& o, uint64_t* timeouts)
{
    Ptr<TcpL4Protocol> l4 = g_nodes.Get(node)->GetObject<TcpL4Protocol>();
    Ptr<TcpCongestionOps> cc = Make<TcpCongestionOps>(o.cc, o.ccAttrs, "congestion control");
    Ptr<TcpRecoveryOps> rec = Make<TcpRecoveryOps>(o.recovery, o.recoveryAttrs, "recovery");
    Ptr<RttEstimator> rtt = Make<RttEstimator>(o.rtt, o.rttAttrs, "RTT estimator");
    rtt->Reset(); // takes InitialEstimation, set after construction
    Ptr<TcpSocketBase> sock =
        DynamicCast<TcpSocketBase>(l4->CreateSocket(cc->GetInstanceTypeId(), rec->GetInstanceTypeId()));
    SetAttrs(sock, o.socket, "socket");
    sock->SetRtt(rtt);
    Ptr<CountingCongestionOps> counted = CreateObject<CountingCongestionOps>();
    counted->m_inner = cc;
    counted->m_timeouts = timeouts;
    sock->SetCongestionControlAlgorithm(counted);
    sock->SetRecoveryAlgorithm(rec);
    return sock;
}

// ---------------------------------------------------------------------------------------
// Transfers and connections

struct Transfer
{
    int flow;
    uint32_t round;
    int64_t startNs;
    uint64_t size;
    int64_t doneNs = -1;
};

std::vector<Transfer> g_transfers;

size_t
NewTransfer(int flow, uint32_t round, int64_t startNs, uint64_t size)
{
    g_transfers.push_back({flow, round, startNs, size});
    return g_transfers.size() - 1;
}

struct Conn
{
    int flow = -1;
    int src = -1;
    int dst = -1;
    int pair = -1; // the pool pair of a short flow
    Ptr<TcpSocketBase> snd;
    Ptr<Socket> rcv;
    bool connected = false;
    bool infinite = false;
    bool fresh = true; // closed once its one transfer is complete
    uint64_t toWrite = 0;
    uint64_t written = 0;
    uint64_t received = 0;
    std::deque<std::pair<size_t, uint64_t>> pending; // transfer, cumulative bytes it ends at
    bool highSet = false;
    SequenceNumber32 high;
    bool complete = false; // a fresh connection whose receiver has every byte
    bool released = false;
};

std::vector<std::unique_ptr<Conn>> g_conns;
std::unordered_map<uint64_t, Conn*> g_byPeer; // sender (address, port) -> connection

uint64_t
PeerKey(const Address& a)
{
    InetSocketAddress i = InetSocketAddress::ConvertFrom(a);
    return (uint64_t(i.GetIpv4().Get()) << 16) | i.GetPort();
}

struct Barrier
{
    std::vector<int> members;
    int outstanding = 0;
    uint32_t round = 0;
    uint32_t rounds = 0; // 0: until the end of the run
    int64_t thinkNs = 0;
    bool persistent = false;
};

std::map<std::string, Barrier> g_barriers;
std::vector<Conn*> g_persistent; // per flow: its one connection (rounds persistent, onoff)

struct Generator
{
    Ptr<UniformRandomVariable> rv;
    std::vector<int> busy; // short flows: transfers in progress on each pair of the pool
    uint32_t bursts = 0;   // on-off: bursts handed to the connection so far
};

std::map<int, Generator> g_generators;

void OnTransferDone(Conn* c, size_t t);

void
Pump(Conn* c)
{
    if (!c->connected)
    {
        return;
    }
    while (c->infinite || c->toWrite > 0)
    {
        uint32_t room = c->snd->GetTxAvailable();
        if (room == 0)
        {
            break;
        }
        uint32_t n = c->infinite ? room : uint32_t(std::min<uint64_t>(room, c->toWrite));
        int sent = c->snd->Send(Create<Packet>(n), 0);
        if (sent <= 0)
        {
            break;
        }
        if (!c->infinite)
        {
            c->toWrite -= uint64_t(sent);
        }
    }
}

void
OnConnected(Conn* c, Ptr<Socket>)
{
    c->connected = true;
    Pump(c);
}

void
OnConnectFailed(Conn* c, Ptr<Socket>)
{
    std::fprintf(stderr, "qdsim-ns3: a connection of flow %d failed to open\n", c->flow);
}

void
OnSendRoom(Conn* c, Ptr<Socket>, uint32_t)
{
    Pump(c);
}

void
OnTcpTx(Conn* c, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    uint32_t size = p->GetSize();
    if (size == 0)
    {
        return;
    }
    FlowStats& f = g_flows[c->flow];
    ++f.sent;
    SequenceNumber32 seq = h.GetSequenceNumber();
    SequenceNumber32 end = seq + size;
    if (c->highSet && seq < c->high)
    {
        ++f.retransmits;
    }
    if (!c->highSet || end > c->high)
    {
        c->high = end;
        c->highSet = true;
    }
}

void
OnCongState(Conn* c, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_flows[c->flow].fastRetransmits;
    }
}

void
OnRecv(Conn* c, Ptr<Socket> s)
{
    FlowStats& f = g_flows[c->flow];
    while (Ptr<Packet> p = s->Recv(std::numeric_limits<uint32_t>::max(), 0))
    {
        uint32_t n = p->GetSize();
        if (n == 0)
        {
            break;
        }
        c->received += n;
        f.delivered += n;
    }
    while (!c->pending.empty() && c->received >= c->pending.front().second)
    {
        size_t t = c->pending.front().first;
        c->pending.pop_front();
        g_transfers[t].doneNs = Simulator::Now().GetNanoSeconds();
        OnTransferDone(c, t);
    }
}

// Gives access to a socket's endpoint, to release a finished connection without a FIN.
struct EndpointOf : public TcpSocketBase
{
    static Ipv4EndPoint* Get(const Ptr<TcpSocketBase>& s)
    {
        return PeekPointer(s)->*(&EndpointOf::m_endPoint);
    }
};

void
Release(const Ptr<Socket>& socket, int node)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(socket);
    Ipv4EndPoint* ep = s ? EndpointOf::Get(s) : nullptr;
    if (ep)
    {
        // Deleting the endpoint calls the socket's Destroy (timers cancelled, socket removed
        // from its protocol): it leaves ns-3's demultiplexer, a linear list, and nothing goes
        // on the wire (qdsim never closes a connection).
        g_nodes.Get(node)->GetObject<TcpL4Protocol>()->DeAllocate(ep);
    }
}

void
Forget(Conn* c)
{
    c->snd = nullptr;
    c->rcv = nullptr;
}

// A fresh connection is released once its receiver has every byte and its sender every ACK.
void
ReleaseIfDone(Conn* c)
{
    if (c->released || !c->complete || !c->snd || c->snd->GetTxBuffer()->Size() > 0)
    {
        return;
    }
    c->released = true;
    Release(c->snd, c->src);
    if (c->rcv)
    {
        Release(c->rcv, c->dst);
    }
    // The sockets may still have events of this instant queued: drop them a little later.
    Simulator::Schedule(NanoSeconds(1), &Forget, c);
}

void
OnHighestAck(Conn* c, SequenceNumber32, SequenceNumber32)
{
    if (c->complete && !c->released)
    {
        Simulator::ScheduleNow(&ReleaseIfDone, c);
    }
}

bool
AcceptAll(Ptr<Socket>, const Address&)
{
    return true;
}

void
OnAccept(Ptr<Socket> s, const Address& from)
{
    auto it = g_byPeer.find(PeerKey(from));
    if (it == g_byPeer.end())
    {
        Fail("a connection from an unknown sender was accepted");
    }
    Conn* c = it->second;
    g_byPeer.erase(it);
    c->rcv = s;
    s->SetRecvCallback(MakeBoundCallback(&OnRecv, c));
}

// Opens connection `c` now; `first` (if any) is its first transfer, already recorded.
void
Open(Conn* c, int64_t firstTransfer)
{
    const FlowSpec& f = g_s.flows[c->flow];
    const TcpOpts& o = g_s.tcp.at(int(f.Int("tcp")));
    c->snd = MakeTcpSocket(c->src, o, &g_flows[c->flow].timeouts);
    c->snd->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, c));
    c->snd->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, c));
    if (c->fresh)
    {
        c->snd->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighestAck, c));
    }
    c->snd->SetConnectCallback(MakeBoundCallback(&OnConnected, c),
                               MakeBoundCallback(&OnConnectFailed, c));
    c->snd->SetSendCallback(MakeBoundCallback(&OnSendRoom, c));
    c->snd->Bind();
    c->snd->Connect(InetSocketAddress(g_addr[c->dst], kPortBase + c->flow));
    Address local;
    c->snd->GetSockName(local);
    g_byPeer[PeerKey(local)] = c;
    if (firstTransfer >= 0)
    {
        uint64_t size = g_transfers[firstTransfer].size;
        c->written += size;
        c->toWrite += size;
        c->pending.emplace_back(size_t(firstTransfer), c->written);
    }
}

Conn*
NewConn(int flow, int src, int dst)
{
    g_conns.push_back(std::make_unique<Conn>());
    Conn* c = g_conns.back().get();
    c->flow = flow;
    c->src = src;
    c->dst = dst;
    return c;
}

// Hands persistent connection `c` the next `size` bytes as transfer `round`, now.
void
WriteChunk(Conn* c, uint32_t round, uint64_t size)
{
    size_t t = NewTransfer(c->flow, round, Simulator::Now().GetNanoSeconds(), size);
    c->written += size;
    c->toWrite += size;
    c->pending.emplace_back(t, c->written);
    Pump(c);
}

void
OpenFresh(int flow, int src, int dst, size_t transfer, int pair)
{
    Conn* c = NewConn(flow, src, dst);
    c->pair = pair;
    Open(c, int64_t(transfer));
}

void
OnBarrierMemberDone(const std::string& name)
{
    Barrier& b = g_barriers[name];
    if (--b.outstanding > 0)
    {
        return;
    }
    ++b.round;
    if (b.rounds && b.round >= b.rounds)
    {
        return;
    }
    b.outstanding = int(b.members.size());
    int64_t now = Simulator::Now().GetNanoSeconds();
    for (int m : b.members)
    {
        const FlowSpec& f = g_s.flows[m];
        uint64_t size = uint64_t(f.Int("size"));
        if (b.persistent)
        {
            Simulator::Schedule(NanoSeconds(b.thinkNs), &WriteChunk, g_persistent[m], b.round, size);
        }
        else
        {
            // As qdsim: the round's transfers are recorded when the round is decided.
            size_t t = NewTransfer(m, b.round, now + b.thinkNs, size);
            Simulator::Schedule(NanoSeconds(b.thinkNs), &OpenFresh, m, f.src, f.dst, t, -1);
        }
    }
}

void NextBurst(int flow);

double
Exponential(Ptr<UniformRandomVariable> rv, double mean)
{
    return -mean * std::log(1.0 - rv->GetValue()); // U in [0, 1): 1 - U in (0, 1]
}

void
OnTransferDone(Conn* c, size_t)
{
    const FlowSpec& f = g_s.flows[c->flow];
    if (c->fresh)
    {
        c->complete = true; // released when the sender has the last ACK
    }
    if (f.kind == "short")
    {
        if (c->pair >= 0)
        {
            --g_generators[c->flow].busy[c->pair];
        }
    }
    else if (f.kind == "rounds")
    {
        OnBarrierMemberDone(f.Key("barrier"));
    }
    else if (f.kind == "onoff")
    {
        Generator& g = g_generators[c->flow];
        int64_t idle = std::max<int64_t>(1, std::llround(Exponential(g.rv, f.Real("idle_ns"))));
        if (Simulator::Now().GetNanoSeconds() + idle < g_s.durationNs)
        {
            Simulator::Schedule(NanoSeconds(idle), &NextBurst, c->flow);
        }
    }
}

void
NextBurst(int flow)
{
    Generator& g = g_generators[flow];
    uint32_t round = g.bursts++;
    WriteChunk(g_persistent[flow], round, uint64_t(g_s.flows[flow].Int("burst")));
}

uint64_t
DrawSize(const std::string& law, Ptr<UniformRandomVariable> rv)
{
    std::vector<std::string> p;
    std::stringstream ss(law);
    std::string item;
    while (std::getline(ss, item, ':'))
    {
        p.push_back(item);
    }
    const uint64_t cap = uint64_t(1) << 40;
    double x = 0;
    if (p[0] == "uniform" && p.size() == 3)
    {
        uint64_t lo = std::stoull(p[1]), hi = std::stoull(p[2]);
        uint64_t span = hi - lo + 1;
        uint64_t k = uint64_t(rv->GetValue() * double(span));
        return lo + std::min(k, span - 1);
    }
    else if (p[0] == "fixed" && p.size() == 2)
    {
        return std::stoull(p[1]);
    }
    else if (p[0] == "exponential" && p.size() == 2)
    {
        x = Exponential(rv, std::stod(p[1]));
    }
    else if (p[0] == "pareto" && p.size() == 3)
    {
        double mean = std::stod(p[1]), shape = std::stod(p[2]);
        double xm = mean * (shape - 1) / shape;
        x = xm * std::pow(1.0 - rv->GetValue(), -1.0 / shape);
    }
    else
    {
        Fail("unknown size law " + law);
    }
    double r = std::round(x);
    if (!(r >= 1))
    {
        return 1;
    }
    return r >= double(cap) ? cap : uint64_t(r);
}

void
Arrival(int flow)
{
    const FlowSpec& f = g_s.flows[flow];
    Generator& g = g_generators[flow];
    int64_t now = Simulator::Now().GetNanoSeconds();
    int64_t stop = f.Int("stop_ns");
    if (now >= stop)
    {
        return;
    }
    uint64_t size = DrawSize(f.Key("sizes"), g.rv);
    double rate = f.Real("rate");
    int64_t gap = std::max<int64_t>(1, std::llround(Exponential(g.rv, 1e9 / rate)));
    int src = f.src, dst = f.dst, pair = -1;
    if (!f.pool.empty())
    {
        // The first pair with nothing in progress, else the first of the least busy (qdsim).
        size_t best = 0;
        for (size_t k = 0; k < g.busy.size(); ++k)
        {
            if (g.busy[k] < g.busy[best])
            {
                best = k;
            }
            if (g.busy[k] == 0)
            {
                best = k;
                break;
            }
        }
        pair = int(best);
        ++g.busy[best];
        src = f.pool[best].first;
        dst = f.pool[best].second;
    }
    OpenFresh(flow, src, dst, NewTransfer(flow, 0, now, size), pair);
    if (now + gap < stop)
    {
        Simulator::Schedule(NanoSeconds(gap), &Arrival, flow);
    }
}

// ---------------------------------------------------------------------------------------
// Datagrams

struct Datagrams
{
    int flow;
    Ptr<Socket> sock;
    Ptr<UniformRandomVariable> rv;
    int64_t stopNs;
    uint64_t uncounted;
};

std::vector<std::unique_ptr<Datagrams>> g_datagrams;

void
SendDatagram(Datagrams* d, uint32_t ipBytes)
{
    d->sock->Send(Create<Packet>(ipBytes - kIpUdpHeaders));
    ++g_flows[d->flow].sent;
}

void
CbrTick(Datagrams* d)
{
    if (Simulator::Now().GetNanoSeconds() >= d->stopNs)
    {
        return;
    }
    const FlowSpec& f = g_s.flows[d->flow];
    SendDatagram(d, uint32_t(f.Int("bytes")));
    Simulator::Schedule(NanoSeconds(f.Int("interval_ns")), &CbrTick, d);
}

void
PoissonNext(Datagrams* d)
{
    const FlowSpec& f = g_s.flows[d->flow];
    int64_t gap = std::llround(Exponential(d->rv, f.Real("gap_ns")));
    if (Simulator::Now().GetNanoSeconds() + gap < d->stopNs)
    {
        Simulator::Schedule(NanoSeconds(gap), [d]() {
            const FlowSpec& f = g_s.flows[d->flow];
            uint32_t size = uint32_t(f.Int("bytes"));
            if (f.Key("law") == "exponential")
            {
                double x = std::round(Exponential(d->rv, double(size)));
                x = std::min(std::max(x, double(f.Int("min"))), double(f.Int("max")));
                size = uint32_t(x);
            }
            SendDatagram(d, size);
            PoissonNext(d);
        });
    }
}

void
OnDatagram(Datagrams* d, Ptr<Socket> s)
{
    while (Ptr<Packet> p = s->Recv())
    {
        uint64_t ip = p->GetSize() + kIpUdpHeaders;
        g_flows[d->flow].delivered += ip > d->uncounted ? ip - d->uncounted : 0;
    }
}

// ---------------------------------------------------------------------------------------
// Building the run

void
BuildNetwork()
{
    for (const auto& [name, value] : g_s.defaults)
    {
        Config::SetDefault(name, StringValue(value));
    }
    g_nodes.Create(uint32_t(g_s.nodes.size()));
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    stack.Install(g_nodes);

    g_links.resize(g_s.links.size());
    std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> devices;
    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    for (const auto& [j, k, delay] : g_s.channels)
    {
        const LinkSpec& a = g_s.links[j];
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(delay)));
        NetDeviceContainer d = p2p.Install(g_nodes.Get(a.from), g_nodes.Get(a.to));
        g_links[j].dev = DynamicCast<PointToPointNetDevice>(d.Get(0));
        g_links[k].dev = DynamicCast<PointToPointNetDevice>(d.Get(1));
        devices.emplace_back(d.Get(0), d.Get(1));
    }
    for (size_t j = 0; j < g_s.links.size(); ++j)
    {
        const LinkSpec& l = g_s.links[j];
        LinkStats& s = g_links[j];
        if (!s.dev)
        {
            Fail("link " + std::to_string(j) + " is on no channel");
        }
        s.dev->SetDataRate(DataRate(l.rateBps));
        s.dev->GetQueue()->SetMaxSize(QueueSize(l.devQueue));
        s.qdiscType = l.qdiscType;
        if (l.qdiscType == "none")
        {
            // The device queue alone: a queue of its own, which the device's flow control
            // does not watch, so that the traffic-control layer hands it every packet and a
            // full queue drops the arrival (the helper's queue would stop the layer, which
            // then drops before the device).
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(QueueSize(l.devQueue));
            s.dev->SetQueue(q);
        }
        if (l.qdiscType != "none")
        {
            s.qdisc = Make<QueueDisc>(l.qdiscType, l.qdiscAttrs, "queue disc");
            if (l.quantum >= 0)
            {
                Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(s.qdisc);
                if (!fq)
                {
                    Fail("@Quantum on a queue disc that is not FqCoDel");
                }
                fq->SetQuantum(uint32_t(l.quantum));
            }
            g_nodes.Get(l.from)->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(s.dev, s.qdisc);
        }
        if (l.loss > 0)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(l.loss);
            // The receiving device of link j is the other end of its channel.
            Ptr<Channel> ch = s.dev->GetChannel();
            Ptr<NetDevice> rx = ch->GetDevice(0) == s.dev ? ch->GetDevice(1) : ch->GetDevice(0);
            rx->SetAttribute("ReceiveErrorModel", PointerValue(em));
            rx->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&OnWireDrop, &s));
        }
    }

    Ipv4AddressHelper address("10.0.0.0", "255.255.255.252");
    g_addr.assign(g_s.nodes.size(), Ipv4Address());
    std::vector<bool> addressed(g_s.nodes.size(), false);
    for (size_t c = 0; c < devices.size(); ++c)
    {
        NetDeviceContainer pair;
        pair.Add(devices[c].first);
        pair.Add(devices[c].second);
        Ipv4InterfaceContainer ifs = address.Assign(pair);
        address.NewNetwork();
        int j = std::get<0>(g_s.channels[c]);
        int ends[2] = {g_s.links[j].from, g_s.links[j].to};
        for (int e = 0; e < 2; ++e)
        {
            // A node's address is its address on the first channel it is on.
            if (!addressed[ends[e]])
            {
                g_addr[ends[e]] = ifs.GetAddress(e);
                addressed[ends[e]] = true;
            }
        }
    }

    for (size_t j = 0; j < g_s.links.size(); ++j)
    {
        const LinkSpec& l = g_s.links[j];
        LinkStats& s = g_links[j];
        Ptr<Ipv4> ip = g_nodes.Get(l.from)->GetObject<Ipv4>();
        ip->SetMetric(uint32_t(ip->GetInterfaceForDevice(s.dev)), uint16_t(l.metric));
        Ptr<TrafficControlLayer> tc = g_nodes.Get(l.from)->GetObject<TrafficControlLayer>();
        if (!s.qdisc && tc->GetRootQueueDiscOnDevice(s.dev))
        {
            tc->DeleteRootQueueDiscOnDevice(s.dev); // address assignment installs a default
        }
        Ptr<Queue<Packet>> q = s.dev->GetQueue();
        q->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&OnDevPackets, &s));
        q->TraceConnectWithoutContext("BytesInQueue", MakeBoundCallback(&OnDevBytes, &s));
        q->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&OnDevEnqueue, &s));
        q->TraceConnectWithoutContext("Dequeue", MakeBoundCallback(&OnDevDequeue, &s));
        q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDevDrop, &s));
        s.dev->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&OnTxEnd, &s));
        if (s.qdisc)
        {
            s.qdisc->TraceConnectWithoutContext("PacketsInQueue",
                                                MakeBoundCallback(&OnQdiscPackets, &s));
            s.qdisc->TraceConnectWithoutContext("BytesInQueue",
                                                MakeBoundCallback(&OnQdiscBytes, &s));
            s.qdisc->TraceConnectWithoutContext("Dequeue", MakeBoundCallback(&OnQdiscDequeue, &s));
            s.qdisc->TraceConnectWithoutContext("DropAfterDequeue",
                                                MakeBoundCallback(&OnQdiscDropAfterDequeue, &s));
            s.qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&OnQdiscDrop));
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

int64_t
StartTime(const FlowSpec& f)
{
    int64_t start = f.startNs;
    if (f.jitterNs > 0)
    {
        start += std::min<int64_t>(f.jitterNs - 1,
                                   int64_t(g_startRv->GetValue() * double(f.jitterNs)));
    }
    return start;
}

void
Listen(int flow, int node)
{
    const FlowSpec& f = g_s.flows[flow];
    Ptr<TcpSocketBase> l = MakeTcpSocket(node, g_s.tcp.at(int(f.Int("tcp"))), nullptr);
    l->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPortBase + flow));
    l->Listen();
    l->SetAcceptCallback(MakeCallback(&AcceptAll), MakeCallback(&OnAccept));
}

void
BuildFlows(std::vector<int64_t>& starts)
{
    g_flows.resize(g_s.flows.size());
    g_persistent.assign(g_s.flows.size(), nullptr);
    starts.assign(g_s.flows.size(), 0);
    for (size_t i = 0; i < g_s.flows.size(); ++i)
    {
        const FlowSpec& f = g_s.flows[i];
        int flow = int(i);
        int64_t start = StartTime(f);
        bool due = start < g_s.durationNs;
        if (f.kind == "cbr" || f.kind == "poisson")
        {
            auto d = std::make_unique<Datagrams>();
            d->flow = flow;
            d->stopNs = f.Int("stop_ns");
            d->uncounted = uint64_t(f.Int("uncounted"));
            d->rv = CreateObject<UniformRandomVariable>();
            d->sock = Socket::CreateSocket(g_nodes.Get(f.src), UdpSocketFactory::GetTypeId());
            d->sock->Bind();
            d->sock->Connect(InetSocketAddress(g_addr[f.dst], kPortBase + flow));
            Ptr<Socket> sink = Socket::CreateSocket(g_nodes.Get(f.dst), UdpSocketFactory::GetTypeId());
            sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPortBase + flow));
            sink->SetRecvCallback(MakeBoundCallback(&OnDatagram, d.get()));
            if (due)
            {
                if (f.kind == "cbr")
                {
                    Simulator::Schedule(NanoSeconds(start), &CbrTick, d.get());
                }
                else
                {
                    Simulator::Schedule(NanoSeconds(start), &PoissonNext, d.get());
                }
            }
            g_datagrams.push_back(std::move(d));
            starts[i] = start;
            continue;
        }
        g_flows[i].tcp = true;
        std::vector<int> receivers{f.dst};
        for (const auto& [a, b] : f.pool)
        {
            receivers.push_back(b);
        }
        std::sort(receivers.begin(), receivers.end());
        receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
        for (int r : receivers)
        {
            Listen(flow, r);
        }
        if (f.kind == "bulk")
        {
            Conn* c = NewConn(flow, f.src, f.dst);
            c->infinite = true;
            c->fresh = false;
            if (due)
            {
                Simulator::Schedule(NanoSeconds(start), &Open, c, int64_t(-1));
            }
        }
        else if (f.kind == "finite" || f.kind == "rounds")
        {
            size_t t = NewTransfer(flow, 0, start, uint64_t(f.Int("size")));
            Conn* c = NewConn(flow, f.src, f.dst);
            if (f.kind == "rounds")
            {
                Barrier& b = g_barriers[f.Key("barrier")];
                b.members.push_back(flow);
                ++b.outstanding;
                b.rounds = uint32_t(f.Int("rounds"));
                b.thinkNs = f.Int("think_ns");
                b.persistent = f.Int("persistent") != 0;
                c->fresh = !b.persistent;
                g_persistent[i] = c;
            }
            if (due)
            {
                Simulator::Schedule(NanoSeconds(start), &Open, c, int64_t(t));
            }
        }
        else if (f.kind == "short")
        {
            Generator& g = g_generators[flow];
            g.rv = CreateObject<UniformRandomVariable>();
            g.busy.assign(f.pool.size(), 0);
            if (due)
            {
                Simulator::Schedule(NanoSeconds(start), &Arrival, flow);
            }
        }
        else if (f.kind == "onoff")
        {
            Generator& g = g_generators[flow];
            g.rv = CreateObject<UniformRandomVariable>();
            g.bursts = 1; // the first goes with the connection
            if (f.Key("first") == "idle")
            {
                start += std::max<int64_t>(1, std::llround(Exponential(g.rv, f.Real("idle_ns"))));
            }
            Conn* c = NewConn(flow, f.src, f.dst);
            c->fresh = false;
            g_persistent[i] = c;
            if (start < g_s.durationNs)
            {
                size_t t = NewTransfer(flow, 0, start, uint64_t(f.Int("burst")));
                Simulator::Schedule(NanoSeconds(start), &Open, c, int64_t(t));
            }
        }
        else
        {
            Fail("unknown flow kind " + f.kind);
        }
        starts[i] = start;
    }
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: %s <scenario file written by qdsim>\n", argv[0]);
        return 2;
    }
    g_s = Read(argv[1]);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(g_s.seed);

    // The two snapshots first, so that they come first among their instant's events.
    Simulator::Schedule(NanoSeconds(g_s.warmupNs), &Snap, "warmup");
    Simulator::Schedule(NanoSeconds(g_s.durationNs), &Snap, "end");
    Simulator::Stop(NanoSeconds(g_s.durationNs));

    BuildNetwork();
    g_startRv = CreateObject<UniformRandomVariable>();
    std::vector<int64_t> starts;
    BuildFlows(starts);

    Simulator::Run();

    for (size_t i = 0; i < starts.size(); ++i)
    {
        std::printf("flow %zu start %s\n", i, Seconds9(starts[i]).c_str());
    }
    for (const Transfer& t : g_transfers)
    {
        std::printf("transfer %d %u %s %llu %s\n",
                    t.flow,
                    t.round,
                    Seconds9(t.startNs).c_str(),
                    (unsigned long long)t.size,
                    t.doneNs < 0 ? "-" : Seconds9(t.doneNs - t.startNs).c_str());
    }
    std::printf("end %llu\n", (unsigned long long)Simulator::GetEventCount());
    std::fflush(stdout);
    // Tearing the simulation down object by object takes longer than the run for large
    // networks and changes nothing: leave.
    _exit(0);
}
