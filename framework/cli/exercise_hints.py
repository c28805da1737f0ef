"""Graded hints for the chapters' exercises, one at a time, in the terminal.

The hints live once, in the chapter's pages (index.md first), as dropdowns
(sphinx-design) the book shows as "Hint 1", "Hint 2", ...::

    :::{dropdown} Hint 1: where to look
    The text of the hint.
    :::

``python -m framework hint 1`` prints chapter 1's first hint;
``python -m framework hint 1 2`` the second. Nothing further is shown until
asked for, so a learner sees no more of the solution than they want.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Hint", "HintError", "chapter_dir", "chapter_key", "read_hints"]

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"

_HINT_BLOCK = re.compile(
    r"^(?P<fence>:{3,})\{(?:dropdown|admonition)\}\s*Hint\s+(?P<number>\d+)(?P<title>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=fence)\s*$",
    re.MULTILINE | re.DOTALL,
)


# A directive option line such as ``:class: dropdown`` or ``:open:``.
_OPTION = re.compile(r"^:[A-Za-z][\w-]*:")


class HintError(LookupError):
    """No such chapter or hint; the message says what exists."""


@dataclass(frozen=True, slots=True)
class Hint:
    number: int
    title: str
    text: str


def chapter_key(chapter: int | str) -> str:
    """The folder prefix of a chapter: ``7`` -> ``07``, ``"0b"`` -> ``00b``.

    Chapter 0b ("Before the framework, measured") sits between 0 and 1, so a
    chapter is a number with an optional letter.
    """
    text = str(chapter).strip().lower()
    digits = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    if not digits.isdigit():
        raise HintError(f"{chapter!r} is not a chapter: give its number, e.g. 1 or 0b")
    return f"{int(digits):02d}{text[len(digits) :]}"


def chapter_dir(chapter: int | str, root: Path = CHAPTERS) -> Path:
    """The folder ``chapters/NN_slug`` of a chapter number."""
    matches = sorted(root.glob(f"{chapter_key(chapter)}_*")) if root.is_dir() else []
    if not matches:
        available = sorted(p.name for p in root.glob("[0-9][0-9]*_*")) if root.is_dir() else []
        raise HintError(
            f"no chapter {chapter} under {root}"
            + (
                f" (chapters: {', '.join(available)})"
                if available
                else " (hints are read from a clone of the repository)"
            )
        )
    return matches[0]


def read_hints(chapter: int | str, root: Path = CHAPTERS) -> list[Hint]:
    """Every hint of a chapter, in order."""
    folder = chapter_dir(chapter, root)
    # A long chapter is split into pages (index.md first): its hints may be on any of them.
    pages = [folder / "index.md", *sorted(p for p in folder.glob("*.md") if p.name != "index.md")]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages if page.is_file())
    hints = []
    for match in _HINT_BLOCK.finditer(text):
        body = "\n".join(
            line for line in match["body"].splitlines() if not _OPTION.match(line)
        ).strip()
        title = match["title"].strip().lstrip(":—-").strip()
        hints.append(Hint(int(match["number"]), title, body))
    return hints


def format_hint(chapter: int | str, number: int, root: Path = CHAPTERS) -> str:
    """The text to print for ``hint CHAPTER NUMBER``, with how to get the next one."""
    hints = read_hints(chapter, root)
    if not hints:
        raise HintError(f"chapter {chapter} has no exercise hints")
    chosen = next((h for h in hints if h.number == number), None)
    if chosen is None:
        raise HintError(
            f"chapter {chapter} has hints 1 to {len(hints)}; there is no hint {number}"
        )
    lines = [
        f"Chapter {chapter}, hint {chosen.number} of {len(hints)}"
        + (f": {chosen.title}" if chosen.title else ""),
        "",
        chosen.text,
        "",
    ]
    if chosen.number < len(hints):
        lines.append(f"Still stuck? python -m framework hint {chapter} {chosen.number + 1}")
    else:
        lines.append("That was the last hint; the chapter's solution is in the book, folded.")
    return "\n".join(lines)
