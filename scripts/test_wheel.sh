#!/usr/bin/env bash
# Installs the wheel in DIST (default dist/) into a fresh virtualenv and runs it from an empty
# directory, as a user who never cloned the repository would: `qdsim --help`, the quickstart
# (the experiment file shipped in the package) with a packet capture and its HTML report,
# `qdsim reproduce codel-dc --quick`, and the
# Python API. Dependencies: the lock's versions (requirements/lock.txt) except NumPy, held
# below 2.4, which the wheel's ranges must allow (pins in the metadata made that impossible).
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
