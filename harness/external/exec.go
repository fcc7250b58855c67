package external

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Exec runs argv with exactly env (see Inherited and Environment), its
// standard streams passed through, until it exits or ctx ends. It is
// contained as a run's program is (contain: a PID namespace where the
// system allows, else under a keeper when helper, the program that serves
// IsolateCommand, is given, else a process group of its own), and ended
// with it: when ctx ends the group is
// asked to stop (SIGTERM) and killed a second later, and whatever the
// program left running when it exited is killed too. stdin reaches it
// through a pipe, so a program in its own group never reads the terminal
// itself (which would stop it). The error is the program's exit, or ctx's.
func Exec(ctx context.Context, argv []string, env []string, helper string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	var in *os.File // the pipe's end stdin is copied into
	if stdin != nil {
		// A pipe of its own, not exec's: Wait waits for exec's copy of
		// stdin, which waits for stdin's next read, however long after the
		// program ended that comes.
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		defer r.Close()
		cmd.Stdin, in = r, w
		defer in.Close()
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second // for what it left holding its stdout and stderr
	k := contain(cmd, helper)
	err := cmd.Start()
	k.started()
	if err != nil {
		k.release()
		return fmt.Errorf("start %q: %w", argv, err)
	}
	if in != nil {
		go func() {
			io.Copy(in, stdin) // ends with stdin, or at the next read once the pipe is closed
			in.Close()
		}()
	}
	p := &process{cmd: cmd, keeper: k}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		p.kill() // what it started and left behind
		if errors.Is(err, exec.ErrWaitDelay) {
			err = nil
		}
		return err
	case <-ctx.Done():
		p.terminate()
		select {
		case <-done:
			p.kill()
		case <-time.After(time.Second):
			p.kill()
			<-done
		}
		return ctx.Err()
	}
}
