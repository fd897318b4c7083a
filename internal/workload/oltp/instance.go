package oltp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// ErrNotOwned marks tables that exist but were not created by rightsize:
// prepare refuses them and cleanup leaves them alone unless --force.
var ErrNotOwned = objects.ErrNotOwned

// ErrMissingTables is returned by NewVU when tables run needs do not exist.
var ErrMissingTables = workload.NotPrepared("missing tables")

// instance is a workload bound to one target. Its methods may be called from
// several goroutines (NewVU concurrently for many VUs).
type instance struct {
	dbtarget.Base
	v    variant
	o    Options
	dist *datagen.Dist

	cTmpl, padTmpl *datagen.Template

	tablesOK atomic.Bool // every table seen to exist once

	uniqueOnce sync.Once
	unique     *datagen.Unique // oltp_insert ids without --auto-inc
}

var _ workload.Instance = (*instance)(nil)

func newInstance(v variant, o Options, t *dbtarget.DB) (*instance, error) {
	cfg, err := o.distConfig()
	if err != nil {
		return nil, err
	}
	dist, err := datagen.NewDist(cfg)
	if err != nil {
		return nil, err
	}
	in := &instance{
		v: v, o: o, dist: dist,
		cTmpl:   datagen.NewTemplate(datagen.CTemplate),
		padTmpl: datagen.NewTemplate(datagen.PadTemplate),
	}
	in.Init(t)
	return in, nil
}

// checkTables returns an error naming every sbtest table that is missing.
func (in *instance) checkTables(ctx context.Context, c dialect.Conn) error {
	if in.tablesOK.Load() {
		return nil
	}
	var missing []string
	for n := 1; n <= in.o.Tables; n++ {
		ok, err := c.TableExists(ctx, tableName(n))
		if err != nil {
			return fmt.Errorf("%s: check table %s: %w", in.Target, tableName(n), err)
		}
		if !ok {
			missing = append(missing, tableName(n))
		}
	}
	if len(missing) > 0 {
		if len(missing) > 10 {
			missing = append(missing[:10], fmt.Sprintf("and %d more", len(missing)-10))
		}
		return fmt.Errorf("%s: %w: %s (run prepare with --tables=%d first)",
			in.Target, ErrMissingTables, strings.Join(missing, ", "), in.o.Tables)
	}
	in.tablesOK.Store(true)
	return nil
}

// NewVU opens one virtual user: one connection with every statement the
// script needs prepared on every table.
func (in *instance) NewVU(ctx context.Context, id int, seed uint64) (workload.VU, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := in.checkTables(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	if in.v == insert && !in.o.AutoInc {
		in.uniqueOnce.Do(func() { in.unique = datagen.NewUnique(seed) })
	}
	v, err := newVU(ctx, in, c, seed)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: VU %d: %w", in.Target, id, err)
	}
	return v, nil
}
