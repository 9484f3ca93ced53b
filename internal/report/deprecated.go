package report

import (
	"strings"

	"github.com/benchgate/benchgate/internal/config"
)

// DeprecatedText words the deprecated inputs on one line, for stderr: ""
// for none.
func DeprecatedText(ds []config.DeprecatedInput) string {
	if len(ds) == 0 {
		return ""
	}
	return Plain(deprecatedSpans(ds))
}

// deprecatedSpans says which old inputs were read and what replaces each.
func deprecatedSpans(ds []config.DeprecatedInput) []Span {
	word := "input"
	if len(ds) > 1 {
		word = "inputs"
	}
	spans := []Span{txt("the workflow sets old " + word + " that the next release will not read: ")}
	for i, d := range ds {
		if i > 0 {
			spans = append(spans, txt("; "))
		}
		spans = append(spans, codeText(d.Input), txt(" → "))
		if strings.HasPrefix(d.Use, "args:") || strings.HasPrefix(d.Use, "history:") || strings.HasPrefix(d.Use, "allow-privileged-events:") {
			// The workflow's values: inert, as names are.
			spans = append(spans, nameSpan(d.Use))
		} else {
			spans = append(spans, txt(d.Use))
		}
	}
	return append(spans, txt(" (docs/action.md#inputs)"))
}

// deprecatedAlert is the job summary's line about deprecated inputs.
func deprecatedAlert(ds []config.DeprecatedInput) []Block {
	if len(ds) == 0 {
		return nil
	}
	return []Block{Paragraph{Alert: true, Spans: append([]Span{mark(markWarn, Warn), txt(" "), strong("Deprecated inputs"), txt(": ")}, deprecatedSpans(ds)...)}}
}
