// Package english has the one rule of English grammar that messages in
// several packages need: a count with its noun ("1 package", "3
// packages"). Report words a verdict; the packages below it that still
// write sentences (affected's selection summary, shard's merge problems)
// count with the same function.
package english

import "strconv"

// Plural is n with the singular one when n is 1, else with many:
// Plural(1, "file", "files") is "1 file", Plural(0, ...) "0 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
