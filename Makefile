# weatherd — the two front-door commands are `make run` and `make test`.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Release binaries carry the Swift runtime and Foundation (linked statically): they run without a toolchain.
# Every Swift module, the dependencies' too, is compiled with one .text section per function, so the
# release link's symbol ordering (packaging/order/) moves the functions that run, not whole files.
# scripts/order-files.py builds with the same flags.
RELEASE_FLAGS ?= -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system

.PHONY: run test lint format web-test browser-test bench order-files soak build install deb systest deps test-deps deb-deps systest-deps clean

## run: install what is missing, build, and serve in the foreground (offline demo without OWM_API_KEY)
run: deps build
	scripts/run-demo.sh

## test: install what is missing, build everything and run every test (the map page's modules under Node,
##       then the browser tests, last). The build fails on an import of a module the target does not name
##       as a dependency. The test support lets at most four tests per core run child processes at a
##       time (Tests/Support/ProcessSlots.swift), so a plain `swift test` never starts hundreds of
##       processes at once, and its waits end on what they wait for, not after seconds; TEST_WIDTH
##       also bounds how many tests run at once, which keeps one test's time closer to what it needs.
TEST_WIDTH ?= 8
test: test-deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests --explicit-target-dependency-import-check error
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-xctest
	$(MAKE) --no-print-directory web-test
	BROWSER_TEST_NO_BUILD=1 WEATHERD_BIN_DIR="$$($(SWIFT) build $(SWIFT_FLAGS) --show-bin-path)" scripts/browser-test.sh

## lint: the Swift sources formatted as .swift-format says (the toolchain's `swift format`; `make format`
##       rewrites them so)
lint:
	$(SWIFT) format lint --recursive --parallel --strict Sources Tests Package.swift

format:
	$(SWIFT) format --in-place --recursive --parallel Sources Tests Package.swift

## web-test: the map page's modules that hold no DOM (web/: the overlay store, formatting, the chart's scales,
##           the connection) under Node's test runner (Tests/web/*.test.mjs)
web-test:
	node --test --test-reporter=spec Tests/web/*.test.mjs

## browser-test: the map page in headless Chromium against the real daemon (see scripts/browser-test.sh)
browser-test:
	scripts/browser-test.sh

## bench: on release binaries, the daemon figures beside their floors (scripts/bench-daemon.py: the
##        search, state and overlays replies, notification latency, fan-out, idle footprint, weatherctl
##        vs socat), the region-drag benchmark
##        (scripts/bench-region.py), the fleet behind its nginx proxy (scripts/bench-fleet.py: upstream
##        requests against devices, docs/fleet.md), 1,000 OwnTracks devices through Mosquitto
##        (scripts/bench-owntracks.py: the daemon's CPU and upstream requests against the budget,
##        docs/owntracks.md), then the map-event benchmark in headless Chromium
##        (scripts/bench-map.py; its browser tools from scripts/browser-venv.sh)
bench: deps
	scripts/install-deps.sh bench
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherd
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product owm-replay
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherctl
	scripts/bench-daemon.py --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"
	scripts/bench-region.py --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"
	scripts/bench-fleet.py --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"
	scripts/bench-owntracks.py --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"
	python="$$(scripts/browser-venv.sh)" && \
	"$$python" scripts/bench-map.py --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"

## order-files: regenerate packaging/order/ (the symbol ordering files of the release link, the code that runs
##              laid out together, and layout.ld) by running release binaries through a workload under
##              valgrind; see scripts/order-files.py. It needs release objects compiled with RELEASE_FLAGS
##              (SwiftPM does not recompile when only -Xswiftc flags change: it says so and stops)
order-files: deps
	scripts/install-deps.sh order
	scripts/order-files.py --swift "$(SWIFT)"

## soak: the reliability suites (Tests/IntegrationTests/Reliability) at SCALE times their iterations, default 20;
##       prints the seed; make soak SCALE=50 SEED=N replays a run. Not part of make test.
SCALE ?= 20
SEED ?=
soak: test-deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@seed="$(SEED)"; [ -n "$$seed" ] || seed=$$(od -An -N8 -tu8 /dev/urandom | tr -d ' '); \
	echo "make soak: scale $(SCALE), seed $$seed (replay: make soak SCALE=$(SCALE) SEED=$$seed)"; \
	WEATHERD_RELIABILITY_SCALE=$(SCALE) WEATHERD_RELIABILITY_SEED=$$seed $(SWIFT) test $(SWIFT_FLAGS) --skip-build --filter Reliability

## install: release binaries (Swift runtime linked in: no toolchain needed to run them), systemd units, example config (kept if present), the map page, shell completions
install: deps
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherd
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherctl
	scripts/install.sh "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)" "$(DESTDIR)" "$(PREFIX)" "$(SYSCONFDIR)" "$(UNITDIR)"

## deb: the Debian package .build/deb/weatherd_VERSION_ARCH.deb (packaging/deb/): release binaries with the
##      Swift runtime linked statically, units, the example config as a conffile, manual pages, completions;
##      lintian errors fail it
deb: deps deb-deps
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherd
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product weatherctl
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product generate-manual
	packaging/deb/build.sh "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)" .build/deb

## systest: the system test (scripts/systest.py, as root): boots a Debian 12 root (debootstrap, cached in
##          /var/cache/weatherd-systest) under systemd-nspawn, installs the package with apt-get and checks
##          the service under a real systemd; prints PASS/FAIL per check and "systest: N passed, M failed"
systest: deb systest-deps
	$(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --product owm-replay
	scripts/systest.py --deb-dir .build/deb --bin-dir "$$($(SWIFT) build $(SWIFT_FLAGS) $(RELEASE_FLAGS) --show-bin-path)"

build:
	$(SWIFT) build $(SWIFT_FLAGS)

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

deb-deps:
	scripts/install-deps.sh deb

systest-deps:
	scripts/install-deps.sh systest

clean:
	rm -rf .build run
