package githubtest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The files of branches, as the contents API and the git data API serve
// them (below the prefix):
//
//	GET  /repos/{owner}/{repo}/contents/{path}?ref=BRANCH  {"type":"file","sha":BLOB,"content":base64,"encoding":"base64"};
//	     over 1 MB the content is left out ("encoding":"none"), as on GitHub
//	PUT  /repos/{owner}/{repo}/contents/{path}             {"message","content","sha","branch"} -> 201 created, 200 updated;
//	     409 when sha is not the file's blob SHA, 422 when the file exists and no sha is given
//	GET  /repos/{owner}/{repo}/git/ref/heads/{branch}       the branch's commit, or 404
//	POST /repos/{owner}/{repo}/git/refs                     {"ref","sha"} -> 201; 422 "Reference already exists"
//	POST /repos/{owner}/{repo}/git/trees                    {"base_tree","tree":[{"path","mode","type","content"|"sha"}]} -> 201
//	POST /repos/{owner}/{repo}/git/commits                  {"message","tree","parents"} -> 201
//	POST /repos/{owner}/{repo}/git/blobs                    {"content","encoding"} -> 201 {"sha"}
//	GET  /repos/{owner}/{repo}/git/blobs/{sha}              {"content":base64,"encoding":"base64"}
//	GET  /repos/{owner}/{repo}/git/commits/{sha}            {"sha","tree":{"sha"},"parents":[{"sha"}],"message"}
//	PATCH /repos/{owner}/{repo}/git/refs/heads/{branch}     {"sha","force"} -> 200; 422 "Update is not a fast forward"
//	     when force is false and the branch's commit is not an ancestor of sha,
//	     422 "Reference does not exist" for a missing branch
//
// The contents API's ref may be a branch or a commit SHA.
//
// Blob SHAs are git's (sha1 of "blob N\0content"). Every write through
// PUT is one commit on the branch.

// maxContents is the largest file the contents API returns with its
// content.
const maxContents = 1 << 20

type gitRepo struct {
	blobs   map[string][]byte
	trees   map[string]map[string]string // tree SHA -> path -> blob SHA
	commits map[string]gitCommit
	refs    map[string]string // branch -> commit SHA
}

type gitCommit struct {
	Tree    string
	Parents []string
	Message string
}

func (f *Fake) gitRepo(owner, repo string) *gitRepo {
	if f.repos == nil {
		f.repos = map[string]*gitRepo{}
	}
	k := owner + "/" + repo
	if f.repos[k] == nil {
		f.repos[k] = &gitRepo{blobs: map[string][]byte{}, trees: map[string]map[string]string{}, commits: map[string]gitCommit{}, refs: map[string]string{}}
	}
	return f.repos[k]
}

