#!/usr/bin/env bash
# Install mermaid's JavaScript (the npm package `mermaid`, pinned in
# docs/mermaid/package-lock.json) into docs/mermaid/node_modules. The book's
# build copies it into the site, so diagrams draw with no network, and uses it
# to parse every diagram. The docs build runs this by itself when it is
# missing; run it by hand to install ahead (it needs node and npm).
set -euo pipefail
cd "$(dirname "$0")/../docs/mermaid"
npm ci --no-audit --no-fund --ignore-scripts
test -f node_modules/mermaid/dist/mermaid.min.js
