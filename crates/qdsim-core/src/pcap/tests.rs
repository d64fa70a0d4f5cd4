use super::*;
use crate::config::Names;
use crate::packet::FLAG_RETX;
use crate::qdisc::testing::pkt;
use crate::tcp::{WireFormat, WireSizes};
use crate::time::Time;

/// A TCP view of an `ietf` connection with timestamps and SACK, rwnd 1 MB.
fn view(bytes: u64, payload: u32) -> TcpView {
    TcpView {
        bytes,
        payload,
        sack: [(0, 0); 4],
        handshake: true,
        timestamps: true,
        sack_permitted: true,
        syn_options: true,
        mss_option: 1460,
        window_bytes: 1 << 20,
    }
}

/// The IPv4 and TCP headers of a captured frame.
fn parse_tcp(buf: &[u8]) -> (Ipv4Header, TcpHeader) {
    let (ip, rest) = Ipv4Header::from_slice(&buf[14..]).expect("an IPv4 header");
    let (tcp, rest) = TcpHeader::from_slice(rest).expect("a TCP header");
    assert!(rest.is_empty(), "only the headers are captured");
    (ip, tcp)
}

#[test]
fn a_data_segment_carries_its_byte_numbers_timestamp_and_wire_length() {
    let w = WireSizes::new(WireFormat::Ietf, true, true);
    let mut p = pkt(3, 1500);
    p.src = 4;
    p.dst = 7;
    p.number = 2;
    p.ts = Time::from_ns(1_234_567_890);
    p.ecn = Ecn::Ce;
    p.flags = FLAG_CWR | FLAG_RETX;
    let mut buf = Vec::new();
    // Segment 2 of a 1448-byte MSS starts at byte 2896, after the SYN's byte 0.
    let orig = encode(&mut buf, &p, 4, 5, 0, Some(&view(2896, 1500 - w.data_header_bytes)));
    let (ip, tcp) = parse_tcp(&buf);
    assert_eq!(orig, 14 + 1500, "the frame's length is the packet's on the wire");
    assert_eq!(ip.total_len, 1500, "IP counts the payload that is not captured");
    assert_eq!(buf.len(), 14 + 20 + 32, "Ethernet, IP, TCP with NOP NOP TS");
    assert_eq!((ip.source, ip.destination), ([10, 0, 0, 5], [10, 0, 0, 8]));
    assert_eq!(&buf[0..6], &node_mac(5), "to the link's far end");
    assert_eq!(ip.ecn, IpEcn::CongestionExperienced);
    assert_eq!((tcp.source_port, tcp.destination_port), (1027, 5001));
    assert_eq!(tcp.sequence_number, 2897);
    assert!(tcp.ack && tcp.cwr && !tcp.ece && !tcp.syn);
    let elements: Vec<_> = tcp.options_iterator().map(|o| o.expect("well-formed")).collect();
    assert_eq!(elements.last(), Some(&etherparse::TcpOptionElement::Timestamp(1234, 0)));
    // The window scale the SYN announced (1 MB needs 5) applies to every later segment.
    assert_eq!(tcp.window_size, ((1u64 << 20) >> 5) as u16);
}

#[test]
fn an_ack_carries_the_next_byte_expected_and_sack_blocks_in_bytes() {
    let w = WireSizes::new(WireFormat::Ietf, true, true);
    let mut a = pkt(0, w.ack(2));
    a.kind = PacketKind::Ack;
    a.src = 1;
    a.dst = 0;
    a.number = 3;
    a.ts = Time::from_ns(5_000_000);
    a.flags = FLAG_ECE;
    let mut v = view(3 * 1448, 0);
    v.sack = [(5 * 1448, 7 * 1448), (9 * 1448, 10 * 1448), (0, 0), (0, 0)];
    let mut buf = Vec::new();
    let orig = encode(&mut buf, &a, 1, 0, 9, Some(&v));
    let (ip, tcp) = parse_tcp(&buf);
    assert_eq!(ip.total_len as u32, w.ack(2), "the header is as long as wire.rs counts it");
    assert_eq!(orig, 14 + w.ack(2));
    assert_eq!((tcp.source_port, tcp.destination_port), (5001, 1024), "ACKs run the other way");
    assert_eq!((tcp.sequence_number, tcp.acknowledgment_number), (1, 3 * 1448 + 1));
    assert!(tcp.ece && tcp.ack);
    let elements: Vec<_> = tcp.options_iterator().map(|o| o.expect("well-formed")).collect();
    assert!(elements.contains(&etherparse::TcpOptionElement::Timestamp(9, 5)), "{elements:?}");
    assert!(elements.contains(&etherparse::TcpOptionElement::SelectiveAcknowledgement(
        (5 * 1448 + 1, 7 * 1448 + 1),
        [Some((9 * 1448 + 1, 10 * 1448 + 1)), None, None]
    )));
}

