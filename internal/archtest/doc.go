// Package archtest holds no code: its test checks the layout rules of
// docs/architecture.md on the source tree (what may import what, SQL only
// in internal/store, no production file over 600 lines).
package archtest
