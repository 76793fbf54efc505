#!/bin/sh
# Starts the service named by SERVICE (gateway, catalog, scheduler, executor, monitoring, webhook-dispatcher).
set -eu
main="/app/apps/${SERVICE:?SERVICE must name the service to run}/dist/main.js"
if [ ! -f "$main" ]; then
  echo "start: this image has no service \"$SERVICE\"" >&2
  exit 64
fi
exec node "$main"
