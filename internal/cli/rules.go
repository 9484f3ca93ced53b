package cli

import (
	"fmt"
	"path/filepath"

	"github.com/benchgate/benchgate/internal/pipeline"
	"github.com/benchgate/benchgate/internal/policy"
)

// policyPath checks --policy: a path inside the module's directory.
func (a *app) policyPath() (string, error) {
	p := a.cfg.Policy
	if filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return "", fmt.Errorf("--policy %s: want a path inside the module's directory (run reads it from the base commit)", p)
	}
	return p, nil
}

// fileRules reads the policy file and --accept for compare and merge: the
// file from the file system, relative to the current directory (-C).
func (a *app) fileRules() (*pipeline.Rules, error) {
	var p *policy.Policy
	var data []byte
	if a.cfg.Policy != "none" {
		var err error
		p, data, err = pipeline.ReadPolicy("", a.resolve(a.cfg.Policy), a.cfg.Policy)
		if err != nil {
			return nil, err
		}
		if p == nil && a.cfg.Given["policy"] {
			return nil, fmt.Errorf("--policy %s: no such file", a.cfg.Policy)
		}
	}
	accepts, err := a.flagAccepts()
	if err != nil {
		return nil, err
	}
	return pipeline.FileRules(p, data, a.cfg.Policy, accepts), nil
}

// localAcceptance is what run accepts besides --accept: with
// --accept-trailers, the trailers of head, whose author nobody verified.
func localAcceptance(on bool, head string) pipeline.Acceptance {
	acc := pipeline.Acceptance{TrailersOf: head}
	if !on {
		acc.TrailersOff = policy.OffFlag
	}
	return acc
}

func (a *app) flagAccepts() ([]policy.Accept, error) {
	var out []policy.Accept
	for _, s := range a.cfg.Accepts {
		acc, err := policy.NewAccept(s, "", "--accept "+s)
		if err != nil {
			return nil, fmt.Errorf("--accept: %v", err)
		}
		out = append(out, acc)
	}
	return out, nil
}
