# The index of qdsim's workflows. Every target installs what it needs into .venv.
#   make dev         virtualenv + locked deps (requirements/lock.txt) + the Rust core built into the package
#   make quickstart  dev, then run experiments/quickstart.toml
#   make test        dev and engines, then Rust tests (release), both lints and pytest
#   make test-fast   the loop while working: pytest without the figure and slow tests
#   make test-rust-fast  the core's tests built without LTO (profile quick): seconds after an edit
#   make engine-verdicts  every paper finding run in qdsim, ns-2 and ns-3 (the pages' engine tables)
#   make engines     the reference engines qdsim validate runs: ns-2.35 and ns-3.37, and the programs
#                    the tests drive: Chromium + chromedriver (qdsim report's page), tshark (apt-get,
#                    needs root or sudo; without them their tests skip), and the ns-3 program built once
#   make wheel       the manylinux wheel in dist/, built with profile-guided optimisation (scripts/pgo.py)
#   make dev-pgo     dev, with the extension built as the wheel's is (what bench-ns2 measures)
#   make test-wheel  wheel, then install it into a fresh venv and run it from another directory
#   make bench       whole-run benchmark (packets/s, events/s) + criterion micro-benchmarks
#   make bench-sweep a 64-run sweep on 2 local workers against 1 (the speed-up)
#   make bench-ns2   qdsim against ns-2.35 on the same run, CPU time of the whole process, alternated
#   make bench-flows the core's cost per bottleneck packet and memory against the flow count
#   make figures     dev, then regenerate every committed paper figure (qdsim reproduce --all --docs)
#   make docs        dev, then regenerate the docs written from the catalog (scripts/gen_docs.py)
#   make lint        lint-rust (cargo fmt --check, clippy, rustdoc links) and lint-python (ruff check + format, stubtest)
.PHONY: dev dev-pgo docs engines engine-verdicts validation quickstart test test-fast test-rust test-rust-fast test-python wheel test-wheel bench bench-sweep bench-ns2 bench-flows figures lint lint-rust lint-python clean

VENV := .venv
PY := $(VENV)/bin/python
# The interpreter .venv is made from, once (`rm -rf .venv` to change it): `make dev
# PYTHON=/usr/bin/python3.11`. An optimised build (Debian's, linked statically) spent
# 0.81-0.84 of the CPU of a default source build (pyenv's: a shared libpython, no
# --enable-optimizations) on a short run (docs/performance.md, "Which Python").
PYTHON ?= python3
# pytest's workers (pytest-xdist): one per core, at most four (each test's runs take up to a
# few hundred MB). `make test PYTEST_WORKERS=` runs them in one process.
PYTEST_WORKERS := -n auto --maxprocesses=4
DEPS_STAMP := $(VENV)/.deps-stamp
CORE_STAMP := $(VENV)/.core-stamp
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null) Cargo.toml $(wildcard Cargo.lock)

dev: $(CORE_STAMP)
	@# The stamp can outlive the extension (an interrupted or concurrent build): rebuild then.
	@ls python/qdsim/_core*.so >/dev/null 2>&1 || (rm -f $(CORE_STAMP) && $(MAKE) --no-print-directory $(CORE_STAMP))

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstalls the locked dependencies (requirements/lock.txt: runtime, every extra, dev tools)
# only when they change.
$(DEPS_STAMP): pyproject.toml requirements/lock.txt scripts/install_deps.py | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) scripts/install_deps.py
	touch $@

# Rebuilds the extension only when Rust sources change; Python sources are used in place.
$(CORE_STAMP): $(DEPS_STAMP) $(RUST_SOURCES) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet
	touch $@

quickstart: dev
	$(VENV)/bin/qdsim run experiments/quickstart.toml

test: dev engines test-rust lint test-python

# ns-2, ns-3, Chromium with chromedriver and tshark from Debian (scripts/install_engines.sh
# pins their versions), then the one generic ns-3 program qdsim translates every experiment
# for, compiled once per machine.
engines: dev
	scripts/install_engines.sh
	@if [ -f /usr/include/ns3/core-module.h ]; then $(PY) -m qdsim.engines.ns3 --build; fi

# The validation suite: every paper scenario an engine can run and the analytic laws, in
# qdsim, ns-2 and ns-3; writes docs/validation.md (about an hour on 2 cores).
validation: engines
	$(VENV)/bin/qdsim validate --suite