func hashOf(kind string, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (g *gitRepo) blob(data []byte) string {
	sha := hashOf("blob", data)
	g.blobs[sha] = slices.Clone(data)
	return sha
}

func (g *gitRepo) tree(entries map[string]string) string {
	var b strings.Builder
	for _, p := range slices.Sorted(mapKeys(entries)) {
		fmt.Fprintf(&b, "%s %s\n", p, entries[p])
	}
	sha := hashOf("tree", []byte(b.String()))
	g.trees[sha] = entries
	return sha
}

func (g *gitRepo) commit(c gitCommit) string {
	data, _ := json.Marshal(c)
	sha := hashOf("commit", data)
	g.commits[sha] = c
	return sha
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// File returns the content of path on branch of owner/repo.
func (f *Fake) File(owner, repo, branch, path string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gitRepo(owner, repo)
	c, ok := g.refs[branch]
	if !ok {
		return nil, false
	}
	b, ok := g.trees[g.commits[c].Tree][path]
	if !ok {
		return nil, false
	}
	return slices.Clone(g.blobs[b]), true
}

// Commits returns the messages of branch's first-parent history, newest
// first; nil when the branch does not exist.
func (f *Fake) Commits(owner, repo, branch string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gitRepo(owner, repo)
	var out []string
	for sha, ok := g.refs[branch]; ok; {
		c := g.commits[sha]
		out = append(out, c.Message)
		if len(c.Parents) == 0 {
			break
		}
		sha = c.Parents[0]
	}
	return out
}

// SetFile commits content as path on branch (creating the branch as a root
// commit), as a push would.
func (f *Fake) SetFile(owner, repo, branch, path string, content []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gitRepo(owner, repo).write(branch, path, content, "set "+path)
}

// write commits content as path on branch.
func (g *gitRepo) write(branch, path string, content []byte, message string) string {
	entries := map[string]string{}
	var parents []string
	if head, ok := g.refs[branch]; ok {
		for p, b := range g.trees[g.commits[head].Tree] {
			entries[p] = b
		}
		parents = []string{head}
	}
	blob := g.blob(content)
	entries[path] = blob
	g.refs[branch] = g.commit(gitCommit{Tree: g.tree(entries), Parents: parents, Message: message})
	return blob
}

var notFound = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`

// gitRoute answers the contents and git data routes; false for another
// route.
func (f *Fake) gitRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte) bool {
	if len(parts) < 5 || parts[0] != "repos" || parts[1] == "" || parts[2] == "" {
		return false
	}
	g := f.gitRepo(parts[1], parts[2])
	switch {
	case parts[3] == "contents":
		path := strings.Join(parts[4:], "/")
		switch r.Method {
		case http.MethodGet:
			f.getContents(w, r, g, path)
		case http.MethodPut:
			f.putContents(w, g, path, body)
		default:
			writeJSON(w, http.StatusNotFound, notFound)
		}
	case parts[3] == "git" && len(parts) >= 7 && parts[4] == "ref" && parts[5] == "heads" && r.Method == http.MethodGet:
		branch := strings.Join(parts[6:], "/")
		sha, ok := g.refs[branch]
		if !ok {
			writeJSON(w, http.StatusNotFound, notFound)
			return true
		}
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ref":"refs/heads/%s","object":{"sha":"%s","type":"commit"}}`, jsonEscape(branch), sha))
	case parts[3] == "git" && len(parts) == 5 && r.Method == http.MethodPost && !f.readOnly:
		f.gitCreate(w, g, parts[4], body)
	case parts[3] == "git" && len(parts) == 5 && r.Method == http.MethodPost:
		writeJSON(w, http.StatusForbidden, BodyForbidden)
	case parts[3] == "git" && len(parts) == 6 && parts[4] == "commits" && r.Method == http.MethodGet:
		c, ok := g.commits[parts[5]]
		if !ok {
			writeJSON(w, http.StatusNotFound, notFound)
			return true
		}
		var ps []string
		for _, p := range c.Parents {
			ps = append(ps, fmt.Sprintf(`{"sha":"%s"}`, p))
		}
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"sha":"%s","tree":{"sha":"%s"},"parents":[%s],"message":"%s"}`, parts[5], c.Tree, strings.Join(ps, ","), jsonEscape(c.Message)))
	case parts[3] == "git" && len(parts) >= 7 && parts[4] == "refs" && parts[5] == "heads" && r.Method == http.MethodPatch:
		if f.readOnly {
			writeJSON(w, http.StatusForbidden, BodyForbidden)
			return true
		}
		f.updateRef(w, g, strings.Join(parts[6:], "/"), body)
	case parts[3] == "git" && len(parts) == 6 && parts[4] == "blobs" && r.Method == http.MethodGet:
		data, ok := g.blobs[parts[5]]
		if !ok {
			writeJSON(w, http.StatusNotFound, notFound)
			return true
		}
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"sha":"%s","size":%d,"content":"%s","encoding":"base64"}`, parts[5], len(data), wrapped(data)))
	default:
		return false
	}
	return true
}

// wrapped is base64 in lines of 60 characters, as GitHub sends it (JSON
// escaped).
func wrapped(data []byte) string {
	s := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60] + `\n`)
		s = s[60:]
	}
	b.WriteString(s)
	return b.String()
}

