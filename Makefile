# testbed — replay LLM agent systems against recorded cassettes.
GO       ?= go
GINKGO   := $(GO) tool ginkgo
TESTBED  := bin/testbed

.PHONY: run test gate record bench profile lint report build clean fuzz race examples example-deps

# How the CLI is built: without debug information (no DWARF, no symbol table) and with
# the functions of the modules it depends on (not the standard library's, not testbed's)
# not inlined. A fresh clone's first build compiles about 890 packages, most of the CPU in
# the official SDKs' generated root packages; these flags took it from 134 s to 88 s on 2
# cores, and the replay is as fast (docs/performance.md, "Build cost"). BUILDFLAGS= builds
# the way go build does.
BUILDFLAGS ?= -ldflags='-s -w' -gcflags='all=-dwarf=false -l' -gcflags='std=-dwarf=false' \
	-gcflags='github.com/agentreplay/testbed/...=-dwarf=false'

## build: compile the CLI into bin/testbed
build:
	$(GO) build $(BUILDFLAGS) -o $(TESTBED) ./cmd/testbed

## run: replay every committed suite offline, print the tables, write reports/latest.*
run: build
	./$(TESTBED) run

READER_FUZZTIME ?= 60s

## test: the whole Ginkgo tree, the scenario gate, the cassette secret scan, the example
## agents' replays (make examples), and the fast cassette reader's differential fuzz
## against yaml.v3 for READER_FUZZTIME. The modules under examples/ are not part of the tree
## (go test ./... stops at their go.mod; ginkgo -r would not): replaytest's specs run their
## go test as a user does.
test: build example-deps
	$(GINKGO) -r --skip-package=./examples/ $(if $(CI),--no-color) --randomize-all --fail-on-pending --keep-going -p --junit-report=junit.xml --output-dir=reports
	./$(TESTBED) cassettes check
	$(MAKE) --no-print-directory examples
	$(MAKE) --no-print-directory fuzz FUZZ_ONLY=FuzzFastReader FUZZTIME=$(READER_FUZZTIME)
	$(MAKE) --no-print-directory gate

## gate: the scenario gate alone, as CI judges a change: replay every suite, check expectations,
## thresholds and the blessed baseline, and end on the verdict (writes no report file)
gate: build
	./$(TESTBED) run --out ""

EXAMPLES := examples/weather-ts examples/langchain-ts examples/ai-sdk-ts examples/genai-ts examples/stamped

## example-deps: install the npm packages of each example that has a package-lock.json when
## node_modules is missing (needs Node and npm; make run never does)
example-deps:
	@for d in $(EXAMPLES); do \
		test ! -f $$d/package-lock.json || test -d $$d/node_modules || npm ci --prefix $$d --no-audit --no-fund || exit 1; \
	done

## examples: replay each example agent outside testbed (its own project root under
## examples/: weather-ts through its real SDK, stamped with its match: rules) with its
## thresholds and blessed baseline, and scan its cassettes for secrets
examples: build example-deps
	@for d in $(EXAMPLES); do \
		echo "testbed run --root $$d"; \
		./$(TESTBED) run --root $$d --quiet || exit 1; \
		./$(TESTBED) cassettes check --dir $$d/cassettes || exit 1; \
	done

## record: re-record every cassette against the loopback stand-ins
record: build
	./$(TESTBED) record

BENCH       ?= .
BENCH_COUNT ?= 6
BENCH_TIME  ?= 200ms
BENCH_OUT   ?= reports/bench/latest.txt

## bench: Go benchmarks (full replay, one scenario, cassette loading and matching, token
## counting, report rendering), BENCH_COUNT runs each, one package at a time, summarized
## with benchstat; raw results in $(BENCH_OUT). Pick some with BENCH=regexp.
bench:
	@mkdir -p $(dir $(BENCH_OUT))
	$(GO) test -p 1 -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCH_COUNT) -benchtime $(BENCH_TIME) ./... | tee $(BENCH_OUT)
	$(GO) tool benchstat $(BENCH_OUT)

