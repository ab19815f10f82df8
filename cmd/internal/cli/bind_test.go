package cli

import (
	"flag"
	"io"
	"testing"
)

// TestBindExcept: the named flags are left out, the others parse into
// Common as Bind's do, and the settings left out keep their environment
// defaults.
func TestBindExcept(t *testing.T) {
	t.Setenv("SVC_OUTLET_ID", "OUT9")
	t.Setenv("SVC_BASE_URL", "https://env.example")
	var c Common
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindExcept(fs, "outlet-id", "rate")
	for _, name := range []string{"outlet-id", "rate"} {
		if fs.Lookup(name) != nil {
			t.Errorf("BindExcept left --%s in", name)
		}
	}
	if err := fs.Parse([]string{"--sandbox", "--account", "A1", "--timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	if !c.Sandbox || c.Account != "A1" || c.Timeout.String() != "5s" || c.BaseURL != "https://env.example" || c.OutletID != "OUT9" {
		t.Errorf("Common = %+v", c)
	}
	if f := fs.Lookup("timeout"); f == nil || f.DefValue != "1m0s" {
		t.Errorf("--timeout default = %v, want 1m0s", f)
	}
	if err := fs.Parse([]string{"--outlet-id", "X"}); err == nil {
		t.Errorf("--outlet-id parsed, want flag provided but not defined")
	}
}