// updateRef answers PATCH git/refs/heads/{branch}: a fast-forward unless
// forced.
func (f *Fake) updateRef(w http.ResponseWriter, g *gitRepo, branch string, body []byte) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	bad := func(msg string) {
		writeJSON(w, http.StatusUnprocessableEntity, fmt.Sprintf(`{"message":"%s","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`, jsonEscape(msg)))
	}
	if json.Unmarshal(body, &in) != nil {
		bad("Problems parsing JSON")
		return
	}
	cur, ok := g.refs[branch]
	switch {
	case !ok:
		bad("Reference does not exist")
		return
	case g.commits[in.SHA].Tree == "":
		bad("Object does not exist")
		return
	case !in.Force && !g.ancestor(cur, in.SHA):
		bad("Update is not a fast forward")
		return
	}
	g.refs[branch] = in.SHA
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ref":"refs/heads/%s","object":{"sha":"%s","type":"commit"}}`, jsonEscape(branch), in.SHA))
}

// ancestor reports whether commit a is c or one of c's ancestors.
func (g *gitRepo) ancestor(a, c string) bool {
	seen := map[string]bool{}
	todo := []string{c}
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if x == a {
			return true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		todo = append(todo, g.commits[x].Parents...)
	}
	return false
}

func (f *Fake) getContents(w http.ResponseWriter, r *http.Request, g *gitRepo, path string) {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	head, ok := g.refs[ref]
	if _, commit := g.commits[ref]; !ok && commit {
		head, ok = ref, true
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"message":"No commit found for the ref %s","documentation_url":"https://docs.github.com/rest/repos/contents#get-repository-content","status":"404"}`, jsonEscape(ref)))
		return
	}
	blob, ok := g.trees[g.commits[head].Tree][path]
	if !ok {
		writeJSON(w, http.StatusNotFound, notFound)
		return
	}
	data := g.blobs[blob]
	content, encoding := wrapped(data), "base64"
	if len(data) > maxContents {
		content, encoding = "", "none"
	}
	name := path[strings.LastIndex(path, "/")+1:]
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"type":"file","name":"%s","path":"%s","sha":"%s","size":%d,"content":"%s","encoding":"%s"}`,
		jsonEscape(name), jsonEscape(path), blob, len(data), content, encoding))
}

func (f *Fake) putContents(w http.ResponseWriter, g *gitRepo, path string, body []byte) {
	if f.readOnly {
		writeJSON(w, http.StatusForbidden, BodyForbidden)
		return
	}
	var in struct {
		Message *string `json:"message"`
		Content *string `json:"content"`
		SHA     string  `json:"sha"`
		Branch  string  `json:"branch"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Message == nil || in.Content == nil {
		writeJSON(w, http.StatusUnprocessableEntity, `{"message":"Invalid request.\n\n\"message\" and \"content\" are required.","status":"422"}`)
		return
	}
	data, err := base64.StdEncoding.DecodeString(*in.Content)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, `{"message":"content is not valid Base64","status":"422"}`)
		return
	}
	branch := in.Branch
	if branch == "" {
		branch = "main"
	}
	head, ok := g.refs[branch]
	if !ok {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"message":"Branch %s not found","status":"404"}`, jsonEscape(branch)))
		return
	}
	old, exists := g.trees[g.commits[head].Tree][path]
	switch {
	case exists && in.SHA == "":
		writeJSON(w, http.StatusUnprocessableEntity, `{"message":"Invalid request.\n\n\"sha\" wasn't supplied.","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents","status":"422"}`)
		return
	case in.SHA != "" && in.SHA != old:
		writeJSON(w, http.StatusConflict, fmt.Sprintf(`{"message":"%s does not match %s","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents","status":"409"}`, jsonEscape(path), jsonEscape(in.SHA)))
		return
	}
	blob := g.write(branch, path, data, *in.Message)
	status := http.StatusOK
	if !exists {
		status = http.StatusCreated
	}
	writeJSON(w, status, fmt.Sprintf(`{"content":{"type":"file","path":"%s","sha":"%s","size":%d},"commit":{"sha":"%s","message":"%s"}}`,
		jsonEscape(path), blob, len(data), g.refs[branch], jsonEscape(*in.Message)))
}