## profile: CPU and memory profiles of the full replay under reports/bench/, with the top of the CPU one
profile:
	@mkdir -p reports/bench
	$(GO) test -run '^$$' -bench FullReplay -benchtime 3x -o reports/bench/runner.test \
		-cpuprofile reports/bench/cpu.prof -memprofile reports/bench/mem.prof ./harness/runner
	$(GO) tool pprof -top -nodecount 20 reports/bench/runner.test reports/bench/cpu.prof

FUZZTIME         ?= 5s
FUZZMINIMIZETIME ?= 2s

## fuzz: every fuzz target in the tree (found by grep, so a new one is not forgotten; FUZZ_ONLY=name picks one) for FUZZTIME each;
## a failing input is written to the package's testdata/fuzz/<Target>/: commit it as a regression seed.
## Go 1.26's coordinator can stop a target with a bare "context deadline exceeded" when FUZZTIME
## runs out under load (go.dev/issue/75804, fixed in Go 1.27); a target that stops so without
## writing a failing input is run once more, and fails if that happens again.
fuzz:
	@set -e; targets=$$(grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . \
		| sed -E 's|^\./(.*)/[^/]*:func (Fuzz[A-Za-z0-9_]*).*|\1:\2|' | sort | grep -E ':$(or $(FUZZ_ONLY),Fuzz.*)$$'); \
	test -n "$$targets" || { echo "fuzz: no fuzz targets found"; exit 1; }; \
	log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for t in $$targets; do \
		pkg=$${t%%:*}; name=$${t##*:}; ok=; \
		seeds=$$(ls "$$pkg/testdata/fuzz/$$name" 2>/dev/null | wc -l); \
		for try in 1 2; do \
			echo "fuzz ./$$pkg $$name for $(FUZZTIME)"; \
			if $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) ./$$pkg >"$$log" 2>&1; \
			then cat "$$log"; ok=1; break; fi; \
			cat "$$log"; \
			if [ $$try = 1 ] && grep -q 'context deadline exceeded' "$$log" \
				&& [ "$$(ls "$$pkg/testdata/fuzz/$$name" 2>/dev/null | wc -l)" = "$$seeds" ]; then \
				echo "fuzz: $$name stopped on Go's fuzztime deadline race (go.dev/issue/75804) and wrote no failing input; running it once more"; \
			else break; fi; \
		done; \
		test -n "$$ok" || { echo "fuzz: $$t failed; rerun: go test -run '^$$' -fuzz '^$$name$$' ./$$pkg"; exit 1; }; \
	done

## race: the race detector over every package but cmd/testbed, whose 196 specs take longer than
## go test's 10-minute limit under it; the full replay runs under it in ./scenarios (the gate)
## and ./harness/runner, the CLI's concurrency lives in those packages
RACE_PKGS = $(shell $(GO) list ./... | grep -v '/cmd/testbed$$')
race:
	$(GO) test -race $(RACE_PKGS)

## lint: gofmt, go vet and staticcheck (a go.mod tool: go tool staticcheck)
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome)

## report: regenerate the committed reports/summary.md, report.html (with what each model call
## was sent: run --prompts) and its screenshot report.png
report: build
	./$(TESTBED) run --quiet --prompts --no-baseline > /dev/null
	cp reports/latest-full.md reports/summary.md
	./$(TESTBED) report --html reports/report.html reports/latest.json
	@if [ -n "$(CHROMIUM)" ]; then \
		$(CHROMIUM) --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$$(mktemp -d)" \
			--window-size=1200,1500 --screenshot="$(CURDIR)/reports/report.png" "file://$(CURDIR)/reports/report.html" 2>/dev/null; \
	else echo "chromium not found: reports/report.png not updated"; fi

clean:
	rm -rf bin reports/latest.* reports/latest-full.md reports/junit.xml
