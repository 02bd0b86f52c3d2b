package llm

import (
	"strconv"
	"strings"

	"github.com/loopctl-go/reflection"
	"github.com/loopctl-go/reflection/internal/textcut"
)

// catalogHeader opens the tool catalog in the user message.
const catalogHeader = "Other tools you may name as alternative_tool in a tool_change:"

// renderCatalog lists the tools other than the failing one, in the order
// given, one "- name: description" entry each, within limit bytes (the
// header included, the marker not). An entry that does not fit ends the
// list, and a marker says how many were left out. Each description is cut at
// a quarter of limit, so one long description cannot crowd out the rest;
// line breaks in names and descriptions are indented like the template's.
func renderCatalog(tools []reflection.ToolSchema, failing string, limit int) string {
	var b strings.Builder
	b.WriteString(catalogHeader)
	listed, others := 0, 0
	for _, t := range tools {
		if t.Name == failing {
			continue
		}
		others++
		if listed < others-1 {
			continue // an earlier entry did not fit
		}
		entry := "\n- " + indentLines(t.Name)
		if t.Description != "" {
			entry += ": " + indentLines(textcut.Cut(t.Description, max(limit/4, 1)))
		}
		if b.Len()+len(entry) > limit {
			continue
		}
		b.WriteString(entry)
		listed++
	}
	switch {
	case others == 0:
		b.WriteString(" none.")
	case listed < others:
		b.WriteString("\n…[" + strconv.Itoa(others-listed) + " more tools not shown]")
	}
	return b.String()
}

// inCatalog reports whether name is one of tools.
func inCatalog(tools []reflection.ToolSchema, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
