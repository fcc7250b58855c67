# testbed — replay LLM agent systems against recorded cassettes.
GO       ?= go
GINKGO   := $(GO) tool ginkgo
TESTBED  := bin/testbed

.PHONY: run test record bench lint report build clean

## build: compile the CLI into bin/testbed
build:
	$(GO) build -o $(TESTBED) ./cmd/testbed

## run: replay every committed suite offline, print the tables, write reports/latest.*
run: build
	./$(TESTBED) run

## test: the whole Ginkgo tree, the scenario gate and the cassette secret scan
test: build
	$(GINKGO) -r $(if $(CI),--no-color) --randomize-all --fail-on-pending --keep-going -p --junit-report=junit.xml --output-dir=reports
	./$(TESTBED) cassettes check

## record: re-record every cassette against the loopback stand-ins
record: build
	./$(TESTBED) record

## bench: Go benchmarks
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## lint: gofmt and go vet
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...

## report: regenerate the committed reports/summary.md (and reports/latest.*)
report: build
	./$(TESTBED) run --quiet > /dev/null
	cp reports/latest.md reports/summary.md

clean:
	rm -rf bin reports/latest.* reports/junit.xml
