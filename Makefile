# pertlab: set-up, build and test entry points.
#
#   make demo    virtual environment + release build + the PERT paper's
#                single-bottleneck comparison (table on stdout, files in demo-out/)
#   make test    the whole test suite: cargo test (release-test profile: release
#                without LTO, see Cargo.toml) and pytest
#   make fuzz    a long property-based campaign (hypothesis and proptest) over every
#                scenario a user can write; resumes from .hypothesis/, writes its counts
#                to docs/reliability (FUZZ_EXAMPLES, PROPTEST_CASES set its size)
#   make sysdeps Debian packages for the eBPF congestion control, the
#                testbed (clang, libbpf, bpftool, ...) and the report-page test
#                (chromium); installs only what is missing, and only as root
#                (CI runs it before make test)
#   make reports redraw the committed reports in docs/reproductions/ from their
#                stored data (figures and index.html; no simulation runs), then make docs
#   make docs    rewrite the generated blocks of docs/reproductions.md (claims, evidence,
#                seeds, wall times) from the committed report.json files, and
#                docs/validation.md's ns-3 matrix from docs/validation/ns3, and
#                docs/linux.md's CPU-cost table from docs/linux/cpu_cost_table6.json and
#                its testbed-beside-simulator tables from docs/linux/*.json (compare runs)
#   make stale-reports  list the committed reports whose scenarios differ from what the
#                code would run today (exit status 1 if any does; nothing is run)
#
# Needs only python3 (>= 3.10) and cargo on the PATH; everything else is
# installed into .venv from requirements.lock.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CARGO  ?= cargo

# The venv is (re)made when the lock file changes; the stamp records that.
STAMP_VENV  := $(VENV)/.installed
# The extension is rebuilt when any Rust source or manifest changes.
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml Cargo.lock pyproject.toml
STAMP_BUILD := $(VENV)/.built

.PHONY: venv build demo test test-rust test-python bench fuzz clean sysdeps reports docs stale-reports

# Debian packages the eBPF congestion control (bpf/), the namespace testbed, the
# ns-3 validation program (g++, against the ns3 wheel) and
# the report-page test (headless chromium) and the pcap test (tshark) need; without them (or without root)
# those tests skip and say why.
SYSDEPS := gcc g++ clang llvm libbpf-dev bpftool iproute2 iputils-ping ethtool iperf3 chromium tshark

sysdeps:
	@missing=""; for p in $(SYSDEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "sysdeps: all present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "sysdeps: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "sysdeps: missing$$missing (as root: apt-get install$$missing); the eBPF, testbed and report-page tests will skip"; fi

venv: $(STAMP_VENV)

$(STAMP_VENV): requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	touch $@

build: $(STAMP_BUILD)

# maturin builds the Rust core with the workspace's release profile (fat LTO)
# and installs pertlab (Python sources editable) into the venv.
$(STAMP_BUILD): $(STAMP_VENV) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH PIP_QUIET=1 \
		$(BIN)/maturin develop --release
	touch $@

demo: build
	$(BIN)/pertlab demo --out demo-out

test: test-rust test-python

test-rust:
	$(CARGO) test --workspace --exclude pertlab-bench --profile release-test

# Two phases: the tests of the simulator and the command line run two at a time
# (pytest-xdist, a file per worker so that a file's module fixtures are computed once); the
# files marked quiet_host (real kernels, namespaces, the delay line, signals against real
# time) run after them, alone, as other work beside them makes them late. Both phases
# always run; the target fails if either did.
# sysdeps first: on a new machine, as root, the kernel, testbed and report-page tests then run
# instead of skipping (elsewhere it says which packages are missing and which tests will skip).
test-python: build sysdeps
	@status=0; \
	$(BIN)/python -m pytest -q --durations=15 -n 2 --dist loadfile -m "not quiet_host" tests/python || status=$$?; \
	$(BIN)/python -m pytest -q --durations=15 -m quiet_host tests/python || status=$$?; \
	exit $$status

reports: build
	@for d in docs/reproductions/*/; do \
		$(BIN)/pertlab reproduce $$(basename $$d) --render-only --out $$d >/dev/null || exit 1; echo "rendered $$d"; \
	done
	$(MAKE) docs

docs: build
	$(BIN)/python -m pertlab.reproduce.doc docs/reproductions.md
	$(BIN)/python -m pertlab.validate.doc docs/validation.md
	$(BIN)/python -m pertlab.linux.doc docs/linux.md

stale-reports: build
	$(BIN)/python -m pertlab.reproduce.stale --dir docs/reproductions

# scripts/bench.sh runs the criterion benchmark and the thesis runs (through the
# Python front, hence the build) and writes BENCHMARKS.md.
bench: build
	@if [ -x scripts/bench.sh ]; then scripts/bench.sh; \
	else $(CARGO) bench -p pertlab-bench --bench dumbbell; fi

fuzz: build
	scripts/fuzz.sh

clean:
	rm -rf $(VENV) demo-out .pytest_cache .hypothesis
	$(CARGO) clean
