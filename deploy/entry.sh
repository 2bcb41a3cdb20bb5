#!/bin/sh
# The container's entry: `fleetsync <command>` with what the image needs, whatever `--env-file`
# or `-e` say (docker lets them override the Dockerfile's ENV, so an env file written for a
# host install, with FLEETSYNC_HOST=127.0.0.1 or FLEETSYNC_DB=data/fleet.duckdb, would silently
# leave the server unreachable or the database off the volume): the database on the volume, the
# server on every interface at the port the image exposes, the env file the whole configuration.
export FLEETSYNC_DB=/data/fleet.duckdb FLEETSYNC_HOST=0.0.0.0 FLEETSYNC_PORT=8080 FLEETSYNC_ENV_FILE=/dev/null
# A sync gets glibc's settings of the sync unit (deploy/systemd/fleetsync-sync.service: one arena,
# fixed mmap and trim thresholds, a lower peak RSS); glibc reads them only when a process starts.
# `serve` keeps glibc's defaults, as its unit does (not measured for serving).
if [ "$1" = sync ]; then
  export MALLOC_ARENA_MAX=1
  export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072
fi
# exec: node stays PID 1 and gets docker stop's SIGTERM itself
exec node bin/fleetsync.js "$@"
