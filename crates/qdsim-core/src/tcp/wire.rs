//! Segment sizes on the wire: how many bytes of headers and options each kind of TCP
//! segment carries, as the stacks put them there (the `wire` option).
//!
//! `packet_size` is the wire size of a full data segment (an MTU-like value); the payload,
//! the MSS, is what remains after the headers and the options every data segment carries.
//!
//! - **`ietf`** (RFC 791/9293 headers, options padded to 32-bit words as Linux and ns-3 lay
//!   them out; research file §2–3 row 15): IPv4 20 + TCP 20 bytes; the timestamp option
//!   NOP, NOP, TS (12 bytes, RFC 7323 App. A) on every segment when `timestamps` is on; an ACK
//!   with n SACK blocks adds NOP, NOP, kind, length (4) + 8n (RFC 2018 §3), n ≤ 3 beside the
//!   timestamps and ≤ 4 without them (the 40-byte option space). The SYN (and SYN-ACK)
//!   carries MSS (4), NOP + window scale (4) and either SACK-permitted + TS (12), NOP, NOP, TS
//!   (12) or NOP, NOP, SACK-permitted (4): 60 bytes with timestamps, as Linux
//!   (`tcp_options_write`) and ns-3 send it.
//! - **`ns2`** (ns-2.35 `Agent/TCP` + `TCPSink/Sack1`, research file §1 row 15): data =
//!   payload + 40 (`tcpip_base_hdr_size_`) + 10 with timestamps (`ts_option_size_`, no
//!   padding); an ACK is 40 + 8n for n SACK blocks, n ≤ 3 (`maxSackBlocks_`), with no option
//!   kind, length or timestamp bytes; the SYN (packet 0) and its ACK are 40 bytes. Every
//!   data packet is `packetSize_` + headers, a transfer's last one too (ns-2's agents count
//!   packets, not bytes: `Agent::allocpkt` sizes each `size_`, agent.cc:461; `output`,
//!   tcp.cc:647-654): the sender pads the last segment of each transfer on the wire
//!   (`Stream::padded`), the receiver counts the application's bytes.

/// IPv4 + TCP headers without options, bytes.
pub const BASE_HEADER_BYTES: u32 = 40;

named_enum! {
    /// Whose wire-size rules a connection follows.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum WireFormat {
        /// The RFCs' layout, as Linux and ns-3 send it.
        #[default]
        Ietf = "ietf",
        /// ns-2.35's header accounting.
        Ns2 = "ns2",
    }
}

/// The sizes of a connection's segments on the wire, for its format and options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireSizes {
    /// Headers and options of every data segment: wire size = payload + this.
    pub data_header_bytes: u32,
    /// A pure ACK without SACK blocks.
    pub ack_bytes: u32,
    /// What the first SACK block adds besides its 8 bytes (option kind and length, padding).
    sack_option_bytes: u32,
    /// The most SACK blocks an ACK carries (the option space's limit).
    pub max_sack_blocks: usize,
    /// A SYN or SYN-ACK.
    pub syn_bytes: u32,
}

/// Bytes of one SACK block (two 32-bit sequence numbers, RFC 2018 §3).
const SACK_BLOCK_BYTES: u32 = 8;

impl WireSizes {
    /// Returns the sizes of a connection in `format` with or without the timestamp and SACK
    /// options.
    pub fn new(format: WireFormat, timestamps: bool, sack: bool) -> Self {
        match format {
            WireFormat::Ietf => {
                let ts = if timestamps { 12 } else { 0 };
                // MSS 4, NOP + WS 4, then TS (with SACK-permitted in its NOP places) or
                // NOP, NOP, SACK-permitted.
                let syn_options = 8 + if timestamps {
                    12
                } else if sack {
                    4
                } else {
                    0
                };
                WireSizes {
                    data_header_bytes: BASE_HEADER_BYTES + ts,
                    ack_bytes: BASE_HEADER_BYTES + ts,
                    sack_option_bytes: 4,
                    max_sack_blocks: if timestamps { 3 } else { 4 },
                    syn_bytes: BASE_HEADER_BYTES + syn_options,
                }
            }
            WireFormat::Ns2 => WireSizes {
                data_header_bytes: BASE_HEADER_BYTES + if timestamps { 10 } else { 0 },
                ack_bytes: BASE_HEADER_BYTES,
                sack_option_bytes: 0,
                max_sack_blocks: 3,
                syn_bytes: BASE_HEADER_BYTES,
            },
        }
    }

    /// Returns the wire size of an ACK carrying `blocks` SACK blocks.
    pub fn ack(&self, blocks: usize) -> u32 {
        if blocks == 0 {
            self.ack_bytes
        } else {
            self.ack_bytes + self.sack_option_bytes + SACK_BLOCK_BYTES * blocks as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ietf_sizes_are_the_research_file_s_row_15() {
        // Linux 2.6.26 / ns-3.44 with timestamps (research §2, §3 row 15): data 52 + MSS, pure
        // ACK 52, ACK with 1/2/3 SACK blocks 64/72/80, SYN 60.
        let w = WireSizes::new(WireFormat::Ietf, true, true);
        assert_eq!(w.data_header_bytes, 52);
        assert_eq!((w.ack(0), w.ack(1), w.ack(2), w.ack(3)), (52, 64, 72, 80));
        assert_eq!(w.max_sack_blocks, 3);
        assert_eq!(w.syn_bytes, 60);
        // Without timestamps: 40-byte headers, four blocks fit the 40-byte option space
        // (4 + 8 * 4 = 36 bytes), the SYN carries MSS, WS and SACK-permitted (52).
        let w = WireSizes::new(WireFormat::Ietf, false, true);
        assert_eq!(w.data_header_bytes, 40);
        assert_eq!((w.ack(0), w.ack(4)), (40, 76));
        assert_eq!(w.max_sack_blocks, 4);
        assert!(w.ack(w.max_sack_blocks) - BASE_HEADER_BYTES <= 40, "options fit their 40 bytes");
        assert_eq!(w.syn_bytes, 52);
        assert_eq!(WireSizes::new(WireFormat::Ietf, false, false).syn_bytes, 48);
        assert_eq!(WireSizes::new(WireFormat::Ietf, true, false).syn_bytes, 60);
    }

    #[test]
    fn ns2_sizes_are_the_research_file_s_row_15() {
        // ns-2.35: data = packetSize_ + 40 (+ 10 with timestamps, no padding); sink ACK
        // 40/48/56/64 for 0..3 blocks, no TS bytes on ACKs; SYN 40.
        let w = WireSizes::new(WireFormat::Ns2, false, true);
        assert_eq!(w.data_header_bytes, 40);
        assert_eq!((w.ack(0), w.ack(1), w.ack(2), w.ack(3)), (40, 48, 56, 64));
        assert_eq!(w.max_sack_blocks, 3);
        assert_eq!(w.syn_bytes, 40);
        let w = WireSizes::new(WireFormat::Ns2, true, true);
        assert_eq!((w.data_header_bytes, w.ack(0), w.max_sack_blocks), (50, 40, 3));
    }
}
