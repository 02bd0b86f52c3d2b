// Command recoverybench runs the recovery benchmark over a scenario file and
// prints its tables: what each configuration of recovery achieved on the
// failures the file describes, what harm it did and what it cost. Write the
// failures your own tools meet, in the benchmark's format, and see how the
// library's set-ups, the baselines and a model of your own handle them.
//
//	go run ./bench/recovery/cmd/recoverybench -scenarios my-failures.jsonl
//	go run ./bench/recovery/cmd/recoverybench -scenarios my-failures.jsonl -configs no_retry,rules_safe -json out.json
//	RECOVERY_LLM_URL=http://localhost:11434/v1 RECOVERY_LLM_MODEL=qwen2.5:7b \
//	    go run ./bench/recovery/cmd/recoverybench -scenarios my-failures.jsonl -configs rules_safe,llm,llm_safe
//
// With a server URL (-llm-url, or RECOVERY_LLM_URL: any OpenAI-compatible
// chat-completions API), two configurations are added: llm (the llm
// package's Reflector with the rules' strategy) and llm_safe (the same in
// the recommended set-up). The key is read from RECOVERY_LLM_KEY, else
// OPENAI_API_KEY. Without a URL they are skipped, and the command says so.
// A model's answers vary, so its results are not reproducible, and it is
// asked once per failure: five seeds of a large file make many requests
// (-seeds 1 makes fewer).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopctl-go/reflection/bench/recovery"
	"github.com/loopctl-go/reflection/llm"
	"github.com/sashabaranov/go-openai"
)

func main() {
	scenarios := flag.String("scenarios", "", "the scenario file (JSON lines; required)")
	configs := flag.String("configs", "", "comma-separated configurations to run (default: all; -list names them)")
	jsonOut := flag.String("json", "", "also write the results to this file as JSON")
	seeds := flag.Int("seeds", 5, "seeds per configuration (jitter and the noisy oracle's draws)")
	list := flag.Bool("list", false, "list the configurations and exit")
	llmURL := flag.String("llm-url", os.Getenv("RECOVERY_LLM_URL"), "base URL of an OpenAI-compatible API; adds the llm and llm_safe configurations (env RECOVERY_LLM_URL)")
	llmModel := flag.String("llm-model", envOr("RECOVERY_LLM_MODEL", "gpt-4o-mini"), "the model the llm configurations ask (env RECOVERY_LLM_MODEL)")
	llmWorkers := flag.Int("llm-workers", 4, "requests to the model at once")
	llmTimeout := flag.Duration("llm-timeout", time.Minute, "timeout of one request to the model")
	flag.Parse()

	if *list {
		fmt.Println(strings.Join(recovery.ConfigNames(), "\n"))
		fmt.Println("llm\nllm_safe")
		return
	}
	if *scenarios == "" {
		fmt.Fprintln(os.Stderr, "recoverybench: give the scenario file with -scenarios")
		os.Exit(2)
	}
	set, err := recovery.Load(*scenarios)
	if err != nil {
		fail(err)
	}
	if err := set.Check(); err != nil {
		fail(fmt.Errorf("scenarios that cannot end as they say:\n%w", err))
	}
	opts := recovery.Options{Seeds: *seeds}
	if *configs != "" {
		opts.Configs = strings.Split(*configs, ",")
	}
	if *llmURL != "" {
		cfg := openai.DefaultConfig(envOr("RECOVERY_LLM_KEY", os.Getenv("OPENAI_API_KEY")))
		cfg.BaseURL = *llmURL
		// The proxy's goroutines end with the process.
		proxy, _ := recovery.Outside(llm.New(openai.NewClientWithConfig(cfg), llm.WithModel(*llmModel)), *llmWorkers, *llmTimeout)
		opts.Reflector, opts.Name = proxy, "llm"
	} else {
		opts.Configs = without(opts.Configs, "llm", "llm_safe")
		fmt.Fprintln(os.Stderr, "recoverybench: llm and llm_safe skipped: no server URL (-llm-url or RECOVERY_LLM_URL)")
	}
	fmt.Printf("%d scenarios from %s\n", set.Len(), *scenarios)
	run(func(t *testing.T) {
		res, err := recovery.Run(t, set, opts)
		if err != nil {
			t.Fatal(err)
		}
		res.WriteTables(os.Stdout)
		if *jsonOut != "" {
			b, err := res.JSON()
			if err == nil {
				err = os.WriteFile(*jsonOut, b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// run runs f as the one test of a test binary of its own (the benchmark's
// synctest bubbles need a *testing.T) and exits: 0 when f did not fail.
func run(f func(t *testing.T)) {
	os.Args = []string{os.Args[0], "-test.run=^Benchmark$"}
	testing.Main(func(pat, str string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "Benchmark", F: func(t *testing.T) {
			f(t)
			if !t.Failed() {
				os.Exit(0) // before the testing package prints PASS
			}
		}}}, nil, nil)
	os.Exit(1)
}

// without returns names without the given ones.
func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "recoverybench:", err)
	os.Exit(1)
}
