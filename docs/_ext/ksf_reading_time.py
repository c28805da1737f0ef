"""Each chapter opens with its reading time, counted from its text at build time.

The count is the page's words, prose and code alike, at 200 words a minute
(a reader who stops to read the code), rounded up to 5 minutes; it is put
as a line under the chapter's title, so it follows the chapter as it grows.
A chapter split into pages (``index.md`` and others in its folder) gives
each page its own, and its first page the whole chapter's as well: the sum
of its pages' minutes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from docutils import nodes

WORDS_PER_MINUTE = 200


def reading_minutes(words: int) -> int:
    """Minutes to read ``words``, rounded up to a multiple of 5 (at least 5)."""
    return max(5, 5 * math.ceil(words / WORDS_PER_MINUTE / 5))


def reading_line(minutes: int, pages: Sequence[int] = ()) -> str:
    """The line for a page of ``minutes``; a chapter's first page also sums its ``pages``."""
    line = f"Reading time: about {minutes} minutes"
    if pages:
        line += f" for this page, {minutes + sum(pages)} for the chapter ({len(pages) + 1} pages)"
    return line + "."


def _add_reading_time(app: Any, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not docname.startswith("chapters/"):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not isinstance(section[0], nodes.title):
        return
    minutes = reading_minutes(len(doctree.astext().split()))
    _minutes(app.env)[docname] = minutes
    line = nodes.paragraph("", "", nodes.emphasis("", reading_line(minutes)))
    line["classes"].append("ksf-reading-time")
    section.insert(1, line)


def _minutes(env: Any) -> dict[str, int]:
    if not hasattr(env, "ksf_reading_minutes"):
        env.ksf_reading_minutes = {}
    found: dict[str, int] = env.ksf_reading_minutes
    return found


def _add_chapter_total(app: Any, doctree: nodes.document, docname: str) -> None:
    """A split chapter's first page: the other pages' minutes, known once all are read."""
    if not (docname.startswith("chapters/") and docname.endswith("/index")):
        return
    folder = docname.rsplit("/", 1)[0] + "/"
    minutes = _minutes(app.env)
    pages = [
        m for name, m in sorted(minutes.items()) if name.startswith(folder) and name != docname
    ]
    if not pages or docname not in minutes:
        return
    for line in doctree.findall(nodes.paragraph):
        if "ksf-reading-time" in line["classes"]:
            line.children = [nodes.emphasis("", reading_line(minutes[docname], pages))]
            return


def _purge(app: Any, env: Any, docname: str) -> None:
    _minutes(env).pop(docname, None)


def _merge(app: Any, env: Any, docnames: Any, other: Any) -> None:
    _minutes(env).update(_minutes(other))


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _add_reading_time)
    app.connect("doctree-resolved", _add_chapter_total)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
