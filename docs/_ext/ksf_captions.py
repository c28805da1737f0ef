"""Every block a chapter includes from the code names its file and lines.

A ``literalinclude`` without a ``:caption:`` gets one: the file's path from
the repository root and the lines the block spans, as in
``framework/queue/backoff.py, lines 40–52``. The lines are found by looking
the block's text up in the file (a ``pyobject`` or marker block is the
file's text, unchanged); a block that was dedented or otherwise changed is
captioned with the path alone. The chapters' directives are left as they
are: captions follow the code as it moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes

ROOT = Path(__file__).resolve().parent.parent.parent


def caption_for(path: Path, code: str) -> str:
    """``relative/path.py, lines a–b`` (or the path alone when the text is not found as is)."""
    try:
        name = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        name = path.name
    text = path.read_text(encoding="utf-8")
    body = code.strip("\n")
    at = text.find(body) if body else -1
    if at < 0:
        return name
    first = text.count("\n", 0, at) + 1
    last = first + body.count("\n")
    return f"{name}, line {first}" if first == last else f"{name}, lines {first}–{last}"


def _add_captions(app: Any, doctree: nodes.document) -> None:
    for block in list(doctree.findall(nodes.literal_block)):
        source = block.get("source")
        parent = block.parent
        if not source or not Path(source).is_file():
            continue  # not a literalinclude (those record the file they read)
        if isinstance(parent, nodes.container) and "literal-block-wrapper" in parent["classes"]:
            continue  # it has a caption already
        text = caption_for(Path(source), block.astext())
        wrapper = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
        caption = nodes.caption(text, "", nodes.literal(text, text))
        caption.source, caption.line = block.source, block.line
        parent.replace(block, wrapper)
        wrapper += caption
        wrapper += block
        # A captioned block is a target (its caption gets a permalink), as
        # Sphinx's numbering transform makes one, which ran before this.
        doctree.note_implicit_target(wrapper)


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", _add_captions)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
