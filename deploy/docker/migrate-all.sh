#!/bin/sh
# Applies the migrations of every service in the image that has tables (the executor has none), one after
# another, and stops at the first failure. The compose `migrate` step and the Kubernetes Job run this.
set -eu
for migrate in /app/apps/*/dist/migrate.js; do
  [ -f "$migrate" ] || continue
  echo "migrate: $migrate"
  node "$migrate"
done
