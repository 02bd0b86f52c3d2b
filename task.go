package reflection

import "context"

type taskKey struct{}

// ContextWithTask returns a copy of ctx that carries the agent's task, so the
// Reflector sees it in Failure.Task without any change to the host's
// signatures.
func ContextWithTask(ctx context.Context, task string) context.Context {
	return context.WithValue(ctx, taskKey{}, task)
}

// TaskFromContext returns the task stored by ContextWithTask, or "" when none.
func TaskFromContext(ctx context.Context) string {
	task, _ := ctx.Value(taskKey{}).(string)
	return task
}
