// Package recon is the vocabulary every step of svcrecon shares: the synced
// Record and its field table (API field name → database column → sheet
// header → type), the record Kind, a logged Call and its pool entry, the
// matching outcomes and break kinds, the aging Bucket of unsettled orders,
// money formatting and Indian Standard Time.
//
// It imports no other package of the project, and nothing else declares
// these nouns again: statement fills Records, store writes and reads them
// by the field table, ledger checks them and export writes them under the
// same headers.
package recon
