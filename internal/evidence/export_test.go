package evidence

// The day digest's two ways, for the tests: streamed from the store's
// order (digestDays) and the definition, every line held and sorted.
var (
	DigestDays   = digestDays
	SortedDigest = sortedDigest
)

// PrefetchDone waits until p's reads ended.
func PrefetchDone(p *Prefetched) { <-p.done }
