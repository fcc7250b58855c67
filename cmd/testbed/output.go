package main

import (
	"io"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
)

// writeReport prints rep as the selection asks: JSON, every table, or (by
// default) one line per suite and variant, the failures and the verdict.
func writeReport(rep *report.Report, sel selection, w io.Writer) error {
	switch {
	case sel.json:
		return report.WriteJSON(w, rep)
	case sel.tables:
		return report.WriteText(w, rep)
	}
	return report.WriteBrief(w, rep)
}

// saveReports writes the report's files (report.Latest) into dir as one
// set: runs finishing at once leave the files from the same run.
func saveReports(rep *report.Report, dir string) error {
	return files.WriteSet(dir, "latest", report.Latest(rep))
}

// saveFile renders rep into path atomically, mode 0644.
func saveFile(path string, rep *report.Report, write func(io.Writer, *report.Report) error) error {
	return files.WriteAtomic(path, func(w io.Writer) error { return write(w, rep) })
}
