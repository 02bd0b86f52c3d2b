// Command apisnapshot checks or writes api/*.txt, the list of every exported
// name of every module of this repository (see internal/apisnapshot). Run
// it from anywhere in the repository:
//
//	go run ./internal/cmd/apisnapshot      # print what changed; exit 1 if anything did
//	go run ./internal/cmd/apisnapshot -w   # write the lists anew
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/loopctl-go/reflection/internal/apisnapshot"
)

func main() {
	write := flag.Bool("w", false, "write api/*.txt instead of checking them")
	flag.Parse()
	wd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	root, err := apisnapshot.FindRoot(wd, "github.com/loopctl-go/reflection")
	if err != nil {
		fail(err)
	}
	if *write {
		if err := apisnapshot.Write(root); err != nil {
			fail(err)
		}
		return
	}
	diff, err := apisnapshot.Diff(root)
	if err != nil {
		fail(err)
	}
	files := make([]string, 0, len(diff))
	for f := range diff {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		fmt.Println(f + ":")
		for _, l := range diff[f] {
			fmt.Println("\t" + l)
		}
	}
	if len(files) > 0 {
		fmt.Println("the exported API changed: if that is meant, run go run ./internal/cmd/apisnapshot -w")
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "apisnapshot:", err)
	os.Exit(2)
}
