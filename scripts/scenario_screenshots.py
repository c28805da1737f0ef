"""The scenario screenshots of chapter 11, drawn again in headless Chromium.

    .venv/bin/python scripts/scenario_screenshots.py [--out DIR]

Writes ``scenario-report.png`` (``python -m framework scenario
examples/scenarios/batch-day.yaml --output html``) and
``scenario-compare.png`` (``compare`` of the same day from
``batch-spread.yaml`` and ``batch-packed.yaml``) into DIR, by default
``docs/_static``, where the chapter takes them from. Each page is opened from
disk with no network (a proxy that goes nowhere) and shot at 800 pixels wide,
the top of the page: its plots. Needs Chromium (Debian: ``apt-get install
chromium``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = "examples/scenarios"
# name → (the framework command writing the page, the window's height)
SHOTS = {
    "scenario-report.png": (["scenario", f"{EXAMPLES}/batch-day.yaml"], 760),
    "scenario-compare.png": (
        ["compare", f"{EXAMPLES}/batch-day.yaml", "--config", f"{EXAMPLES}/batch-spread.yaml",
         "--config", f"{EXAMPLES}/batch-packed.yaml"],
        780,
    ),
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "_static")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        print("error: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for name, (command, height) in SHOTS.items():
            page = Path(tmp) / f"{name}.html"
            subprocess.run(
                [sys.executable, "-m", "framework", *command, "--output", "html", "--out",
                 str(page)],
                check=True, cwd=ROOT,
            )  # fmt: skip
            subprocess.run(
                [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--proxy-server=127.0.0.1:9", f"--window-size=800,{height}",
                 f"--screenshot={args.out / name}", page.as_uri()],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
            print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
