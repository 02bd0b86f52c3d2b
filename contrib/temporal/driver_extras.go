package reflectiontemporal

import (
	"reflect"
	"strings"
	"time"

	"github.com/loopctl-go/reflection"
	"go.temporal.io/sdk/workflow"
)

// driverExtras is what a Driver holds that only Driver.Run uses: Run maps
// the attempt timeout to the tool activity's and names the others, which it
// does not call, in a warning.
type driverExtras struct {
	attemptTimeout time.Duration
	ignored        []string // "Reflector", "Asker", "Observer", "logger", in that order
}

// extrasOf reads d's attempt timeout and which of its Reflector, Asker,
// Observer and logger are set. The root package has no accessors for them
// yet, so this reads the Driver's fields by name; a field it cannot find
// reads as unset (the package's tests check every one).
func extrasOf(d *reflection.Driver) driverExtras {
	var x driverExtras
	if d == nil {
		return x
	}
	v := reflect.ValueOf(d).Elem()
	if f := v.FieldByName("attemptTimeout"); f.IsValid() && f.Kind() == reflect.Int64 {
		x.attemptTimeout = time.Duration(f.Int())
	}
	for _, field := range [...]struct{ name, says string }{
		{"reflector", "Reflector"}, {"asker", "Asker"}, {"observer", "Observer"}, {"logger", "logger"},
	} {
		f := v.FieldByName(field.name)
		if !f.IsValid() {
			continue
		}
		switch f.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !f.IsNil() {
				x.ignored = append(x.ignored, field.says)
			}
		}
	}
	return x
}

// warnIgnored tells, through the workflow's logger (silent during replay),
// which parts of the Driver Run does not call.
func (rt *runtime) warnIgnored() {
	if len(rt.cfg.extras.ignored) == 0 {
		return
	}
	workflow.GetLogger(rt.ctx).Warn("reflectiontemporal: Run does not call the Driver's "+
		strings.Join(rt.cfg.extras.ignored, ", ")+
		" (Register's Reflector or WithWorkflowReflector analyses, WithAsk asks, the Report and the history record)",
		"CallID", rt.state.status.CallID)
}
