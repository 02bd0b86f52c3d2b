module github.com/loopctl-go/reflection/examples/openai

go 1.26.0

replace (
	github.com/loopctl-go/reflection => ../..
	github.com/loopctl-go/reflection/contrib/openai => ../../contrib/openai
)

require (
	github.com/loopctl-go/reflection v0.0.0-00010101000000-000000000000
	github.com/loopctl-go/reflection/contrib/openai v0.0.0-00010101000000-000000000000
	github.com/openai/openai-go/v3 v3.98.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)
