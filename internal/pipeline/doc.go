// Package pipeline runs a measurement once the command line has resolved
// it into a Plan (the commits, the lanes, the runner's settings, where the
// rules come from): Prepare checks both sides out and reads the rules;
// Run builds, measures (fixed rounds or Adaptive, then the Instructions
// lane), judges the raw files (Judge.Raw: the screen, the Confirm re-run,
// an adaptive run's looks) and explains (Explain), and returns the
// verdict with the run's facts (report.Run) for the report. ReadDir and
// Raw are the raw files a judgement reads, so that run, compare and merge
// judge alike. It reads no environment and no flags; progress goes to the
// writers it is given, and what a stage learns is a value.
package pipeline
