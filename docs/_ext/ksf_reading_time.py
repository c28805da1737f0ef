"""Each chapter opens with its reading time, counted from its text at build time.

The count is the page's words, prose and code alike, at 200 words a minute
(a reader who stops to read the code), rounded up to 5 minutes; it is put
as a line under the chapter's title, so it follows the chapter as it grows.
"""

from __future__ import annotations

import math
from typing import Any

from docutils import nodes

WORDS_PER_MINUTE = 200


def reading_minutes(words: int) -> int:
    """Minutes to read ``words``, rounded up to a multiple of 5 (at least 5)."""
    return max(5, 5 * math.ceil(words / WORDS_PER_MINUTE / 5))


def _add_reading_time(app: Any, doctree: nodes.document) -> None:
    docname = app.env.docname
    if not docname.startswith("chapters/"):
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not isinstance(section[0], nodes.title):
        return
    words = len(doctree.astext().split())
    line = nodes.paragraph(
        "", "", nodes.emphasis("", f"Reading time: about {reading_minutes(words)} minutes.")
    )
    line["classes"].append("ksf-reading-time")
    section.insert(1, line)


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _add_reading_time)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
