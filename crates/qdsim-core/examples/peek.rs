//! Prints the results of a small dumbbell run (a development aid).
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::{Dumbbell, FlowGroup};
use qdsim_core::tcp::TcpConfig;

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (n, buf, dur) = (args.first().copied().unwrap_or(1) as usize, args.get(1).copied().unwrap_or(20), args.get(2).copied().unwrap_or(30));
    let d = Dumbbell {
        rate_bps: 10_000_000,
        delay_ns: 5_000_000,
        loss: 0.0,
        qdisc: QdiscConfig::Fifo(FifoParams { limit_pkts: Some(buf), limit_bytes: None }),
        groups: vec![FlowGroup::bulk("bulk", n, 5_000_000, TcpConfig { cc: match std::env::var("CC").as_deref() { Ok("cubic") => qdsim_core::tcp::CcKind::Cubic, _ => qdsim_core::tcp::CcKind::Newreno }, ..TcpConfig::default() })],
    };
    let mut cfg = d.config(1, dur * 1_000_000_000, 5_000_000_000);
    if std::env::var("TRACE").is_ok() {
        cfg.sampling = qdsim_core::config::SamplingConfig { interval_ns: 10_000_000, queues: false, tcp: true };
    }
    let r = qdsim_core::run(&cfg).unwrap();
    let s = &r.series.tcp;
    for i in 0..s.t.len() {
        if s.t[i] < 12.0 && i % 5 == 0 { println!("t {:.2} cwnd {} ssth {} srtt {:.4} infl {}", s.t[i], s.cwnd[i], s.ssthresh[i], s.srtt_s[i], s.inflight_bytes[i] / 1460); }
    }
    for f in &r.flows {
        println!("flow {} goodput {:.3} Mb/s retx {} fr {} to {} drops {}", f.id, f.goodput_bps / 1e6, f.retransmits, f.fast_retransmits, f.timeouts, f.drops);
    }
    let l = &r.links[0];
    println!("bottleneck util {:.4} drops {} meanq {:.2} maxq {} delay {:?} events {}", l.utilization, l.drops, l.mean_queue_pkts, l.max_queue_pkts, l.mean_delay_s, r.events);
}
