"""Screenshots of the built book's diagrams, drawn offline in headless Chromium.

    .venv/bin/python scripts/book_screenshots.py [--html DIR] [--out DIR] [CHAPTER...]

Opens each chapter's page from disk (``file://``) in headless Chromium with no
network (a proxy that goes nowhere, so anything fetched from outside would be
missing), waits until the page says its diagrams are drawn, and saves one PNG
per diagram, cropped to the diagram with the text just above it:
``OUT/<chapter>-diagram-<n>.png``. Defaults: the book in docs/_build/html,
the chapters 00_why 02_queue 06_binding_cycle 09_preemption, OUT
/tmp/ksf-book-screenshots. Build the book first (README, "Reading the book").

Chromium is driven over its DevTools pipe (``--remote-debugging-pipe``: JSON
messages separated by NUL bytes on file descriptors 3 and 4), so nothing but
Chromium itself (Debian: ``apt-get install chromium``) is needed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CHAPTERS = ["00_why", "02_queue", "06_binding_cycle", "09_preemption"]
# How long a page may take to draw its diagrams before the script gives up.
DRAW_DEADLINE_SECONDS = 60.0
# Chromium's limit on a window's height is far above any chapter's.
MAX_PAGE_HEIGHT = 60000


class DevToolsPipe:
    """One headless Chromium, spoken to over --remote-debugging-pipe."""

    def __init__(self, chromium: str, width: int, height: int) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # in the child: its fd 3 reads, fd 4 writes
            # Through spare numbers first: a pipe end may already be 3 or 4.
            read_end, write_end = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "--proxy-server=127.0.0.1:9",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            preexec_fn=wire_fds,
            close_fds=False,  # Python's own descriptors are close-on-exec anyway
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._next_id = 0
        self._buffer = b""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]

    def call(self, method: str, session: str | None = None, **params: Any) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        result: dict[str, Any] = json.loads(raw)
        return result

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", self.session, expression=expression, returnByValue=True
        )
        return result["result"].get("value")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def shoot_chapter(
    browser: DevToolsPipe, page: Path, out: Path, name: str, width: int
) -> list[Path]:
    url = page.as_uri()
    browser.call("Page.navigate", browser.session, url=url)
    drawn = f"location.href === {json.dumps(url)} && document.documentElement.dataset.diagrams"
    deadline = time.monotonic() + DRAW_DEADLINE_SECONDS
    while browser.evaluate(drawn) != "drawn":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{page}: the diagrams were not drawn in {DRAW_DEADLINE_SECONDS}s")
        time.sleep(0.2)
    # A window as tall as the page, so nothing scrolls (a scrolled page came
    # out blank in headless Chromium), then one crop per diagram, with the
    # paragraph above it.
    height = browser.evaluate("document.documentElement.scrollHeight")
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        browser.session,
        width=width,
        height=min(height, MAX_PAGE_HEIGHT),
        deviceScaleFactor=1,
        mobile=False,
    )
    boxes = browser.evaluate(
        """[...document.querySelectorAll('.ksf-diagram')].map(d => {
             const r = d.getBoundingClientRect();
             const before = d.previousElementSibling || d;
             const top = before.getBoundingClientRect().top;
             return {x: Math.max(r.left - 16, 0), y: Math.max(top - 16, 0),
                     width: r.width + 32, height: r.bottom - top + 32};
           })"""
    )
    saved = []
    for index, box in enumerate(boxes, start=1):
        shot = browser.call(
            "Page.captureScreenshot", browser.session, format="png", clip={**box, "scale": 1}
        )
        path = out / f"{name}-diagram-{index}.png"
        path.write_bytes(base64.b64decode(shot["data"]))
        saved.append(path)
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", default=DEFAULT_CHAPTERS)
    parser.add_argument("--html", type=Path, default=ROOT / "docs" / "_build" / "html")
    parser.add_argument("--out", type=Path, default=Path("/tmp/ksf-book-screenshots"))
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--width", type=int, default=1400)
    args = parser.parse_args(argv)
    chromium = shutil.which(args.chromium)
    if chromium is None:
        print(f"{args.chromium} not found (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    pages = {name: args.html / "chapters" / name / "index.html" for name in args.chapters}
    missing = [str(page) for page in pages.values() if not page.is_file()]
    if missing:
        print(f"not built: {', '.join(missing)}; build the book first", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    browser = DevToolsPipe(chromium, args.width, 1200)
    try:
        browser.call("Page.enable", browser.session)
        for name, page in pages.items():
            for path in shoot_chapter(browser, page, args.out, name, args.width):
                print(path)
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
