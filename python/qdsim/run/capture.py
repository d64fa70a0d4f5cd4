"""Where a run's packet capture goes (``[pcap]``, ``qdsim run --pcap``).

The core writes the files (``crates/qdsim-core/src/pcap.rs``) into the directory the
configuration names; :func:`prepare_capture` names it: ``RESULTS/pcap/``, emptied first so
that it never mixes two runs' captures. Only a single run has one results directory of its
own, so a sweep refuses ``[pcap]`` (:func:`refuse_in_sweep`).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from .. import _core
from ..errors import SpecError

__all__ = ["capture_files", "prepare_capture", "refuse_in_sweep"]


def prepare_capture(config: dict[str, Any], out_dir: Path | None) -> list[Path]:
    """Points ``config``'s capture (if it has one) at ``out_dir/pcap/``, created empty, and
    returns the files the run will write there."""
    pcap = config.get("pcap")
    if pcap is None:
        return []
    if out_dir is None:
        raise SpecError("pcap", pcap["links"], "a run with a results directory to write the capture to (qdsim run, or qdsim.simulate(..., out=DIR))")
    where = out_dir / "pcap"
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    pcap["dir"] = str(where)
    return capture_files(config)


def capture_files(config: dict[str, Any]) -> list[Path]:
    """Returns the capture files of a resolved configuration whose ``pcap.dir`` is set."""
    pcap = config.get("pcap")
    if not pcap or not pcap.get("dir"):
        return []
    where = Path(pcap["dir"])
    return [where / _core.pcap_file_name(link, drops) for link in pcap["links"] for drops in ((False, True) if pcap["drops"] else (False,))]


def refuse_in_sweep(spec_pcap: object) -> None:
    """Raises SpecError for ``[pcap]`` in a sweep (``qdsim sweep``, ``reproduce``, ``validate``):
    every run of it would overwrite the same capture."""
    if spec_pcap is not None:
        raise SpecError("pcap", "a [pcap] table", "only in a single run (qdsim run, qdsim.simulate): a sweep's runs would overwrite one capture")
