//! Prints a TCP sender's state every millisecond over a time range (a debugging aid):
//! `cargo run --release --example trace_cc -- <cc> <sack 0|1> <from_ms> <to_ms>`.
use qdsim_core::config::SourceConfig;
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::{Dumbbell, FlowGroup};
use qdsim_core::tcp::{CcKind, LimitedTransmit, RtoFormula, TcpConfig};
use qdsim_core::time::Time;
use qdsim_core::Sim;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let cc = match a[0].as_str() {
        "cubic" => CcKind::Cubic,
        "reno" => CcKind::Reno,
        _ => CcKind::Newreno,
    };
    let tcp = TcpConfig {
        cc,
        sack: a[1] == "1",
        limited_transmit: if std::env::var("LT").is_ok() { LimitedTransmit::Rfc3042 } else { LimitedTransmit::Off },
        rto_formula: if std::env::var("LRTO").is_ok() { RtoFormula::Linux } else { RtoFormula::Rfc6298 },
        ..TcpConfig::default()
    };
    let (from, to): (u64, u64) = (a[2].parse().unwrap(), a[3].parse().unwrap());
    let d = Dumbbell {
        rate_bps: 10_000_000,
        delay_ns: 5_000_000,
        loss: 0.0,
        qdisc: QdiscConfig::Fifo(FifoParams { limit_pkts: Some(20), limit_bytes: None }),
        groups: vec![FlowGroup {
            source: SourceConfig::Tcp { size_bytes: None, tcp, repeat: None },
            ..FlowGroup::bulk("g", 1, 5_000_000, TcpConfig::default())
        }],
    };
    let mut sim = Sim::new(&d.config(4, 30_000_000_000, 5_000_000_000)).unwrap();
    let mut last = String::new();
    for ms in from..to {
        sim.run_until(Time::from_ns(ms * 1_000_000));
        let s = sim.tcp_sender(0).unwrap();
        let line = format!(
            "cwnd {} ssth {} una {} nxt {} max {} fr {} to {} retx {}",
            s.win.cwnd,
            s.win.ssthresh,
            s.snd_una,
            s.snd_nxt,
            s.snd_max,
            s.stats.fast_retransmits,
            s.stats.timeouts,
            s.stats.retransmits
        );
        if line != last {
            println!("{ms} ms: {line}");
            last = line;
        }
    }
}
