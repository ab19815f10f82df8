package cli

import "runtime/debug"

// Version is the version line every command prints for --version:
// "svcrecon", the module version and the VCS revision it was built from
// ("+dirty" for uncommitted changes), from the build information Go embeds
// (go build stamps it; go run does not, and shows "(devel)").
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
