package reflectionlangchaingo_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"

	"github.com/loopctl-go/reflection"
	reflectionlangchaingo "github.com/loopctl-go/reflection/contrib/langchaingo"
	"github.com/loopctl-go/reflection/reflectiontest"
)

const question = "What is two plus three?"

// newExecutor is langchaingo's executor running a one-shot (ReAct) agent
// over model and ts.
func newExecutor(model *fakeModel, ts []tools.Tool) *agents.Executor {
	return agents.NewExecutor(agents.NewOneShotAgent(model, ts), agents.WithMaxIterations(3))
}

// TestExecutorRecovers runs a langchaingo agent whose model calls the adder
// with text it cannot read: the Driver corrects the input, the tool
// succeeds, and the model reads the result as its observation.
func TestExecutorRecovers(t *testing.T) {
	model := &fakeModel{script: []string{
		"Thought: I should add the numbers.\nAction: adder\nAction Input: two plus three",
		"Thought: I know the answer.\nFinal Answer: 5",
	}}
	tool := &adder{}
	r := reflectiontest.NewReflector(inputFix(reflection.TextInput("2 + 3"))).RepeatLast()
	driver := backoff(r, reflection.WithSchemas(reflectionlangchaingo.Schemas([]tools.Tool{tool})))

	ctx := reflection.ContextWithTask(context.Background(), question)
	answer, err := chains.Run(ctx, newExecutor(model, reflectionlangchaingo.WrapTools(driver, []tools.Tool{tool})), question)
	require.NoError(t, err)
	assert.Equal(t, "5", answer)

	assert.Equal(t, []string{"two plus three", "2 + 3"}, tool.ran())
	prompts := model.sent()
	require.Len(t, prompts, 2)
	assert.Contains(t, prompts[1], "Action Input: two plus three\nObservation: 5")
	asked := r.Failures()
	require.Len(t, asked, 1)
	assert.Equal(t, question, asked[0].Task)
}

// TestExecutorSoftFailure checks that a failure the Driver gives up on
// reaches the model as an observation, and the agent goes on.
func TestExecutorSoftFailure(t *testing.T) {
	model := &fakeModel{script: []string{
		"Action: adder\nAction Input: two plus three",
		"Final Answer: I could not add those.",
	}}
	tool := &adder{}
	answer, err := chains.Run(context.Background(), newExecutor(model, reflectionlangchaingo.WrapTools(reflection.NewDriver(), []tools.Tool{tool})), question)
	require.NoError(t, err)
	assert.Equal(t, "I could not add those.", answer)
	prompts := model.sent()
	require.Len(t, prompts, 2)
	assert.Contains(t, prompts[1], "Observation: "+cannotRead)
}

// TestExecutorExhaustion checks that a tool still failing after the sixth
// call is an observation too, not an error that ends the agent.
func TestExecutorExhaustion(t *testing.T) {
	model := &fakeModel{script: []string{
		"Action: adder\nAction Input: two plus three",
		"Final Answer: The adder is broken.",
	}}
	tool := &adder{}
	driver := retrying(reflectiontest.NewReflector(transient).RepeatLast())
	answer, err := chains.Run(context.Background(), newExecutor(model, reflectionlangchaingo.WrapTools(driver, []tools.Tool{tool})), question)
	require.NoError(t, err)
	assert.Equal(t, "The adder is broken.", answer)
	assert.Len(t, tool.ran(), reflection.MaxRecoveryAttempts+1)
	assert.Contains(t, model.sent()[1], "Observation: "+cannotRead)
}

// TestExecutorWithoutWrapperAborts is the problem the wrapper solves: the
// same tool, unwrapped, ends the whole run at its first error.
func TestExecutorWithoutWrapperAborts(t *testing.T) {
	model := &fakeModel{script: []string{
		"Action: adder\nAction Input: two plus three",
		"Final Answer: never reached",
	}}
	_, err := chains.Run(context.Background(), newExecutor(model, []tools.Tool{&adder{}}), question)
	require.EqualError(t, err, cannotRead)
	assert.Len(t, model.sent(), 1, "the model never saw the failure")
}

// TestExecutorCancel cancels the run while a wrapped tool runs: that, and
// only that, ends the agent with an error.
func TestExecutorCancel(t *testing.T) {
	model := &fakeModel{script: []string{"Action: waiter\nAction Input: go"}}
	started := make(chan struct{})
	driver := retrying(reflectiontest.NewReflector(transient).RepeatLast())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err := chains.Run(ctx, newExecutor(model, reflectionlangchaingo.WrapTools(driver, []tools.Tool{waiter{started: started}})), question)
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, model.sent(), 1)
}
