//! The simulator's side of packet capture (`RunConfig::pcap`, frames in `crate::pcap`): one
//! file per captured link of every packet whose transmission on it ended, stamped when the
//! transmission began (where tcpdump on the sending interface would see it), and with
//! `drops` a second file of the packets the link dropped, stamped when it dropped them.
//!
//! Off by default and free when off: the simulator holds an `Option` and tests it once per
//! transmission and drop. A packet lost on the wire was transmitted: it is in both files,
//! so the capture's count equals the link's transmissions (`tx_pkts`). A transmission still
//! under way when the run ends is in neither. A write error stops the capture and is
//! reported when the run ends, with the results of the run lost to no one: the caller gets
//! it as the error of `pcap.dir`.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use pcap_file::pcap::PcapWriter;

use super::{Endpoints, Flow};
use crate::config::RunConfig;
use crate::error::ConfigError;
use crate::packet::{Packet, PacketKind, SackStore, FLAG_SYN};
use crate::pcap::{self, PcapConfig, TcpView};
use crate::time::Time;

type Writer = PcapWriter<BufWriter<File>>;

/// One captured link's files.
#[derive(Debug)]
struct Tap {
    from: u32,
    to: u32,
    sent: Writer,
    dropped: Option<Writer>,
}

/// Every captured link's files.
#[derive(Debug)]
pub(crate) struct Capture {
    /// Indexed by link; `None` for links not captured.
    taps: Vec<Option<Tap>>,
    dir: String,
    /// The first write error; the capture stops there.
    failed: Option<String>,
    buf: Vec<u8>,
}

impl Capture {
    /// Creates the files of `cfg` (validated) for the links of `run`, whose ends are `ends`.
    ///
    /// # Errors
    /// A file that cannot be created, as an error of `pcap.dir`.
    pub fn open(cfg: &PcapConfig, run: &RunConfig, ends: &[(u32, u32)]) -> Result<Self, ConfigError> {
        let create = |name: &str, drops: bool| -> Result<Writer, ConfigError> {
            let path = Path::new(&cfg.dir).join(PcapConfig::file_name(name, drops));
            let refuse = |e: &dyn std::fmt::Display| {
                ConfigError::new(
                    "pcap.dir",
                    &cfg.dir,
                    format!("an existing, writable directory ({}: {e})", path.display()),
                )
            };
            let file = File::create(&path).map_err(|e| refuse(&e))?;
            pcap::writer(BufWriter::new(file)).map_err(|e| refuse(&e))
        };
        let mut taps: Vec<Option<Tap>> = run.links.iter().map(|_| None).collect();
        for name in &cfg.links {
            let l = run.links.iter().position(|l| &l.name == name).expect("validated link name");
            let (from, to) = ends[l];
            let dropped = if cfg.drops { Some(create(name, true)?) } else { None };
            taps[l] = Some(Tap { from, to, sent: create(name, false)?, dropped });
        }
        Ok(Capture { taps, dir: cfg.dir.clone(), failed: None, buf: Vec::with_capacity(128) })
    }

    /// Returns whether link `l` is captured.
    pub fn taps(&self, l: u32) -> bool {
        self.taps[l as usize].is_some()
    }

    /// Notes that link `l` finished transmitting `pkt`, whose transmission began at `began`.
    pub fn sent(&mut self, l: u32, pkt: &Packet, began: Time, run: RunView<'_>) {
        self.write(l, pkt, began, run, false);
    }

    /// Notes that link `l` dropped `pkt` at `now`.
    pub fn dropped(&mut self, l: u32, pkt: &Packet, now: Time, run: RunView<'_>) {
        self.write(l, pkt, now, run, true);
    }

    fn write(&mut self, l: u32, pkt: &Packet, at: Time, run: RunView<'_>, drop: bool) {
        if self.failed.is_some() {
            return;
        }
        let Some(Some(tap)) = self.taps.get_mut(l as usize) else { return };
        let Some(w) = (if drop { tap.dropped.as_mut() } else { Some(&mut tap.sent) }) else { return };
        let view = tcp_view(pkt, run);
        let orig_len =
            pcap::encode(&mut self.buf, pkt, tap.from, tap.to, (at.as_ns() / 1_000_000) as u32, view.as_ref());
        if let Err(e) = pcap::write_frame(w, at.as_ns(), orig_len, &self.buf) {
            self.failed = Some(e.to_string());
        }
    }

    /// Flushes and closes every file; the capture ends.
    ///
    /// # Errors
    /// The first write or flush error, as an error of `pcap.dir`.
    pub fn finish(&mut self) -> Result<(), ConfigError> {
        use std::io::Write;
        for tap in std::mem::take(&mut self.taps).into_iter().flatten() {
            for w in std::iter::once(tap.sent).chain(tap.dropped) {
                if let Err(e) = w.into_writer().flush() {
                    self.failed.get_or_insert(e.to_string());
                }
            }
        }
        match &self.failed {
            None => Ok(()),
            Some(e) => {
                Err(ConfigError::new("pcap.dir", &self.dir, format!("a directory the capture can be written to ({e})")))
            }
        }
    }
}

/// What the capture reads of the run to write a packet's TCP header: the flows (their
/// senders' byte numbers), the configuration (their options) and the store of the ACKs'
/// SACK blocks.
#[derive(Clone, Copy)]
pub(crate) struct RunView<'a> {
    pub(crate) flows: &'a [Flow],
    pub(crate) config: &'a RunConfig,
    pub(crate) sacks: &'a SackStore,
}

/// Returns what a TCP packet's header says beyond the packet (`None` for UDP): its byte
/// numbers from its connection's stream and the options of its flow's configuration.
fn tcp_view(pkt: &Packet, run: RunView<'_>) -> Option<TcpView> {
    let flow = &run.flows[pkt.flow as usize];
    let (Endpoints::Tcp { snd, .. }, Some(tcp)) = (&flow.ep, run.config.flows[flow.root as usize].source.tcp()) else {
        return None;
    };
    let (bytes, payload) = match pkt.kind {
        PacketKind::Udp => return None,
        PacketKind::Data if pkt.has(FLAG_SYN) => (0, 0),
        PacketKind::Data => snd.wire_bytes_of(pkt.seq()),
        PacketKind::Ack => (snd.wire_bytes_of(pkt.ack()).0, 0),
    };
    let mut sack = [(0, 0); 4];
    for (slot, (s, e)) in sack.iter_mut().zip(run.sacks.get(pkt.sack).ranges(pkt.ack())) {
        *slot = (snd.wire_bytes_of(s).0, snd.wire_bytes_of(e).0);
    }
    Some(TcpView {
        bytes,
        payload,
        sack,
        handshake: tcp.handshake,
        timestamps: tcp.timestamps,
        sack_permitted: tcp.sack,
        syn_options: tcp.wire == crate::tcp::WireFormat::Ietf,
        mss_option: (tcp.packet_bytes.saturating_sub(crate::tcp::BASE_HEADER_BYTES)).min(u16::MAX as u32) as u16,
        window_bytes: tcp.rwnd_bytes,
    })
}
