"""Packet capture (``[pcap]``, ``qdsim run --pcap``) read back by Wireshark's tshark: the
files hold what crossed each link, and Wireshark's own TCP analysis of them agrees with
qdsim's counters. Skipped where tshark is absent (``scripts/install_engines.sh`` installs it).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(TSHARK is None, reason="tshark not installed: apt-get install tshark (scripts/install_engines.sh)")

#: Two NewReno flows with SACK into a 15-packet FIFO, captured from the start (no warm-up, so
#: the tables' counters cover what the files hold): losses, fast retransmits and timeouts.
LOSSY = """
[experiment]
name = "pcap"
duration = "4s"
seed = 3

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "15pkt" }

[[flows]]
group = "g"
count = 2
cc = "newreno"
access_delay = "10ms"
tcp = { profile = "linux" }
"""

ACCESS = "g.s0->r1"
ACCESS_BACK = "r1->g.s0"
ACKS = "r2->r1"


def tshark(path: Path, *args: str) -> list[str]:
    """Returns tshark's output lines for ``path`` (``-T fields`` style arguments)."""
    assert TSHARK is not None
    done = subprocess.run([TSHARK, "-n", "-r", str(path), *args], capture_output=True, text=True, check=True, timeout=120)
    return [line for line in done.stdout.splitlines() if line.strip()]


def count(path: Path, display_filter: str) -> int:
    return len(tshark(path, "-Y", display_filter, "-T", "fields", "-e", "frame.number"))


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> tuple[Path, dict, dict]:
    """Runs LOSSY with the bottleneck (and its drops), flow 0's access link and the ACKs'
    bottleneck captured; returns the results directory, its links and flows by name / id."""
    from qdsim.cli import main

    root = tmp_path_factory.mktemp("pcap")
    spec = root / "pcap.toml"
    spec.write_text(LOSSY)
    out = root / "results"
    assert main(["-q", "run", str(spec), "--out", str(out), "--pcap", f"bottleneck,{ACCESS},{ACCESS_BACK},{ACKS}", "--set", "pcap.drops=true"]) == 0
    links = {row["name"]: row for row in pq.read_table(out / "links.parquet").to_pylist()}
    flows = {row["id"]: row for row in pq.read_table(out / "flows.parquet").to_pylist()}
    return out / "pcap", links, flows


def test_the_run_writes_one_file_per_link_and_one_of_drops(captured) -> None:
    where, _, _ = captured
    names = sorted(p.name for p in where.iterdir())
    links = ["bottleneck", "g.s0-_r1", "r1-_g.s0", "r2-_r1"]
    assert names == sorted(f"{link}{suffix}" for link in links for suffix in (".pcap", ".drops.pcap"))


@needs_tshark
def test_tshark_counts_every_transmission_and_drop_of_the_link(captured) -> None:
    where, links, _ = captured
    bottleneck = links["bottleneck"]
    assert bottleneck["drops"] > 0, "the scenario must drop"
    assert len(tshark(where / "bottleneck.pcap", "-T", "fields", "-e", "frame.number")) == bottleneck["tx_pkts"]
    assert len(tshark(where / "bottleneck.drops.pcap", "-T", "fields", "-e", "frame.number")) == bottleneck["drops"]
    # Wireshark reads the frames' lengths as the wire's: their sum is the link's bytes.
    lengths = tshark(where / "bottleneck.pcap", "-T", "fields", "-e", "frame.len")
    assert sum(int(n) - 14 for n in lengths) == bottleneck["tx_bytes"]
    assert count(where / "bottleneck.pcap", "_ws.malformed or _ws.expert.severity >= error") == 0


@needs_tshark
def test_wiresharks_tcp_analysis_agrees_with_the_senders_counters(captured) -> None:
    where, _, flows = captured
    flow = flows[0]
    # The sender's interface: its access link both ways, as tcpdump on the host would see it
    # (Wireshark tells a retransmission from reordering by the ACKs it has seen).
    access = where / "host.pcap"
    mergecap = shutil.which("mergecap")
    assert mergecap is not None, "mergecap comes with tshark (wireshark-common)"
    subprocess.run([mergecap, "-w", str(access), str(where / "g.s0-_r1.pcap"), str(where / "r1-_g.s0.pcap")], check=True, timeout=60)
    # Nothing is lost on the access link: it carries every segment the sender sent.
    assert count(access, "tcp.srcport == 1024") == flow["sent_pkts_total"]
    assert flow["retransmits_total"] > 0 and flow["fast_retransmits_total"] > 0
    # At the sender a segment below the highest one sent is always a resend; Wireshark calls
    # one that follows the highest within a round trip "Out-Of-Order" (its RTT from the
    # handshake), the others retransmissions.
    resent = count(
        access,
        "tcp.srcport == 1024 and (tcp.analysis.retransmission or tcp.analysis.fast_retransmission or tcp.analysis.spurious_retransmission or tcp.analysis.out_of_order)",
    )
    assert resent == flow["retransmits_total"]
    # Each of qdsim's fast retransmits resends the segment duplicate ACKs ask for, which
    # Wireshark calls a fast retransmission (as it does any such resend inside recovery).
    assert count(access, "tcp.analysis.fast_retransmission") >= flow["fast_retransmits_total"]
    # Every fast retransmit followed three duplicate ACKs (flow 0's, on the ACKs' path).
    dupacks = count(where / "r2-_r1.pcap", "tcp.analysis.duplicate_ack and tcp.dstport == 1024")
    assert dupacks >= 3 * flow["fast_retransmits_total"]
    # The ACKs carry SACK blocks, and the 3 MB receive window never fills.
    assert count(where / "r2-_r1.pcap", "tcp.options.sack_le") > 0
    assert count(access, "tcp.analysis.window_full or tcp.analysis.zero_window") == 0
    access.unlink()


def test_a_sweep_refuses_pcap_and_an_unknown_link_is_named(tmp_path, qdsim) -> None:
    spec = tmp_path / "pcap.toml"
    spec.write_text(LOSSY + '\n[sweep]\n"topology.qdisc.limit" = ["10pkt", "20pkt"]\n')
    result = qdsim("sweep", str(spec), "--out", str(tmp_path / "s"), "--set", 'pcap.links=["bottleneck"]')
    assert result.code == 2 and "pcap" in result.stderr and "single run" in result.stderr, result.stderr
    result = qdsim("run", str(spec), "--out", str(tmp_path / "r"), "--pcap", "bottleneck,nowhere")
    assert result.code == 2, result.stderr
    assert "pcap.links.1" in result.stderr and "nowhere" in result.stderr and "bottleneck" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = qdsim("run", str(spec), "--out", str(tmp_path / "r"), "--pcap", "bottleneck,")
    assert result.code == 2 and "--pcap" in result.stderr, result.stderr


def test_simulate_captures_only_into_a_results_directory(tmp_path) -> None:
    import qdsim
    from qdsim.errors import SpecError

    with pytest.raises(SpecError, match="results directory"):
        qdsim.simulate(LOSSY, set={"pcap.links": ["bottleneck"], "experiment.duration": "1s"})
    qdsim.simulate(LOSSY, set={"pcap.links": ["bottleneck"], "experiment.duration": "1s"}, out=tmp_path / "r")
    assert (tmp_path / "r" / "pcap" / "bottleneck.pcap").stat().st_size > 24
