// Package pipeline holds the stages of a run after the command line has
// resolved it: judging raw files with a policy resolved once (Judge: the
// screen, the confirmation, an adaptive run's interim looks) and the raw
// files a judgement reads (Raw, ReadDir: base.txt, head.txt and, when the
// run confirmed, confirm-base.txt and confirm-head.txt with their
// failures). It reads no environment and no flags, and writes no words:
// what a stage learns is a value for the report.
package pipeline
