package explain

// AllSites returns every site of the benchmark that allocates on either
// side, in unit (UnitAllocs or UnitBytes; anything else is UnitBytes), the
// largest allocator (on either side) first.
func (a *Allocs) AllSites(unit string) []Site {
	return a.sites(unit, false)
}
