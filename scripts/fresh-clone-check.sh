#!/usr/bin/env bash
# Clones the committed repository into an empty temporary folder with nothing beside it, installs it
# from the lockfile as a newcomer would, and runs the compatibility and documentation tests there: what
# they need must be in the repository itself. Runs without TEST_DATABASE_URL / TEST_REDIS_URL, like a
# laptop. Usage: scripts/fresh-clone-check.sh [test paths...] (default: test/compat test/docs).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
parent="$(mktemp -d "${TMPDIR:-/tmp}/parley-fresh.XXXXXX")"
trap 'rm -rf "$parent"' EXIT
git clone --quiet --no-hardlinks "$repo" "$parent/parley"
cd "$parent/parley"
echo "fresh clone of $(git rev-parse --short HEAD) in $parent/parley (the folder holds nothing else: $(ls -A "$parent" | tr '\n' ' '))"
npm ci --no-audit --no-fund --loglevel=error
unset TEST_DATABASE_URL TEST_REDIS_URL
if [ "$#" -eq 0 ]; then set -- test/compat test/docs; fi
npx vitest run "$@"
