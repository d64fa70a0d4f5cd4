//! Packet capture (`pcap`): what crossed a link, as the headers a real capture of it would
//! hold, for Wireshark, tshark and tcpdump.
//!
//! qdsim's packets carry segment numbers and sizes, not bytes; a capture writes each as the
//! frame a real host would have sent (Ethernet II, IPv4, TCP or UDP), built with `etherparse`
//! and written with `pcap-file` (classic libpcap format, nanosecond timestamps in simulated
//! time):
//!
//! - **Addresses.** Node `n` is `10.a.b.c` with `a.b.c` = n + 1 in base 256, and MAC
//!   `02:00:` + n in 32 bits; each frame goes from the link's source node to its destination.
//!   Flow `f` (a configured flow or a connection one opened) runs from port
//!   1024 + f mod 64512 to port 5001 + ⌊f / 64512⌋; its ACKs the other way.
//! - **TCP numbers in bytes.** Both initial sequence numbers are 0, so Wireshark's absolute
//!   and relative numbers agree. With a handshake the SYN takes byte 0 and the data starts
//!   at byte 1. A segment's sequence number is where it starts in the byte stream on the
//!   wire (a persistent connection's chunks back to back; ns-2's padded last segments
//!   full), an ACK's the start of the next segment expected, SACK blocks likewise (RFC 2018).
//! - **Options as the packet carried them.** Timestamps (NOP, NOP, TS: TSval the sender's
//!   transmit time in ms, an ACK's TSecr the echo of the segment it answers), SACK blocks
//!   (NOP, NOP, SACK), and on the SYN and SYN-ACK of the `ietf` wire format MSS, SACK
//!   permitted and window scale as Linux lays them out, so each header is as long as
//!   `tcp/wire.rs` counts it. The advertised window is the flow's `rwnd`, scaled by the
//!   window scale the SYN announced. ECN: the IP header's two bits, ECE and CWR flags.
//! - **Lengths.** Only the headers are captured (the payload is not simulated); the IP
//!   total length counts the payload, and the frame's original length is the packet's size
//!   on the wire plus 14 bytes of Ethernet. Under `wire = "ns2"`, whose header accounting is
//!   not the RFC layout (an ACK's SACK blocks without option bytes, 10 bytes of timestamp),
//!   the headers are still written in the RFC layout and the original length is the larger
//!   of the two.

use std::collections::BTreeSet;
use std::io::Write;

use etherparse::{EtherType, Ethernet2Header, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};
use serde::{Deserialize, Serialize};

use crate::config::Names;
use crate::error::ConfigError;
use crate::packet::{Ecn, NodeId, Packet, PacketKind, FLAG_CWR, FLAG_ECE, FLAG_SYN};

/// Which links to capture and where (`RunConfig::pcap`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapConfig {
    /// Names of the links captured: each into `dir/<name>.pcap` ([`PcapConfig::file_name`]).
    pub links: Vec<String>,
    /// The directory the files are written to; it must exist.
    pub dir: String,
    /// Also write each captured link's dropped packets (by its qdisc or on the wire) to
    /// `dir/<name>.drops.pcap`, stamped when they were dropped.
    #[serde(default)]
    pub drops: bool,
}

impl PcapConfig {
    /// Checks the names against the run's links.
    ///
    /// # Errors
    /// No link, an unknown or repeated one, two names that make the same file name, or an
    /// empty directory.
    pub fn validate(&self, links: &Names<'_>) -> Result<(), ConfigError> {
        if self.links.is_empty() {
            return Err(ConfigError::new("pcap.links", "[]", "at least one link name"));
        }
        let mut files = BTreeSet::new();
        for (i, name) in self.links.iter().enumerate() {
            if !links.contains(name.as_str()) {
                let mut known: Vec<&str> = links.iter().copied().collect();
                known.sort_unstable();
                return Err(ConfigError::new(
                    format!("pcap.links[{i}]"),
                    name,
                    format!("a link of the run ({})", known.join(", ")),
                ));
            }
            if !files.insert(Self::file_name(name, false)) {
                return Err(ConfigError::new(
                    format!("pcap.links[{i}]"),
                    name,
                    "a link listed once (and not one whose file name another's already takes)",
                ));
            }
        }
        if self.dir.is_empty() {
            return Err(ConfigError::new("pcap.dir", "\"\"", "a directory"));
        }
        Ok(())
    }

    /// Returns the file name of link `link`'s capture (its dropped packets' with `drops`):
    /// the name with every character other than letters, digits, `.`, `_` and `-` replaced by
    /// `_` (`"r1->r2"` gives `r1-_r2.pcap`).
    pub fn file_name(link: &str, drops: bool) -> String {
        let stem: String =
            link.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
        format!("{stem}{}", if drops { ".drops.pcap" } else { ".pcap" })
    }
}

