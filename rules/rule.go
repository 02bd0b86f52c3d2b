package rules

// Rule is one line of a rule table: when its Condition holds for a failure,
// its Verdict is the answer. Build the parts with the constructors of this
// package, for example
//
//	rules.Rule{
//		Name: "payments-busy",
//		When: rules.All(rules.Status(409), rules.Contains("lock_timeout")),
//		Then: rules.Transient("the payment object is locked by another request"),
//	}
//
// A Rule is a value: tables of rules can be copied, filtered and appended to
// (Defaults returns a fresh slice each time).
type Rule struct {
	// Name identifies the rule. Analyze writes "rules: <Name>" into the
	// analysis' Context, so a log shows which rule answered. An empty Name
	// stands for "rule <position>".
	Name string

	// When decides whether the rule applies. New panics on the zero
	// Condition.
	When Condition

	// Then is the answer when the rule applies. New panics on the zero
	// Verdict.
	Then Verdict
}
