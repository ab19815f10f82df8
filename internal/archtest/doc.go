// Package archtest holds no code: its tests keep docs/architecture.md
// true of the source tree. They read the document's two tables (the
// packages and what each is for; what may import what) and fail when a
// package or file the document names does not exist, when a package of
// the module is missing from a table, or when a package imports what its
// row does not allow; and they check the rules the document states: SQL
// only in internal/store, no production function longer than 80 lines
// outside the test-helper packages.
package archtest