# Every figure test (each a paper finding) in qdsim, ns-2 and ns-3 on the files' quick runs:
# records tests/figures/engine_verdicts.json and the tables in the reproduction pages and the
# experiments index (about an hour on 2 cores).
engine-verdicts: engines
	$(PY) scripts/engine_verdicts.py --run

test-rust:
	cargo test --release --workspace --exclude qdsim-py

# The core's tests while changing it: optimised, but without LTO and with incremental code
# generation (Cargo.toml's profile quick), so an edit rebuilds in seconds instead of a minute
# and a half; the same tests `make test` runs in release.
test-rust-fast:
	cargo test --profile quick --workspace --exclude qdsim-py

test-python: dev
	$(VENV)/bin/pytest $(PYTEST_WORKERS)

# The loop while changing the code: the Python tests without the figure tests and the slow
# ones (no Rust tests, no lints); `make test` runs everything.
test-fast: dev
	$(VENV)/bin/pytest $(PYTEST_WORKERS) -q -m "not figure and not slow"

# The wheel users `pip install`: manylinux (maturin checks the binary's glibc symbols and tags
# it), abi3 (one wheel for every CPython >= 3.11), the experiment files inside, the core built
# with profile-guided optimisation (scripts/pgo.py: an instrumented build, a training run of
# every algorithm, the build that uses its counts, then every training run again with both
# builds, their tables compared byte for byte; target/pgo/, about 8 minutes). Built for the
# venv's interpreter, as `make dev` builds.
wheel: $(DEPS_STAMP)
	$(PY) scripts/pgo.py wheel dist

# The extension into python/qdsim built as the wheel's is; `make dev` keeps it until a Rust
# source changes (the same program: only its machine code is laid out differently). After
# `make wheel` (or before it) only the extension's last link is redone: the profile is kept.
# CI tests this build (.ci/run).
dev-pgo: $(DEPS_STAMP)
	$(PY) scripts/pgo.py develop
	touch $(CORE_STAMP)

# The wheel as a user gets it: a fresh venv, `pip install` (the lock's versions, but NumPy
# < 2.4 to prove the metadata's ranges), then the quickstart and one paper's --quick figures
# from an empty directory (no checkout in sight).
test-wheel: wheel
	scripts/test_wheel.sh dist

bench:
	cargo run --release -p qdsim-benches --bin dumbbell
	cargo bench -p qdsim-benches

bench-sweep: dev
	$(PY) benches/sweep_speedup.py

bench-ns2: dev-pgo
	$(PY) benches/vs_ns2.py

bench-flows:
	cargo build --release -p qdsim-benches --bin dumbbell
	python3 benches/flow_scaling.py

# Every paper figure from its experiment file, resumable (results/ keeps the runs), copied
# with the JSON of its numbers to docs/reproductions/<paper>/.
figures: dev
	$(VENV)/bin/qdsim reproduce --all --docs

# The parts of the docs written from the simulator's catalog (tests/test_docs.py checks them).
docs: dev
	$(PY) scripts/gen_docs.py

lint: lint-rust lint-python

# rustfmt and clippy come with the toolchain (rustup's default profile); a toolchain without
# them skips that check, loudly, rather than failing the tests.
# One clippy run for the whole workspace, the binding included (PyO3's build needs the venv's
# interpreter; a second run for the binding alone re-checked everything that depends on pyo3).
lint-rust: | $(PY)
	@if cargo fmt --version >/dev/null 2>&1; then cargo fmt --all --check; else echo "lint-rust: rustfmt not installed, format check SKIPPED"; fi
	@if cargo clippy --version >/dev/null 2>&1; then \
		PYO3_PYTHON=$(abspath $(PY)) cargo clippy --workspace --all-targets -- -D warnings; \
	else echo "lint-rust: clippy not installed, clippy SKIPPED"; fi
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --exclude qdsim-py --no-deps --quiet

# ruff (rules and line length in pyproject.toml: lint, then formatting) and mypy's stubtest, so
# _core.pyi cannot drift from the binary.
lint-python: dev
	$(VENV)/bin/ruff check python tests
	$(VENV)/bin/ruff format --check python tests
	$(VENV)/bin/python -m mypy.stubtest qdsim._core

clean:
	rm -rf $(VENV) target results
