package reflectiontemporal

import "go.temporal.io/sdk/workflow"

// The versions of what Run writes to history, recorded with
// workflow.GetVersion so that a workflow replays with the code path it ran
// with.
const (
	// changeID names the order in which Run performs the machine's steps;
	// every workflow that calls Run records it once.
	changeID = "github.com/loopctl-go/reflection/contrib/temporal"

	// stepsV1 is the first release: activities numbered by Temporal, the
	// Reflector activity after every failure, a timer for every wait, and
	// nothing that checks the decisions on replay.
	stepsV1 = workflow.Version(1)

	// stepsV2 names every activity after the call, the attempt and a digest
	// of the decisions so far (a replay that decides otherwise fails),
	// folds a wait into the retry of the next tool activity instead of a
	// timer, records a digest where no activity follows (a question, the
	// end of a call that needed recovery), and may run the Reflector in
	// workflow code (WithWorkflowReflector).
	stepsV2 = workflow.Version(2)

	// inWorkflowChangeID records, once per workflow and only when a call
	// needs an analysis, that calls given WithWorkflowReflector run their
	// Reflector in workflow code (version 1).
	inWorkflowChangeID = changeID + "/workflow-reflector"
	inWorkflowV1       = workflow.Version(1)
)
