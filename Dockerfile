# benchgate as a Docker container action (see action.yml).
#
# The runner builds this file on every job, with this directory as the build
# context, and runs the result as root with --workdir /github/workspace and
# HOME=/github/home (the workspace belongs to another user; benchgate handles
# git's "dubious ownership" itself). So: no USER, no WORKDIR in the final
# stage, an exec-form ENTRYPOINT with an absolute path.

# Build stage: a static binary.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Dependencies first, in their own layer: it is rebuilt only when go.mod or
# go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The release sets the version (its tag); without it the binary says what
# its build info knows, and the action names the ref the workflow uses
# (GITHUB_ACTION_REF): the runner builds this file from a download of the
# action's repository, which has no .git.
ARG BENCHGATE_VERSION=
# The build cache is dropped in the same step: a changed source invalidates
# this layer anyway, and it would only make every old build stage bigger.
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/benchgate/benchgate/internal/cli.Version=${BENCHGATE_VERSION}" \
      -o /out/benchgate . \
 && go clean -cache

# Run stage: benchgate measures the user's module with go test, so it needs Go
# and git at run time.
FROM golang:1.26-bookworm
# GOTOOLCHAIN=auto: the official image says local; a module whose go.mod wants
# a newer Go then downloads that toolchain instead of failing.
# -buildvcs=false: the workspace belongs to another user, so VCS stamping of
# any binary built there would fail.
# GOMODCACHE and GOCACHE under HOME (/github/home, mounted from
# ${{ runner.temp }}/_github_home on the host), so that workflows can keep them
# with actions/cache:
#   ${{ runner.temp }}/_github_home/go/pkg/mod
#   ${{ runner.temp }}/_github_home/.cache/go-build
ENV GOTOOLCHAIN=auto \
    GOFLAGS=-buildvcs=false \
    GOMODCACHE=/github/home/go/pkg/mod \
    GOCACHE=/github/home/.cache/go-build
# Valgrind (Debian's package) for the instruction lane (--measure
# instructions): it runs each benchmark under callgrind and counts the
# instructions of its loop.
RUN apt-get update \
 && apt-get install -y --no-install-recommends valgrind \
 && rm -rf /var/lib/apt/lists/*
# The pull request's code (go list, go test -c, the test binaries) runs as
# this unprivileged user, never as root beside benchgate: it cannot read
# benchgate's environment or memory, the runner's file-command files or the
# Docker socket. Its home and Go caches are under
# /github/home/.cache/benchgate-sandbox (see docs/action.md, "Caching").
RUN groupadd --system --gid 65532 benchgate-sandbox \
 && useradd --system --uid 65532 --gid 65532 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin benchgate-sandbox
COPY --from=build /out/benchgate /usr/local/bin/benchgate
ENTRYPOINT ["/usr/local/bin/benchgate", "action"]
