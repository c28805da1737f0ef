"""The built book's diagrams draw offline: each page opened from disk in headless Chromium.

The book's HTML is built by Sphinx, which this suite does not run; CI builds
it and then runs this file with ``KSF_BOOK_HTML`` naming the build::

    KSF_BOOK_HTML=docs/_build/html .venv/bin/python -m pytest tests/test_book_diagrams.py

Without ``KSF_BOOK_HTML`` the tests are skipped; with it, a missing page or a
missing Chromium (Debian: ``apt-get install chromium``) is a failure. Chromium
runs with no network (a proxy that goes nowhere), so a diagram that needed a
script from outside the built site would stay text and fail here. Chromium's
``--virtual-time-budget`` lets the page's scripts run to completion without a
real-time wait.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Per chapter page: how many diagrams it has, and words each must show once drawn.
EXPECTED: dict[str, tuple[int, list[str]]] = {
    "00_why": (
        1,
        ["Scheduling queue", "Scheduling cycle: one pod at a time", "PostFilter", "Unreserve"],
    ),
    "02_queue": (1, ["activeQ", "backoffQ", "unschedulablePods (gated)", "in flight"]),
    "03_plugins": (1, ["Queue", "Scheduling cycle", "Framework and its plugins"]),
    "04_scheduling_cycle": (1, ["Queue", "Scheduler"]),
    "05_reserve_permit": (1, ["Scheduling loop", "Cache"]),
    "06_binding_cycle": (
        1,
        ["scheduling loop", "binding worker", "WaitOnPermit", "POST pods/NAME/binding"],
    ),
    "07_filtering": (1, ["NodeUnschedulable:", "node(s) were unschedulable"]),
    "08_scoring": (1, ["feasible nodes", "NormalizeScore"]),
    "09_preemption": (1, ["Filter: no node fits", "PostFilter plugins?"]),
    "10_coscheduling": (1, ["activeQ", "PreFilter"]),
}

# Chromium's render budget per page, in its virtual time: mermaid's script
# (5 MB) is parsed and every diagram laid out well within it.
VIRTUAL_TIME_BUDGET_MS = 20000


def _book() -> Path:
    where = os.environ.get("KSF_BOOK_HTML")
    if not where:
        pytest.skip("set KSF_BOOK_HTML to a built book (CI does, after sphinx-build)")
    return Path(where).resolve()


def _chromium() -> str:
    found = shutil.which(os.environ.get("CHROMIUM", "chromium"))
    if found is None:
        pytest.fail("KSF_BOOK_HTML is set but chromium is missing: apt-get install chromium")
    return found


def dump_dom(chromium: str, page: Path) -> str:
    """The page's DOM after its scripts ran, as headless Chromium serializes it."""
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--proxy-server=127.0.0.1:9",
            f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@cache
def _doms(book: Path, chromium: str) -> dict[str, str]:
    # Two at a time: one Chromium per core of this machine.
    pages = {name: book / "chapters" / name / "index.html" for name in EXPECTED}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(dump_dom, chromium, page) for name, page in pages.items()}
        return {name: future.result() for name, future in futures.items()}


def diagrams(dom: str) -> list[str]:
    """The contents of each ``<pre class="mermaid">`` on the page."""
    return re.findall(r'<pre class="mermaid"[^>]*>(.*?)</pre>', dom, re.S)


def visible_text(svg: str) -> str:
    """The text of a drawn diagram, tags removed and spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", svg)).split())


@pytest.mark.timeout(600)
@pytest.mark.parametrize("chapter", sorted(EXPECTED))
def test_each_diagram_is_drawn_as_svg_with_its_labels(chapter: str) -> None:
    book = _book()
    page = book / "chapters" / chapter / "index.html"
    assert page.is_file(), f"{page} is not built"
    dom = _doms(book, _chromium())[chapter]
    count, labels = EXPECTED[chapter]
    found = diagrams(dom)
    assert len(found) == count, f"{chapter}: {len(found)} diagrams on the page, expected {count}"
    for source in found:
        assert source.lstrip().startswith("<svg"), (
            f"{chapter}: a diagram stayed text: {source[:200]}"
        )
        text = visible_text(source)
        assert "Syntax error" not in text, f"{chapter}: mermaid drew an error: {text[:200]}"
    drawn = " ".join(visible_text(source) for source in found)
    missing = [label for label in labels if label not in drawn]
    assert not missing, f"{chapter}: labels missing from the drawn diagram: {missing}"


def test_the_page_loads_mermaid_from_the_site_itself() -> None:
    book = _book()
    page = (book / "chapters" / "00_why" / "index.html").read_text(encoding="utf-8")
    # Sphinx may add ?v=<checksum> (when the file was already in the output).
    scripts = [
        src.split("?")[0] for src in re.findall(r'<script[^>]*src="([^"]*mermaid[^"]*)"', page)
    ]
    assert scripts == ["../../_static/mermaid.min.js"], scripts
    assert (book / "_static" / "mermaid.min.js").is_file()


def test_without_its_script_a_diagram_is_text(tmp_path: Path) -> None:
    """The check can fail: a page whose script is missing keeps the diagram as text."""
    book = _book()
    source = (book / "chapters" / "06_binding_cycle" / "index.html").read_text(encoding="utf-8")
    broken = tmp_path / "chapters" / "06_binding_cycle" / "index.html"
    broken.parent.mkdir(parents=True)
    broken.write_text(source, encoding="utf-8")  # no _static beside it: mermaid.min.js is absent
    found = diagrams(dump_dom(_chromium(), broken))
    assert found
    assert not found[0].lstrip().startswith("<svg")
