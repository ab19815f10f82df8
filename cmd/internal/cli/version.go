package cli

import "github.com/svcrecon/svcrecon/internal/buildinfo"

// Version is the version line every command prints for --version:
// "svcrecon", the module version and the VCS revision it was built from
// (buildinfo.Version).
func Version() string { return buildinfo.Version() }
