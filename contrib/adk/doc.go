// Package reflectionadk is in progress.
package reflectionadk

import (
	_ "github.com/loopctl-go/reflection"
	_ "google.golang.org/adk/v2/runner"
	_ "google.golang.org/adk/v2/plugin/retryandreflect"
	_ "google.golang.org/adk/v2/tool/functiontool"
	_ "google.golang.org/adk/v2/session"
	_ "google.golang.org/adk/v2/agent/llmagent"
)
