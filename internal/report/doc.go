// Package report turns a verdict of package gate, with the metadata of the
// run, into what people and programs read. [Build] makes one [Document]
// (sections, tables, rows, cells made of spans that say whether their text
// is trusted); [WriteText] writes it for a terminal, aligned in the manner
// of benchstat, and [WriteMarkdown] for a pull request comment or a job
// summary, escaping only the untrusted spans and meeting a size limit by
// dropping rows. [JSON] writes the verdict as data, its schema in
// docs/json-schema.md. The gate's reasons and warnings are codes with
// figures; this package puts them in words. [BuildCalibration] does the
// same for the noise report of benchgate calibrate.
//
// Benchmark names, package paths, units, refs, failure output, notes and
// warnings can come from the pull request being measured; see
// [WriteMarkdown] and [WriteText] for what each writer does to keep them
// inert.
package report
