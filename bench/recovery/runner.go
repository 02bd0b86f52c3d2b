package recovery

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/loopctl-go/reflection"
)

// Scenarios is a loaded scenario file.
type Scenarios struct {
	path string
	list []*scenario
}

// Load reads a scenario file (one JSON object per line; see the package
// documentation). Unknown fields, bad values and duplicate ids are errors
// that name the line.
func Load(path string) (*Scenarios, error) {
	list, err := loadScenarios(path)
	if err != nil {
		return nil, err
	}
	return &Scenarios{path: path, list: list}, nil
}

// Len returns the number of scenarios.
func (s *Scenarios) Len() int { return len(s.list) }

// Check reports every scenario that cannot end as it says is right under a
// perfect analysis and the Driver's own limits, one error per scenario.
func (s *Scenarios) Check() error {
	var errs []error
	for _, sc := range s.list {
		if err := checkConsistent(sc); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: scenario %s: %s", s.path, sc.line, sc.ID, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
	}
	return errors.Join(errs...)
}

// Options says what Run runs.
type Options struct {
	// Configs names the configurations to run, in the order given; empty
	// means every standard one (ConfigNames).
	Configs []string

	// Reflector, when set, adds two configurations named Name and Name+"_safe":
	// the Reflector with the rules' strategy, and in the recommended set-up.
	// Run calls it from inside synctest bubbles: a Reflector that does I/O
	// or starts goroutines must be wrapped with Outside.
	Reflector reflection.Reflector
	Name      string

	// Seeds is how many seeds each configuration runs with; 0 means 5.
	Seeds int
}

// ConfigNames returns the names of the standard configurations, in the
// order they are reported.
func ConfigNames() []string {
	names := make([]string, len(configs))
	for i, c := range configs {
		names[i] = c.name
	}
	return names
}

// Results are what Run measured.
type Results struct {
	file resultsFile
	scs  []*scenario
}

// Run runs the chosen configurations over every scenario with each seed.
// Every run of a scenario is a synctest bubble of its own, so it starts at
// the same virtual instant and its waits take no real time; configurations
// run in parallel subtests of t.
func Run(t *testing.T, s *Scenarios, o Options) (*Results, error) {
	cs, err := o.configs()
	if err != nil {
		return nil, err
	}
	return runAll(t, s.list, cs, o.Seeds)
}

// runAll runs the configurations cs over scs with n seeds (0: 5).
func runAll(t *testing.T, scs []*scenario, cs []config, n int) (*Results, error) {
	if n <= 0 {
		n = seeds
	}
	s := &Scenarios{list: scs}
	runs := make([][][]runResult, len(cs))
	var mu sync.Mutex
	var errs []error
	t.Run("run", func(t *testing.T) {
		for i, c := range cs {
			runs[i] = make([][]runResult, n)
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				for seed := range n {
					out := make([]runResult, len(s.list))
					for j, sc := range s.list {
						synctest.Test(t, func(*testing.T) {
							var err error
							if out[j], err = play(c, sc, uint64(seed+1)); err != nil {
								mu.Lock()
								errs = append(errs, err)
								mu.Unlock()
							}
						})
					}
					runs[i][seed] = out
				}
			})
		}
	})
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if t.Failed() {
		return nil, errors.New("recovery: a run failed")
	}
	res := &Results{file: resultsFile{Seeds: n, Scenarios: len(s.list)}, scs: s.list}
	for i, c := range cs {
		res.file.Configs = append(res.file.Configs, summarize(c.name, s.list, runs[i]))
	}
	return res, nil
}

// configs returns the configurations o names.
func (o Options) configs() ([]config, error) {
	all := slices.Clone(configs)
	if o.Reflector != nil {
		name := o.Name
		if name == "" {
			name = "own"
		}
		all = append(all, ownConfigs(o.Reflector, name)...)
	}
	if len(o.Configs) == 0 {
		if o.Reflector != nil {
			return all, nil
		}
		return configs, nil
	}
	var out []config
	for _, name := range o.Configs {
		i := slices.IndexFunc(all, func(c config) bool { return c.name == name })
		if i < 0 {
			return nil, fmt.Errorf("recovery: no configuration %q", name)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// WriteTables writes the results as Markdown tables.
func (r *Results) WriteTables(w io.Writer) { writeTables(w, &r.file, r.scs) }

// JSON returns the results as indented JSON: {"seeds", "scenarios",
// "configs": [{"config": ..., metrics}]}.
func (r *Results) JSON() ([]byte, error) { return r.file.encode() }
