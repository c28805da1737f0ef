#!/bin/sh
# Render a simulation's HTML report in headless Chromium and save a screenshot, to look at.
#
#   scripts/check_html_report.sh [MANIFEST...]
#
# Without manifests it simulates a generated 12-node, 40-pod cluster
# (python -m framework generate). It writes report.html and report.png into
# $OUT (default /tmp/ksf-html-report) and prints their paths. The report must
# render with the network off: Chromium gets no network (a proxy that goes
# nowhere), so anything fetched from outside would show as missing.
#
# Needs Chromium (Debian: apt-get install chromium); not part of the test
# suite, which checks the report's structure with html.parser instead.
# Environment: PYTHON (default .venv/bin/python), CHROMIUM (default chromium),
# WIDTH and HEIGHT of the window (default 1280 x 1600), OUT.
set -eu

python=${PYTHON:-.venv/bin/python}
chromium=${CHROMIUM:-chromium}
out=${OUT:-/tmp/ksf-html-report}
mkdir -p "$out"

if ! command -v "$chromium" >/dev/null 2>&1; then
    echo "check_html_report: $chromium not found (Debian: apt-get install chromium)" >&2
    exit 1
fi

if [ "$#" -eq 0 ]; then
    "$python" -m framework generate --nodes 12 --pods 40 --seed 0 > "$out/cluster.json"
    set -- "$out/cluster.json"
fi
"$python" -m framework simulate --no-progress --output html --out "$out/report.html" "$@"

# --no-sandbox: containers often run as root, where Chromium's sandbox refuses to start.
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --proxy-server=127.0.0.1:9 --window-size="${WIDTH:-1280},${HEIGHT:-1600}" \
    --screenshot="$out/report.png" "file://$(cd "$out" && pwd)/report.html" 2>/dev/null
echo "$out/report.html"
echo "$out/report.png"
