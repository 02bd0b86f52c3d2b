// Command bundle writes the root package's bundle.go from the internal
// packages it shares with the rest of the module (see internal/bundle).
// Run it from the repository's root: go run ./internal/cmd/bundle
package main

import (
	"fmt"
	"os"

	"github.com/loopctl-go/reflection/internal/bundle"
)

func main() {
	src, err := bundle.Generate(".")
	if err == nil {
		err = os.WriteFile(bundle.File, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}
