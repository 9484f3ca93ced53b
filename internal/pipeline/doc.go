// Package pipeline runs a measurement once the command line has resolved
// it into a Plan (the commits, the lanes, the runner's settings, where the
// rules come from): Prepare checks both sides out and reads the rules;
// Run builds, measures (fixed rounds or adaptive, then the Instructions
// lane), judges the raw files (Judge.Raw: the screen, the Confirm re-run,
// an adaptive run's looks) and explains (Explain). Its stages are methods
// of one run state and return what they learned; record makes the
// Outcome's Record of those values, for the report, which words them.
// Compare, CompareDir and Merge judge files it did not measure and give
// the same Outcome. It reads no environment and no flags and writes no
// sentence: what it is doing goes to its caller as Steps.
package pipeline
