#!/usr/bin/env bash
# Installs the wheel in DIST (default dist/) into a fresh virtualenv and runs it from an empty
# directory, as a user who never cloned the repository would: `qdsim --help`, the quickstart
# (the experiment file shipped in the package) with a packet capture and its HTML report —
# its results compared with the checkout's own build's, byte for byte —, `qdsim reproduce
# codel-dc --quick`, and the Python API. Dependencies: the lock's versions
# (requirements/lock.txt) except NumPy, held below 2.4, which the wheel's ranges must allow
# (pins in the metadata made that impossible).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dist=$(cd "${1:-dist}" && pwd)
wheel=$(ls "$dist"/qdsim-*.whl)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "test-wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) kB) in $work"

python3 -m venv "$work/venv"
py="$work/venv/bin/python"
grep -v '^numpy==' "$repo/requirements/lock.txt" > "$work/constraints.txt"
echo 'numpy<2.4' >> "$work/constraints.txt"
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip install --quiet -c "$work/constraints.txt" "$wheel"
"$py" -m pip check
echo "test-wheel: installed with numpy $("$py" -c 'import numpy; print(numpy.__version__)')"
# How the wheel's core was compiled (profile-guided, unless scripts/pgo.py said it could not be).
echo "test-wheel: $("$(dirname "$py")/qdsim" --version)"

mkdir "$work/elsewhere"
cd "$work/elsewhere"
"$work/venv/bin/qdsim" --help > /dev/null
quickstart=$("$py" -c 'import qdsim; print(qdsim.EXPERIMENT_FILES / "quickstart.toml")')
case "$quickstart" in "$repo"/*) echo "test-wheel: the quickstart comes from the checkout, not the wheel: $quickstart"; exit 1 ;; esac
"$work/venv/bin/qdsim" run "$quickstart" --out quickstart --pcap bottleneck
test -s quickstart/pcap/bottleneck.pcap
# The wheel's core is compiled differently from the checkout's (profile-guided): the same
# sources must give the same results, table for table (only the wall time may differ).
if ls "$repo"/python/qdsim/_core*.so > /dev/null 2>&1; then
  "$repo/.venv/bin/qdsim" -q run "$quickstart" --out quickstart-dev --pcap bottleneck > /dev/null
  "$py" - "$repo" <<'PY'
import json
import subprocess
import sys
from pathlib import Path

import qdsim._core as wheel_core

repo = Path(sys.argv[1])
dev = subprocess.run([repo / ".venv/bin/python", "-c", "import qdsim._core as c; print(c.SOURCE_DIGEST, c.BUILD)"], capture_output=True, text=True, check=True).stdout.split(maxsplit=1)
if dev[0] != wheel_core.SOURCE_DIGEST:
    raise SystemExit("test-wheel: the checkout's extension was built from other sources than the wheel: make dev first")
for name in ("flows.parquet", "links.parquet", "groups.parquet", "pcap/bottleneck.pcap"):
    a, b = (Path(d, name).read_bytes() for d in ("quickstart", "quickstart-dev"))
    assert a == b, f"{name} differs between the wheel ({wheel_core.BUILD}) and the checkout ({dev[1].strip()})"
summaries = [json.loads(Path(d, "summary.json").read_text()) for d in ("quickstart", "quickstart-dev")]
for summary in summaries:
    summary.pop("wall_s")
assert summaries[0] == summaries[1], "summary.json differs between the wheel and the checkout"
print(f"test-wheel: the same results as the checkout's build ({dev[1].strip()})")
PY
else
  echo "test-wheel: no development build in the checkout (make dev): results not compared with it"
fi
# qdsim report's page from the wheel's plotly, self-contained (plotly.js inline).
"$work/venv/bin/qdsim" report quickstart -o report.html
grep -q "plotly" report.html
"$work/venv/bin/qdsim" reproduce codel-dc --quick --jobs 2
ls results/*/fig3.png results/*/fig11.png > /dev/null
# The API, without the extras (pandas, xarray): what works and what names its extra.
"$py" - <<'PY'
import json
from pathlib import Path

import qdsim

run = qdsim.load("quickstart")
assert run.kind == "run" and len(run.groups) == 2, run
assert run.qdsim_version == qdsim.__version__ == json.loads(Path("quickstart/summary.json").read_text())["qdsim_version"]
try:
    run.groups.to_pandas()
except qdsim.MissingExtraError as exc:
    assert 'pip install "qdsim[pandas]"' in str(exc), exc
else:
    raise AssertionError("pandas is an extra: a bare install has none")
print(f"test-wheel: qdsim {qdsim.__version__} OK")
PY
