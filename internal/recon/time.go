package recon

import (
	"strings"
	"time"
)

// IST is Indian Standard Time (UTC+05:30, no daylight saving). Timestamps
// the service sends without a zone are IST, and so are the dates that
// decide results (periods, the as-of date of aging).
var IST = time.FixedZone("IST", 5*3600+1800)

// TimestampLayout is the service's timestamp format (envelope timestamp,
// txnDateTime), also how record and call times are stored: IST.
const TimestampLayout = "2006-01-02 15:04:05"

// DateLayout is a calendar day, YYYY-MM-DD.
const DateLayout = "2006-01-02"

// ShortDuration writes a duration without its zero tails: "10m", "4h",
// "1h30m", "90s" rather than "10m0s", "4h0m0s".
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
