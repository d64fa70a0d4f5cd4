//! Packet capture of a whole run: each captured link's file holds exactly its transmissions
//! (and its drops, with `drops`), in time order, with TCP byte numbers that add up.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::*;
use etherparse::{Ipv4Header, TcpHeader};
use qdsim_core::config::SourceConfig;
use qdsim_core::pcap::PcapConfig;

/// Every frame of a capture file: (time ns, original length, captured bytes).
fn frames(path: &Path) -> Vec<(u128, u32, Vec<u8>)> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = pcap_file::pcap::PcapReader::new(file).expect("a capture");
    let mut out = vec![];
    while let Some(p) = r.next_packet() {
        let p = p.expect("readable");
        out.push((p.timestamp.as_nanos(), p.orig_len, p.data.into_owned()));
    }
    out
}

fn tcp_of(data: &[u8]) -> (Ipv4Header, TcpHeader) {
    let (ip, rest) = Ipv4Header::from_slice(&data[14..]).expect("IPv4");
    (ip, TcpHeader::from_slice(rest).expect("TCP").0)
}

#[test]
fn a_capture_holds_every_transmission_and_drop_of_its_links() {
    let dir = std::env::temp_dir().join(format!("qdsim-pcap-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two flows into a 20-packet FIFO: slow-start overshoot drops at the bottleneck; no
    // warm-up, so the link's counters cover the whole run as the capture does.
    let mut cfg = dumbbell(10_000_000, 5, 5, 2, 20).config(1, 3 * S, 0);
    for f in &mut cfg.flows {
        if let SourceConfig::Tcp { tcp, .. } = &mut f.source {
            tcp.handshake = true;
        }
    }
    cfg.pcap = Some(PcapConfig {
        links: vec!["bottleneck".into(), "s0->r1".into()],
        dir: dir.display().to_string(),
        drops: true,
    });
    let r = qdsim_core::run(&cfg).unwrap();
    let bottleneck = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let sent = frames(&dir.join("bottleneck.pcap"));
    let dropped = frames(&dir.join("bottleneck.drops.pcap"));
    assert_eq!(sent.len() as u64, bottleneck.tx_pkts, "one frame per transmission");
    assert!(bottleneck.drops > 0, "the scenario must drop");
    assert_eq!(dropped.len() as u64, bottleneck.drops, "one frame per drop");
    assert_eq!(sent.iter().map(|f| u64::from(f.1) - 14).sum::<u64>(), bottleneck.tx_bytes, "lengths are the wire's");
    assert!(sent.windows(2).all(|w| w[0].0 <= w[1].0), "time order");
    // Flow 0's access link: nothing is lost there, so its data frames are every segment the
    // sender sent, the resent ones again; their byte ranges are contiguous from byte 1.
    let access = frames(&dir.join(PcapConfig::file_name("s0->r1", false)));
    let flow0 = &r.flows[0];
    let mut seen = BTreeSet::new();
    let (mut syns, mut resent, mut highest) = (0, 0, 0u64);
    for (_, orig, data) in &access {
        let (ip, tcp) = tcp_of(data);
        assert_eq!(u32::from(ip.total_len) + 14, *orig);
        let payload = u64::from(ip.total_len) - ip.header_len() as u64 - tcp.header_len() as u64;
        if tcp.syn {
            syns += 1;
            continue;
        }
        let seq = u64::from(tcp.sequence_number);
        assert!(seq <= highest + 1, "no gap in the byte stream at {seq}");
        highest = highest.max(seq + payload - 1);
        if !seen.insert(seq) {
            resent += 1;
        }
    }
    assert_eq!(syns, 1, "one handshake, its SYN never lost here");
    assert_eq!(access.len() as u64, flow0.sent_pkts_total, "every segment sent, the SYN and the resent ones too");
    assert!(resent > 0 && resent <= flow0.retransmits_total, "{resent} of {}", flow0.retransmits_total);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_that_cannot_be_written_is_an_error_of_pcap_dir() {
    let mut cfg = dumbbell(10_000_000, 5, 5, 1, 20).config(1, S / 10, 0);
    cfg.pcap = Some(PcapConfig { links: vec!["bottleneck".into()], dir: "/nonexistent/qdsim".into(), drops: false });
    let e = qdsim_core::run(&cfg).unwrap_err();
    assert_eq!(e.key, "pcap.dir");
    assert!(e.allowed.contains("bottleneck.pcap"), "{e}");
}
