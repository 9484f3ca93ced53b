package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	gh "github.com/google/go-github/v60/github"
)

// Permission is a user's access to a repository, as GET
// /repos/{owner}/{repo}/collaborators/{username}/permission states it.
type Permission struct {
	// Level is GitHub's base role: "admin", "write", "read" or "none"
	// (the maintain role counts as write, triage as read); "none" also
	// for a user who is not a collaborator (GitHub answers 404).
	Level string
	// Role is the role's name ("admin", "maintain", "write", "triage",
	// "read", or a custom role's); "" when GitHub gives none.
	Role string
}

// CanWrite reports write access: the admin, maintain and write roles, and
// custom roles based on them.
func (p Permission) CanWrite() bool { return p.Level == "admin" || p.Level == "write" }

// String is "triage (read)", or the level alone.
func (p Permission) String() string {
	if p.Role == "" || p.Role == p.Level {
		return p.Level
	}
	return p.Role + " (" + p.Level + ")"
}

// loginPattern matches a GitHub login or an app's "NAME[bot]".
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}(?:\[bot\])?$`)

// Permission reads login's access to owner/repo. A user who is not a
// collaborator (404) has Level "none"; any other failure is an error.
func (c *Commenter) Permission(ctx context.Context, owner, repo, login string) (Permission, error) {
	if err := checkTarget(owner, repo, 1); err != nil {
		return Permission{}, err
	}
	if !loginPattern.MatchString(login) {
		return Permission{}, fmt.Errorf("login %q: not a GitHub login", login)
	}
	var out struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	op := fmt.Sprintf("read the permission of %s on %s/%s", login, owner, repo)
	err := c.do(ctx, op, func(int) (*gh.Response, error) {
		cl := c.client()
		req, err := cl.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", owner, repo, url.PathEscape(login)), nil)
		if err != nil {
			return nil, permanent{err}
		}
		return cl.Do(ctx, req, &out)
	})
	if isStatus(err, http.StatusNotFound) {
		return Permission{Level: "none"}, nil
	}
	if err != nil {
		return Permission{}, err
	}
	if out.Permission == "" {
		return Permission{}, fmt.Errorf("%s: GitHub's answer names no permission", op)
	}
	return Permission{Level: out.Permission, Role: out.RoleName}, nil
}
