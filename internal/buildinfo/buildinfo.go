// Package buildinfo says which build of svcrecon is running, from the build
// information Go embeds: for --version and for the files svcrecon writes.
package buildinfo

import "runtime/debug"

// Version is "svcrecon", the module version and the VCS revision it was
// built from ("+dirty" for uncommitted changes), e.g. "svcrecon (devel)
// 0aab28a3c1f2+dirty". go build stamps the revision; go run and tests do
// not, and show "svcrecon (devel)".
func Version() string {
	version, rev, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	out := "svcrecon " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " " + rev
		if dirty {
			out += "+dirty"
		}
	}
	return out
}