/// What a TCP segment's header says beyond the packet itself: its byte numbers and the
/// connection's options (filled from the connection by the simulator).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpView {
    /// Data: the sequence number of its first byte. ACK: the acknowledgement number.
    pub bytes: u64,
    /// Data: payload bytes on the wire.
    pub payload: u32,
    /// SACK blocks in bytes (half-open ranges), as many as the packet carries.
    pub sack: [(u64, u64); 4],
    /// The connection opened with a SYN (which took sequence number 0).
    pub handshake: bool,
    /// The timestamp option is on every segment.
    pub timestamps: bool,
    /// SACK was negotiated (the SYN says SACK permitted).
    pub sack_permitted: bool,
    /// The RFC layout of options on the SYN (`wire = "ietf"`); ns-2's SYN carries none.
    pub syn_options: bool,
    /// The MSS option's value (`packet_size` − 40).
    pub mss_option: u16,
    /// The receive window advertised, bytes.
    pub window_bytes: u64,
}

/// Returns node `n`'s IPv4 address.
pub fn node_ip(n: NodeId) -> [u8; 4] {
    let [_, a, b, c] = (n + 1).to_be_bytes();
    [10, a, b, c]
}

/// Returns node `n`'s MAC address (locally administered).
pub fn node_mac(n: NodeId) -> [u8; 6] {
    let [a, b, c, d] = n.to_be_bytes();
    [0x02, 0, a, b, c, d]
}

/// Returns flow `flow`'s (sender port, receiver port).
pub fn flow_ports(flow: u32) -> (u16, u16) {
    ((1024 + flow % 64512) as u16, (5001 + flow / 64512) as u16)
}

/// Returns the window scale a SYN announces for a receive window of `bytes`: the smallest
/// that fits it in 16 bits, at most 14 (RFC 7323 §2.3).
pub fn window_scale(bytes: u64) -> u8 {
    (0..14u8).find(|&s| bytes >> s <= u16::MAX as u64).unwrap_or(14)
}

/// Zero bytes standing for payloads in checksums (never written).
static ZEROS: [u8; 1 << 16] = [0; 1 << 16];

/// Writes the headers of `pkt`, sent over the link `from` → `to` at `now_ms`, into `buf`
/// (cleared first) and returns the frame's original length on the wire. `tcp` is the
/// segment's view for TCP packets (`None` for UDP).
pub fn encode(buf: &mut Vec<u8>, pkt: &Packet, from: NodeId, to: NodeId, now_ms: u32, tcp: Option<&TcpView>) -> u32 {
    buf.clear();
    let eth = Ethernet2Header { source: node_mac(from), destination: node_mac(to), ether_type: EtherType::IPV4 };
    let to_receiver = pkt.kind != PacketKind::Ack;
    let (src, dst) = (pkt.src, pkt.dst);
    let (flow_port, peer_port) = flow_ports(pkt.flow);
    let (sport, dport) = if to_receiver { (flow_port, peer_port) } else { (peer_port, flow_port) };
    let ecn = match pkt.ecn {
        Ecn::NotEct => IpEcn::NotEct,
        Ecn::Ect => IpEcn::Ect0,
        Ecn::Ce => IpEcn::CongestionExperienced,
    };
    let ip_for = |protocol: IpNumber, payload: usize| {
        let mut ip =
            Ipv4Header::new(payload.min(u16::MAX as usize - 20) as u16, 64, protocol, node_ip(src), node_ip(dst))
                .expect("payload bounded above");
        ip.ecn = ecn;
        ip.dont_fragment = true;
        ip.header_checksum = ip.calc_header_checksum();
        ip
    };
    let (ip_total, headers) = match (pkt.kind, tcp) {
        (PacketKind::Udp, _) | (_, None) => {
            // The UDP datagram's wire size counts 40 bytes of headers (`packet.rs`): IP and
            // UDP take 28 of them, the rest is payload.
            let payload = (pkt.size_bytes as usize).saturating_sub(28);
            let ip = ip_for(IpNumber::UDP, 8 + payload);
            let udp = UdpHeader::with_ipv4_checksum(sport, dport, &ip, &ZEROS[..payload]).expect("payload bounded");
            eth.write(buf).expect("writing to memory");
            ip.write(buf).expect("writing to memory");
            udp.write(buf).expect("writing to memory");
            (ip.total_len as u32, buf.len())
        }
        (kind, Some(v)) => {
            let header = tcp_header(pkt, kind, v, sport, dport, now_ms);
            let payload = if kind == PacketKind::Data && !pkt.has(FLAG_SYN) { v.payload as usize } else { 0 };
            let ip = ip_for(IpNumber::TCP, header.header_len() + payload);
            let mut header = header;
            header.checksum =
                header.calc_checksum_ipv4(&ip, &ZEROS[..payload.min(ZEROS.len())]).expect("payload bounded");
            eth.write(buf).expect("writing to memory");
            ip.write(buf).expect("writing to memory");
            header.write(buf).expect("writing to memory");
            (ip.total_len as u32, buf.len())
        }
    };
    (Ethernet2Header::LEN as u32 + pkt.size_bytes).max(Ethernet2Header::LEN as u32 + ip_total).max(headers as u32)
}

