#!/bin/sh
# Starts the service named by SERVICE (gateway, catalog, scheduler, executor, monitoring, webhook-dispatcher).
set -eu
main="/app/apps/${SERVICE:?SERVICE must name the service to run}/dist/main.js"
if [ ! -f "$main" ]; then
  echo "start: this image has no service \"$SERVICE\"" >&2
  exit 64
fi
concurrency="${EXECUTOR_CONCURRENCY:-8}"
case "$concurrency" in
  # Not a number: the executor's own config check says so, with its message.
  '' | *[!0-9]*) concurrency=8 ;;
esac
if [ "$SERVICE" = executor ] && [ -z "${UV_THREADPOOL_SIZE:-}" ]; then
  # One libuv thread per run slot for its DuckDB statements, and four for files and DNS (docs/operations.md).
  UV_THREADPOOL_SIZE=$((concurrency + 4))
  export UV_THREADPOOL_SIZE
fi
exec node "$main"
