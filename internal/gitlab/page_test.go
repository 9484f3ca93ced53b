package gitlab

import (
	"net/http"
	"testing"
)

// The next page comes from x-next-page, else from the page parameter of
// the Link header's rel="next" (whose URL is never requested itself).
func TestNextPage(t *testing.T) {
	for _, tc := range []struct {
		h    http.Header
		want int
	}{
		{http.Header{"X-Next-Page": {"3"}}, 3},
		{http.Header{"X-Next-Page": {""}, "Link": {`<https://x/api/v4/n?page=9>; rel="next"`}}, 0},
		{http.Header{"Link": {`<https://gitlab.example/api/v4/projects/1/merge_requests/2/notes?page=2&per_page=100>; rel="next", <https://gitlab.example/api/v4/projects/1/merge_requests/2/notes?page=5&per_page=100>; rel="last"`}}, 2},
		{http.Header{"Link": {`<https://x/?page=4>; rel="last"`}}, 0},
		{http.Header{}, 0},
	} {
		if got := nextPage(tc.h); got != tc.want {
			t.Errorf("nextPage(%v) = %d, want %d", tc.h, got, tc.want)
		}
	}
}
