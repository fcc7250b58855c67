// Command testbed replays agent systems against recorded cassettes and checks
// them against scenario suites.
//
//	testbed run                    replay every suite offline and print the tables
//	testbed record --suite odbchat re-record cassettes against the loopback stand-ins
//	testbed list                   list suites, variants and scenarios
//	testbed lint                   check prompts and expectations against tool sets
//	testbed init mysuite --agent cba  write a commented starter suite
//	testbed compare --suite climate --base untrimmed --head trimmed
//	testbed cassettes check        scan cassettes for secrets
//	testbed serve odbchat --suite odbchat --variant single-pass  router.answer over MCP
//
// Exit codes: 0 all passed · 1 an expectation or threshold failed · 2 bad
// usage or invalid suite · 3 stale cassette · 4 internal or I/O error · 5
// another recording holds the suite's lock · 6 record wrote every cassette
// but some scenarios fail their expectations or thresholds · 7 record
// wrote nothing for some scenarios: the stand-in had no policy for their
// prompts · 130 interrupted (SIGINT, SIGTERM or SIGHUP).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/runner"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitStale    = 3
	exitInternal = 4
	exitLocked   = 5 // another recording of the suite is running
	// exitRecordedFailing: record wrote every cassette, but scenarios fail
	// their expectations or thresholds.
	exitRecordedFailing = 6
	// exitNoPolicy: record could not record some scenarios because the
	// stand-in had no policy for a prompt; nothing was written for them.
	exitNoPolicy = 7
	// exitLeak: record did not write some cassettes because the secret
	// scan found, in what it was about to write, secrets redaction left.
	exitLeak   = 8
	exitSignal = 130 // interrupted, as shells report SIGINT
)

// exitError carries an exit code to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == external.IsolateCommand {
		// testbed started itself in an outside agent's namespaces.
		os.Exit(external.IsolateMain(os.Args[2:]))
	}
	// SIGINT, SIGTERM or SIGHUP (the terminal closed) cancels ctx: a
	// recording aborts the scenario in flight, starts no other, and says
	// what it recorded. A second signal kills the process as usual.
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopSignals are the signals that stop a command: SIGINT and SIGTERM,
// and SIGHUP unless testbed was started with it ignored (nohup), which
// asking to be told of it would undo.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

const usage = `testbed replays LLM agent systems against recorded cassettes and scores them.

Usage:
  testbed <command> [flags]

Commands:
  run              replay suites offline: a line per suite and variant, failures, the verdict
  record           re-record cassettes against the loopback stand-ins (or a real provider)
  show             one scenario run as a timeline: model calls, tools, upstream calls, checks
  list             list suites, variants and scenarios
  lint             check that every tool a prompt or an expectation names is one the model has
  init             write a commented starter suite for a built-in agent
  compare          two variants (or two report files) side by side
  baseline bless   bless the current replay as the baseline the gate compares with
  report --html    render a report JSON as one self-contained HTML page with charts
  report merge     join the reports of the shards of one run
  cassettes check  scan cassettes for secrets
  proxy            serve one scenario's cassette to an agent in any language, by base URL
  standin          start the stand-in model and the fixture upstreams on loopback
  agent            run a built-in agent as an outside one, on JSON lines (see harness/external)
  serve odbchat    serve ODBchat's router.answer as an MCP server on loopback (replay, record or live)

Run 'testbed <command> --help' for a command's flags and examples.
`

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, version())
		return exitOK
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr)
	case "record":
		err = cmdRecord(ctx, args[1:], stdout, stderr)
	case "list":
		err = cmdList(args[1:], stdout, stderr)
	case "lint":
		err = cmdLint(args[1:], stdout, stderr)
	case "init":
		err = cmdInit(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(ctx, args[1:], stdout, stderr)
	case "baseline":
		err = cmdBaseline(ctx, args[1:], stdout, stderr)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "proxy":
		err = cmdProxy(ctx, args[1:], os.Stdin, stdout, stderr)
	case "standin":
		err = cmdStandin(ctx, args[1:], stdout, stderr)
	case "agent":
		err = cmdAgent(ctx, args[1:], os.Stdin, stdout, stderr)
	case "serve":
		err = cmdServe(ctx, args[1:], stdout, stderr)
	case "show":
		err = cmdShow(ctx, args[1:], stdout, stderr)
	case "cassettes":
		if len(args) < 2 || args[1] != "check" {
			err = withCode(exitUsage, errors.New("usage: testbed cassettes check [--json] [--dir cassettes]"))
		} else {
			err = cmdCassettesCheck(ctx, args[2:], stdout, stderr)
		}
	default:
		msg := fmt.Sprintf("unknown command %q", args[0])
		if near := nearest(strings.TrimLeft(args[0], "-"), commands); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		err = withCode(exitUsage, fmt.Errorf("%s (run 'testbed --help')", msg))
	}
	if ctx.Err() != nil && args[0] != "proxy" && args[0] != "standin" && args[0] != "serve" {
		// SIGINT, SIGTERM or SIGHUP stopped the command: whatever error that caused
		// (context canceled), or none, the exit is the shell's for an
		// interrupt. (It is how a serving command ends, and says how its
		// session went.)
		if err == nil {
			err = ctx.Err()
		}
		var ee *exitError
		if !errors.As(err, &ee) || ee.err != errSilent {
			fmt.Fprintln(stderr, "testbed: interrupted:", shown(err))
		}
		return exitSignal
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != errSilent {
			fmt.Fprintln(stderr, "testbed:", shown(ee.err))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "testbed:", shown(err))
	return exitInternal
}

// shown is err's message as testbed prints it: through the detector (the
// maintained rules and the key variables' values), since a message may
// quote what a user file or a program said, a key among it.
func shown(err error) string {
	d, derr := cassette.NewDetector(runner.KeyValues(nil), runner.KeyVariables(nil), nil)
	if derr != nil {
		return err.Error()
	}
	return d.Text(err.Error())
}

// commands are the words run dispatches on, for "did you mean".
var commands = []string{"init", "run", "record", "show", "list", "lint", "compare", "baseline", "report", "proxy", "standin", "agent", "serve", "cassettes", "version"}

// version is testbed's module version and, when the build recorded it, the
// commit it was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "testbed (unknown version)"
	}
	v := "testbed " + info.Main.Version
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			v += "+modified"
		}
	}
	return v + " " + info.GoVersion
}

// errSilent marks an exit whose reason was already printed.
var errSilent = errors.New("")
