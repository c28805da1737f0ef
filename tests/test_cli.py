"""The command line: the demo prints placements, hints come one at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.__main__ import main
from framework.cli.exercise_hints import HintError, format_hint, read_hints


def test_hint_shows_one_hint_and_how_to_get_the_next(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Chapter 1, hint 1 of ")
    assert "python -m framework hint 1 2" in out


def test_the_last_hint_says_so() -> None:
    last = len(read_hints(1))
    assert "That was the last hint" in format_hint(1, last)


def test_unknown_chapter_or_hint_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "99"]) == 2
    assert "no chapter 99" in capsys.readouterr().err
    with pytest.raises(HintError, match="there is no hint 42"):
        format_hint(1, 42)


def test_hints_are_parsed_from_dropdown_admonitions(tmp_path: Path) -> None:
    chapter = tmp_path / "07_example"
    chapter.mkdir()
    (chapter / "index.md").write_text(
        "# Example\n\n:::{admonition} Hint 1: look here\n:class: dropdown hint\nFirst.\n:::\n\n"
        "::::{admonition} Hint 2\n:class: dropdown\nSecond,\n\nwith ```code```.\n::::\n"
    )
    hints = read_hints(7, root=tmp_path)
    assert [(h.number, h.title, h.text) for h in hints] == [
        (1, "look here", "First."),
        (2, "", "Second,\n\nwith ```code```."),
    ]


def test_a_split_chapters_hints_are_read_from_its_pages_index_first(tmp_path: Path) -> None:
    chapter = tmp_path / "09_example"
    chapter.mkdir()
    (chapter / "index.md").write_text("# Example\n\nNo exercise on this page.\n")
    (chapter / "exercise.md").write_text(
        "# 9.3 Exercise\n\n:::{dropdown} Hint 1: the idea\nFirst.\n:::\n\n"
        ":::{dropdown} Hint 2: the line\nSecond.\n:::\n"
    )
    assert [h.title for h in read_hints(9, root=tmp_path)] == ["the idea", "the line"]


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    # `python -m framework simulate big.json | head`: head exits, the next write fails with
    # EPIPE. A command-line tool then stops without a traceback, as `cat` does (and as the
    # Python documentation's note on SIGPIPE recommends), not with "BrokenPipeError".
    import subprocess
    import sys

    child = subprocess.Popen(
        [sys.executable, "-m", "framework", "hint", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone before the first write
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
