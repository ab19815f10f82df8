package recon

// Bucket is an aging bucket of unsettled collect orders: ages in days
// (against the as-of date) up to and including MaxDays fall in the first
// bucket that holds them; the last bucket has no upper bound (MaxDays < 0).
type Bucket struct {
	Name    string
	MaxDays int
}

// Buckets are the aging buckets in order: 0–1, 2–3, 4–7, 8–30, over 30 days.
var Buckets = []Bucket{
	{"0-1", 1},
	{"2-3", 3},
	{"4-7", 7},
	{"8-30", 30},
	{">30", -1},
}

// BucketOf returns the name of the aging bucket of an age in days.
func BucketOf(days int) string {
	for _, b := range Buckets {
		if b.MaxDays < 0 || days <= b.MaxDays {
			return b.Name
		}
	}
	return Buckets[len(Buckets)-1].Name
}

// BucketNames lists the bucket names in order.
func BucketNames() []string {
	out := make([]string, len(Buckets))
	for i, b := range Buckets {
		out[i] = b.Name
	}
	return out
}
