package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/svcrecon/svcrecon/cmd/internal/cli"
	"github.com/svcrecon/svcrecon/internal/bulk"
	"github.com/svcrecon/svcrecon/internal/recon"
)

// sweep clears what dead processes left of the runs bulkrun status shows
// (the run of ids, or the recent running ones), before it shows them
// (bulk.Leases.Sweep): a run whose process is gone — its lease, or every
// worker's heartbeat, expired by the database's clock, or its pid gone
// from this host — becomes interrupted and its rows in flight pending. It
// never calls the service: resume and run look those rows up.
func sweep(ctx context.Context, env *cli.Env, ids []string, stdout io.Writer) error {
	ls := leases(env)
	var runs []*bulk.Run
	if len(ids) > 0 {
		run, err := bulk.LoadRun(ctx, env.DB, strings.ToUpper(ids[0]))
		if errors.Is(err, bulk.ErrRunNotFound) {
			return nil // status says so
		}
		if err != nil {
			return err
		}
		runs = append(runs, run)
	} else {
		var err error
		if runs, err = bulk.Runs(ctx, env.DB, 20); err != nil {
			return err
		}
	}
	for _, r := range runs {
		if r.State != bulk.RunRunning {
			continue
		}
		s, err := ls.Sweep(ctx, r.ID)
		if err != nil {
			return err
		}
		for _, g := range s.Gone {
			fmt.Fprintf(stdout, "run %s: the process working on it is gone (host %s, pid %d, last heartbeat %s IST)\n",
				r.ID, g.Host, g.PID, g.Heartbeat.In(recon.IST).Format(time.DateTime))
		}
		if s.Pended > 0 {
			fmt.Fprintf(stdout, "run %s: its %d rows in flight are pending: bulkrun resume %s looks them up with txnStatus and sends those never executed\n",
				r.ID, s.Pended, r.ID)
		}
	}
	return nil
}
