"""The book's Sphinx extensions: captions on included blocks, reading times (docs/_ext)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("docutils")
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import ksf_captions  # noqa: E402  (found through the path above)


def test_a_block_found_in_its_file_names_the_lines(tmp_path: Path) -> None:
    source = ROOT / "framework" / "cli" / "exercise_hints.py"
    lines = source.read_text(encoding="utf-8").splitlines()
    block = "\n".join(lines[9:12])
    assert (
        ksf_captions.caption_for(source, block) == "framework/cli/exercise_hints.py, lines 10–12"
    )


def test_one_line_is_one_line() -> None:
    source = ROOT / "framework" / "cli" / "exercise_hints.py"
    line = source.read_text(encoding="utf-8").splitlines()[0]
    assert ksf_captions.caption_for(source, line) == "framework/cli/exercise_hints.py, line 1"


def test_a_changed_block_is_named_by_its_path_alone() -> None:
    source = ROOT / "framework" / "cli" / "exercise_hints.py"
    assert ksf_captions.caption_for(source, "not in the file") == "framework/cli/exercise_hints.py"


def test_reading_time_is_rounded_up_to_five_minutes() -> None:
    import ksf_reading_time

    assert ksf_reading_time.reading_minutes(0) == 5
    assert ksf_reading_time.reading_minutes(1000) == 5
    assert ksf_reading_time.reading_minutes(1001) == 10
    assert ksf_reading_time.reading_minutes(5714) == 30


def test_a_split_chapters_first_page_counts_the_whole_chapter() -> None:
    import ksf_reading_time

    assert ksf_reading_time.reading_line(5) == "Reading time: about 5 minutes."
    assert ksf_reading_time.reading_line(5, [15, 10]) == (
        "Reading time: about 5 minutes for this page, 30 for the chapter (3 pages)."
    )