/// Returns the TCP header of a segment (checksum not yet computed).
fn tcp_header(pkt: &Packet, kind: PacketKind, v: &TcpView, sport: u16, dport: u16, now_ms: u32) -> TcpHeader {
    let syn = pkt.has(FLAG_SYN);
    let first_data = u64::from(v.handshake);
    let scale = if v.handshake && v.syn_options { window_scale(v.window_bytes) } else { 0 };
    let window = (v.window_bytes >> if syn { 0 } else { scale }).min(u16::MAX as u64) as u16;
    // Sequence numbers are modulo 2^32, as on the wire.
    let wire = |bytes: u64| bytes as u32;
    let mut h = TcpHeader::new(sport, dport, 0, window);
    let ms = |t: crate::time::Time| (t.as_ns() / 1_000_000) as u32;
    let mut options: Vec<TcpOptionElement> = Vec::with_capacity(6);
    match kind {
        PacketKind::Data if syn => {
            h.syn = true;
            if v.syn_options {
                options.extend(syn_options(v, ms(pkt.ts), 0, scale));
            }
        }
        PacketKind::Data => {
            h.sequence_number = wire(first_data + v.bytes);
            h.ack = true;
            h.acknowledgment_number = wire(first_data);
            h.psh = true;
            if v.timestamps {
                options.extend([
                    TcpOptionElement::Noop,
                    TcpOptionElement::Noop,
                    TcpOptionElement::Timestamp(ms(pkt.ts), 0),
                ]);
            }
        }
        _ => {
            h.ack = true;
            h.syn = syn;
            h.sequence_number = wire(if syn { 0 } else { first_data });
            h.acknowledgment_number = wire(if syn { 1 } else { first_data + v.bytes });
            if syn {
                if v.syn_options {
                    options.extend(syn_options(v, now_ms, ms(pkt.ts), scale));
                }
            } else {
                if v.timestamps {
                    options.extend([
                        TcpOptionElement::Noop,
                        TcpOptionElement::Noop,
                        TcpOptionElement::Timestamp(now_ms, ms(pkt.ts)),
                    ]);
                }
                let blocks: Vec<(u32, u32)> = v
                    .sack
                    .iter()
                    .filter(|(s, e)| e > s)
                    .map(|&(s, e)| (wire(first_data + s), wire(first_data + e)))
                    .collect();
                if let Some((&first, rest)) = blocks.split_first() {
                    let mut more = [None; 3];
                    for (slot, &b) in more.iter_mut().zip(rest) {
                        *slot = Some(b);
                    }
                    options.extend([
                        TcpOptionElement::Noop,
                        TcpOptionElement::Noop,
                        TcpOptionElement::SelectiveAcknowledgement(first, more),
                    ]);
                }
            }
        }
    }
    h.ece = pkt.has(FLAG_ECE);
    h.cwr = pkt.has(FLAG_CWR);
    // At most 40 bytes: TS 12 + 3 SACK blocks 28, or 4 blocks 36 (the receiver's limit).
    h.set_options(&options).expect("options fit their 40 bytes");
    h
}

/// The options of a SYN or SYN-ACK as Linux writes them (`tcp_options_write`): MSS, then
/// SACK permitted with the timestamps (or NOP, NOP, SACK permitted without), then NOP and
/// the window scale.
fn syn_options(v: &TcpView, ts_val: u32, ts_ecr: u32, scale: u8) -> Vec<TcpOptionElement> {
    use TcpOptionElement::{MaximumSegmentSize, Noop, SelectiveAcknowledgementPermitted, Timestamp, WindowScale};
    let mut o = vec![MaximumSegmentSize(v.mss_option)];
    match (v.timestamps, v.sack_permitted) {
        (true, true) => o.extend([SelectiveAcknowledgementPermitted, Timestamp(ts_val, ts_ecr)]),
        (true, false) => o.extend([Noop, Noop, Timestamp(ts_val, ts_ecr)]),
        (false, true) => o.extend([Noop, Noop, SelectiveAcknowledgementPermitted]),
        (false, false) => {}
    }
    o.extend([Noop, WindowScale(scale)]);
    o
}

/// Writes a frame of `orig_len` bytes whose headers are `data`, at `t_ns`, to a capture.
///
/// # Errors
/// The writer's.
pub fn write_frame<W: Write>(
    w: &mut pcap_file::pcap::PcapWriter<W>,
    t_ns: u64,
    orig_len: u32,
    data: &[u8],
) -> Result<(), pcap_file::PcapError> {
    let packet = pcap_file::pcap::PcapPacket::new(std::time::Duration::from_nanos(t_ns), orig_len, data);
    w.write_packet(&packet).map(|_| ())
}

/// Returns a writer of a capture file with nanosecond timestamps, its header written.
///
/// # Errors
/// The writer's.
pub fn writer<W: Write>(w: W) -> Result<pcap_file::pcap::PcapWriter<W>, pcap_file::PcapError> {
    let header = pcap_file::pcap::PcapHeader {
        ts_resolution: pcap_file::TsResolution::NanoSecond,
        endianness: pcap_file::Endianness::Little,
        ..Default::default()
    };
    pcap_file::pcap::PcapWriter::with_header(w, header)
}

#[cfg(test)]
mod tests;
