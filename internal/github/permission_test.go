package github

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/benchgate/benchgate/internal/github/githubtest"
)

// TestPermission reads a user's access from the collaborator permission
// API: maintain counts as write, triage as read, and a user who is not a
// collaborator (GitHub's 404) has none. A login that is not one is never
// sent.
func TestPermission(t *testing.T) {
	h := newHarness(t, githubtest.Config{}, Options{})
	for login, role := range map[string]string{"owner1": "admin", "maint": "maintain", "dev": "write", "helper": "triage", "reader": "read"} {
		h.srv.AddCollaborator("o", "r", login, role)
	}
	ctx := context.Background()
	for _, c := range []struct {
		login, level, role string
		write              bool
	}{
		{"owner1", "admin", "admin", true},
		{"MAINT", "write", "maintain", true}, // logins are case-insensitive
		{"dev", "write", "write", true},
		{"helper", "read", "triage", false},
		{"reader", "read", "read", false},
		{"stranger", "none", "", false},
	} {
		p, err := h.c.Permission(ctx, "o", "r", c.login)
		if err != nil || p.Level != c.level || p.Role != c.role || p.CanWrite() != c.write {
			t.Errorf("%s: %+v (write %v), %v; want %s/%s write %v", c.login, p, p.CanWrite(), err, c.level, c.role, c.write)
		}
	}
	if p, _ := h.c.Permission(ctx, "o", "r", "helper"); p.String() != "triage (read)" {
		t.Errorf("String %q", p.String())
	}
	n := len(h.calls())
	for _, bad := range []string{"../x", "a b", "", "x/y", "-x"} {
		if _, err := h.c.Permission(ctx, "o", "r", bad); err == nil {
			t.Errorf("login %q accepted", bad)
		}
	}
	if len(h.calls()) != n {
		t.Errorf("a bad login was sent: %q", h.calls()[n:])
	}
	// A failure that is not 404 is an error, not "none".
	h.srv.AddFault(githubtest.Fault{Path: "/repos/o/r/collaborators/*/permission", Status: 403, Body: githubtest.BodyForbidden})
	if _, err := h.c.Permission(ctx, "o", "r", "dev"); err == nil {
		t.Error("403: no error")
	}
}

// TestFakePermissionShape: the fake answers in GitHub's shape.
func TestFakePermissionShape(t *testing.T) {
	srv := githubtest.NewServer(githubtest.Config{})
	defer srv.Close()
	srv.AddCollaborator("o", "r", "helper", "triage")
	get := func(login string) (int, map[string]any) {
		resp, err := http.Get(srv.APIURL() + "/repos/o/r/collaborators/" + login + "/permission")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v\n%s", login, err, b)
		}
		return resp.StatusCode, v
	}
	code, v := get("helper")
	user, _ := v["user"].(map[string]any)
	if code != 200 || v["permission"] != "read" || v["role_name"] != "triage" || user["login"] != "helper" {
		t.Errorf("helper: %d %v", code, v)
	}
	if code, v := get("nobody"); code != 404 || !strings.Contains(v["message"].(string), "Not Found") {
		t.Errorf("nobody: %d %v", code, v)
	}
}
