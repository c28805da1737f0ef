"""Every Go citation of the book links to the source at the mirrored release tag.

The chapters and docs cite Kubernetes' Go with the ``{go}`` role
(``docs/_ext/ksf_golinks.py``), which links to github.com at the tag in
``docs/conf.py``. Here, without the network: no backticked ``.go`` file is
left outside the role, every role's target is a path from its repository's
root (so the link can resolve), and the URL carries the one configured tag.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    [*ROOT.glob("chapters/*/*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("docs/api/*.md")]
)

pytest.importorskip("docutils")
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
import ksf_golinks  # noqa: E402  (found through the path above)

ROLE = re.compile(r"\{go\}`(?P<text>[^`]+)`")
BARE_GO_FILE = re.compile(r"(?<![}\w])`(?P<path>[^`\s]*\.go)`")
# Backticked .go names that are not citations of the two mirrored repositories.
NOT_CITATIONS = {
    "*_test.go",  # a glob: "the tests next to a file"
    "decode.go",  # go-yaml v2's, not in kubernetes/kubernetes or scheduler-plugins
}


def prose_lines(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks (where roles are not read)."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def conf_tags() -> dict[str, str]:
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "ksf_go_tags" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, dict)
            return value
    raise AssertionError("docs/conf.py sets no ksf_go_tags")


def citations() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, line in prose_lines(page):
            for match in ROLE.finditer(line):
                where = f"{page.relative_to(ROOT)}:{number}"
                text = match["text"]
                target = text.rsplit("<", 1)[1].rstrip(">") if text.endswith(">") else text
                found.append((where, target.strip()))
    return found


def test_the_book_cites_go_through_the_role() -> None:
    assert len(citations()) > 150


def test_no_go_file_is_cited_without_the_role() -> None:
    bare = [
        f"{page.relative_to(ROOT)}:{number}: {match['path']}"
        for page in PAGES
        for number, line in prose_lines(page)
        for match in BARE_GO_FILE.finditer(line)
        if match["path"] not in NOT_CITATIONS
    ]
    assert not bare, "cite these with {go}`full/path.go` (or {go}`short.go <full/path.go>`):\n" + (
        "\n".join(bare)
    )


@pytest.mark.parametrize(("where", "target"), citations(), ids=lambda v: str(v))
def test_every_citation_is_a_path_from_its_repository_root(where: str, target: str) -> None:
    url = ksf_golinks.go_source_url(target, conf_tags())
    assert url.startswith("https://github.com/"), where


def test_a_citation_links_at_the_configured_tag() -> None:
    tags = {"kubernetes/kubernetes": "v9.9.9", "kubernetes-sigs/scheduler-plugins": "v0.9.9"}
    assert ksf_golinks.go_source_url("pkg/scheduler/schedule_one.go", tags) == (
        "https://github.com/kubernetes/kubernetes/blob/v9.9.9/pkg/scheduler/schedule_one.go"
    )
    assert ksf_golinks.go_source_url("scheduler-plugins:pkg/coscheduling/", tags) == (
        "https://github.com/kubernetes-sigs/scheduler-plugins/tree/v0.9.9/pkg/coscheduling"
    )


def test_the_configured_tag_is_the_release_the_book_mirrors() -> None:
    assert conf_tags()["kubernetes/kubernetes"] == "v1.33.0"


@pytest.mark.parametrize(
    "target",
    ["schedule_one.go", "framework/runtime/framework.go", "other:pkg/a.go", "pkg/a.py"],
)
def test_a_short_or_unknown_citation_is_refused(target: str) -> None:
    with pytest.raises(ksf_golinks.NotAPath):
        ksf_golinks.go_source_url(target, conf_tags())
