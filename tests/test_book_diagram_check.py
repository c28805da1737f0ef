"""The docs build parses every diagram with mermaid's parser and fails on one that does not parse.

``docs/_ext/ksf_mermaid.py`` runs ``docs/mermaid/check.mjs`` with node. These
tests need the docs extras (Sphinx) and mermaid installed
(``scripts/install_mermaid.sh``); without them they are skipped.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("sphinx")
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import ksf_mermaid  # noqa: E402  (found through the path above)

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not ksf_mermaid.MERMAID_JS.is_file(),
    reason="node and docs/mermaid/node_modules are needed: bash scripts/install_mermaid.sh",
)


def test_a_diagram_that_parses_has_no_error() -> None:
    assert ksf_mermaid.parse_errors(["flowchart TB\n    a[one] --> b[two]"]) == [None]


def test_loop_as_a_participant_name_is_a_parse_error() -> None:
    """Chapter 6's old diagram: ``loop`` opens a loop block in a sequence diagram."""
    [error] = ksf_mermaid.parse_errors(
        ["sequenceDiagram\n    participant Loop as scheduling loop\n    Loop->>Loop: next pod"]
    )
    assert error is not None
    assert "Parse error" in error


def test_labels_with_line_breaks_parse_outside_a_browser() -> None:
    """Flowchart labels are sanitized while parsed; check.mjs stands in for the browser's DOMPurify."""
    assert ksf_mermaid.parse_errors(['flowchart TD\n    a["one<br/>two"] --> b']) == [None]