// gitCreate answers POST git/trees, git/commits, git/blobs and git/refs.
func (f *Fake) gitCreate(w http.ResponseWriter, g *gitRepo, what string, body []byte) {
	bad := func(msg string) {
		writeJSON(w, http.StatusUnprocessableEntity, fmt.Sprintf(`{"message":"%s","status":"422"}`, jsonEscape(msg)))
	}
	switch what {
	case "trees":
		var in struct {
			BaseTree string `json:"base_tree"`
			Tree     []struct {
				Path, Mode, Type string
				Content          *string
				SHA              *string
			} `json:"tree"`
		}
		if json.Unmarshal(body, &in) != nil {
			bad("Problems parsing JSON")
			return
		}
		entries := map[string]string{}
		if in.BaseTree != "" {
			base, ok := g.trees[in.BaseTree]
			if !ok {
				bad("base_tree is not a valid tree oid")
				return
			}
			for p, b := range base {
				entries[p] = b
			}
		}
		for _, e := range in.Tree {
			switch {
			case e.Type != "blob" || e.Path == "":
				bad("tree.type must be blob here")
				return
			case e.Content != nil:
				entries[e.Path] = g.blob([]byte(*e.Content))
			case e.SHA != nil:
				if _, ok := g.blobs[*e.SHA]; !ok {
					bad("tree.sha " + *e.SHA + " is not a valid blob")
					return
				}
				entries[e.Path] = *e.SHA
			default:
				delete(entries, e.Path)
			}
		}
		writeJSON(w, http.StatusCreated, fmt.Sprintf(`{"sha":"%s"}`, g.tree(entries)))
	case "commits":
		var in struct {
			Message string   `json:"message"`
			Tree    string   `json:"tree"`
			Parents []string `json:"parents"`
		}
		if json.Unmarshal(body, &in) != nil || in.Message == "" {
			bad("Invalid request.\n\n\"message\" and \"tree\" are required.")
			return
		}
		if _, ok := g.trees[in.Tree]; !ok {
			bad("Tree SHA does not exist")
			return
		}
		for _, p := range in.Parents {
			if _, ok := g.commits[p]; !ok {
				bad("Parent SHA does not exist or is not a commit object")
				return
			}
		}
		sha := g.commit(gitCommit{Tree: in.Tree, Parents: in.Parents, Message: in.Message})
		writeJSON(w, http.StatusCreated, fmt.Sprintf(`{"sha":"%s","tree":{"sha":"%s"},"message":"%s"}`, sha, in.Tree, jsonEscape(in.Message)))
	case "blobs":
		var in struct{ Content, Encoding string }
		if json.Unmarshal(body, &in) != nil {
			bad("Problems parsing JSON")
			return
		}
		data := []byte(in.Content)
		if in.Encoding == "base64" {
			var err error
			if data, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
				bad("content is not valid Base64")
				return
			}
		} else if in.Encoding != "" && in.Encoding != "utf-8" {
			bad("encoding must be utf-8 or base64")
			return
		}
		writeJSON(w, http.StatusCreated, fmt.Sprintf(`{"sha":"%s","url":"blobs"}`, g.blob(data)))
	case "refs":
		var in struct{ Ref, SHA string }
		if json.Unmarshal(body, &in) != nil || !strings.HasPrefix(in.Ref, "refs/heads/") {
			bad("Reference name must start with 'refs/heads/' here")
			return
		}
		branch := strings.TrimPrefix(in.Ref, "refs/heads/")
		if _, ok := g.commits[in.SHA]; !ok {
			bad("Object does not exist")
			return
		}
		if _, ok := g.refs[branch]; ok {
			bad("Reference already exists")
			return
		}
		g.refs[branch] = in.SHA
		writeJSON(w, http.StatusCreated, fmt.Sprintf(`{"ref":"%s","object":{"sha":"%s","type":"commit"}}`, jsonEscape(in.Ref), in.SHA))
	default:
		writeJSON(w, http.StatusNotFound, notFound)
	}
}