#[test]
fn syn_and_syn_ack_are_as_long_as_wire_rs_counts_them_in_every_option_set() {
    for (timestamps, sack) in [(true, true), (true, false), (false, true), (false, false)] {
        let w = WireSizes::new(WireFormat::Ietf, timestamps, sack);
        let v = TcpView { timestamps, sack_permitted: sack, ..view(0, 0) };
        for kind in [PacketKind::Data, PacketKind::Ack] {
            let mut p = pkt(0, w.syn_bytes);
            p.kind = kind;
            p.flags = FLAG_SYN;
            let mut buf = Vec::new();
            encode(&mut buf, &p, 0, 1, 0, Some(&v));
            let (ip, tcp) = parse_tcp(&buf);
            assert_eq!(ip.total_len as u32, w.syn_bytes, "ts {timestamps} sack {sack} {kind:?}");
            assert!(tcp.syn && tcp.ack == (kind == PacketKind::Ack));
            assert_eq!(tcp.sequence_number, 0);
            let elements: Vec<_> = tcp.options_iterator().map(|o| o.expect("well-formed")).collect();
            assert!(elements.contains(&etherparse::TcpOptionElement::WindowScale(5)));
            assert_eq!(elements.contains(&etherparse::TcpOptionElement::SelectiveAcknowledgementPermitted), sack);
        }
    }
}

#[test]
fn without_a_handshake_data_starts_at_byte_zero_and_the_window_is_unscaled() {
    let mut p = pkt(0, 1040);
    p.number = 1;
    let v = TcpView { handshake: false, timestamps: false, ..view(1000, 1000) };
    let mut buf = Vec::new();
    encode(&mut buf, &p, 0, 1, 0, Some(&v));
    let (_, tcp) = parse_tcp(&buf);
    assert_eq!(tcp.sequence_number, 1000);
    assert_eq!(tcp.window_size, u16::MAX, "1 MB does not fit 16 bits without a scale");
}

#[test]
fn ns2_headers_longer_than_its_accounting_lengthen_the_frame() {
    // ns-2 counts 8 bytes per SACK block and no option bytes: 48 for one block, where the
    // RFC layout takes 40 + 4 + 8 = 52.
    let w = WireSizes::new(WireFormat::Ns2, false, true);
    let mut a = pkt(0, w.ack(1));
    a.kind = PacketKind::Ack;
    a.number = 1;
    let mut v = TcpView { timestamps: false, syn_options: false, handshake: false, ..view(1000, 0) };
    v.sack[0] = (2000, 3000);
    let mut buf = Vec::new();
    let orig = encode(&mut buf, &a, 1, 0, 0, Some(&v));
    assert_eq!(buf.len(), 14 + 52);
    assert_eq!(orig, 14 + 52, "never shorter than what was captured");
}

#[test]
fn a_datagram_counts_its_wire_size_with_udp_s_eight_byte_header() {
    let mut d = pkt(70_000, 1000);
    d.kind = PacketKind::Udp;
    d.ecn = Ecn::Ect;
    let mut buf = Vec::new();
    let orig = encode(&mut buf, &d, 0, 1, 0, None);
    let (ip, rest) = Ipv4Header::from_slice(&buf[14..]).expect("IPv4");
    let (udp, _) = UdpHeader::from_slice(rest).expect("UDP");
    assert_eq!((ip.total_len, udp.length, orig), (1000, 980, 1014));
    assert_eq!(ip.ecn, IpEcn::Ect0);
    assert_eq!((udp.source_port, udp.destination_port), (1024 + (70_000 % 64512) as u16, 5002));
}

#[test]
fn file_names_are_safe_and_validation_names_the_key() {
    assert_eq!(PcapConfig::file_name("r1->r2", false), "r1-_r2.pcap");
    assert_eq!(PcapConfig::file_name("bottleneck", true), "bottleneck.drops.pcap");
    let links: Names = ["a>b", "a<b", "c"].into_iter().collect();
    let cfg = |names: &[&str]| PcapConfig {
        links: names.iter().map(|s| s.to_string()).collect(),
        dir: "/tmp".into(),
        drops: false,
    };
    assert_eq!(cfg(&["c"]).validate(&links), Ok(()));
    assert_eq!(cfg(&[]).validate(&links).unwrap_err().key, "pcap.links");
    let unknown = cfg(&["c", "x"]).validate(&links).unwrap_err();
    assert_eq!(unknown.key, "pcap.links[1]");
    assert!(unknown.allowed.contains("a<b, a>b, c"), "{}", unknown.allowed);
    assert_eq!(cfg(&["a>b", "a<b"]).validate(&links).unwrap_err().key, "pcap.links[1]", "same file name");
    assert_eq!(cfg(&["c", "c"]).validate(&links).unwrap_err().key, "pcap.links[1]");
}

#[test]
fn window_scale_is_the_smallest_that_fits_16_bits() {
    assert_eq!([65_535, 65_536, 1 << 20, u64::MAX].map(window_scale), [0, 1, 5, 14]);
}

#[test]
fn a_written_capture_reads_back_with_nanosecond_times() {
    let mut w = writer(Vec::new()).expect("header");
    write_frame(&mut w, 1_500_000_123, 1514, &[1, 2, 3]).expect("frame");
    let bytes = w.into_writer();
    let mut r = pcap_file::pcap::PcapReader::new(&bytes[..]).expect("a capture");
    assert_eq!(r.header().ts_resolution, pcap_file::TsResolution::NanoSecond);
    let p = r.next_packet().expect("one packet").expect("readable");
    assert_eq!((p.timestamp.as_nanos(), p.orig_len, &p.data[..]), (1_500_000_123, 1514, &[1u8, 2, 3][..]));
    assert!(r.next_packet().is_none());
}
