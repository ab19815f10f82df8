package evidence

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/svcrecon/svcrecon/internal/recon"
)

// ManifestFile is the name of the manifest an export writes beside the
// files.
const ManifestFile = "manifest.json"

// Exported is a file an export wrote, with its rows (per sheet for the
// workbook).
type Exported struct {
	Path   string
	Rows   int64
	Sheets map[string]int64
}

// ExportManifest adds an export's section to run runID's manifest: each
// file written (its name, rows, size and SHA-256, read back from the file)
// with a digest of its own, so that the run's digest stays what a
// sign-off bound. It keeps the manifest so in the database and returns
// it as manifest.json holds it; found is false for a run without a
// manifest (checked before manifests were kept).
func ExportManifest(ctx context.Context, db Store, runID int64, files []Exported, at time.Time) (js []byte, found bool, err error) {
	sm, ok, err := db.Manifest(ctx, runID)
	if err != nil || !ok {
		return nil, false, err
	}
	m, err := ParseManifest(sm.JSON)
	if err != nil {
		return nil, true, fmt.Errorf("manifest of run %d: %w", runID, err)
	}
	e := &Export{At: at.In(recon.IST).Format(time.RFC3339), Files: []ExportFile{}}
	for _, f := range files {
		sum, n, err := fileSHA256(f.Path)
		if err != nil {
			return nil, true, fmt.Errorf("manifest: exported file: %w", err)
		}
		e.Files = append(e.Files, ExportFile{Name: filepath.Base(f.Path), Rows: f.Rows, Sheets: f.Sheets, Bytes: n, SHA256: sum})
	}
	if e.Digest, err = exportDigest(m.Digest, e); err != nil {
		return nil, true, err
	}
	m.Export = e
	if js, err = m.File(); err != nil {
		return nil, true, err
	}
	if err := db.SetManifestJSON(ctx, runID, js); err != nil {
		return nil, true, err
	}
	return js, true, nil
}
