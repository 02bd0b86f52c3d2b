package reflectionopenai

import (
	"bytes"
	"encoding/json"
)

// marshalReadable marshals v as json.Marshal does, but leaves <, > and &
// as they are rather than \u003c and the like: the text goes to a model,
// which should read what the host wrote.
func marshalReadable(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
