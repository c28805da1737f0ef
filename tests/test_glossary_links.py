"""A glossary term's first use on each page of the chapters links to the glossary.

``docs/glossary.md`` defines the words the book uses in kube-scheduler's
sense; a reader meeting one for the first time on a page should be one
click from it. For each page and each term, the first use in the prose (a
form of the term: ``informers`` for ``informer``; code spans, headings,
link texts and fenced blocks do not count) must be a ``{term}`` role naming
it. Words spelled like a term but used in another sense are listed in
``OTHER_SENSE`` with the page and the phrase, so a new false match is a
decision, not a silent pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(ROOT.glob("chapters/*/*.md"))

# Each term and the forms of it that count as a use (whole words).
FORMS = {
    "activeQ": r"activeQ",
    "assume": r"assum(?:e|es|ed|ing)",
    "backoffQ": r"backoffQ",
    "CycleState": r"CycleState",
    "extension point": r"extension points?",
    "gang": r"gangs?",
    "in flight": r"in[ -]flight",
    "informer": r"informers?",
    "nominated node": r"nominated nodes?",
    "PodDisruptionBudget": r"PodDisruptionBudgets?",
    "profile": r"profiles?",
    "queueing hint": r"queueing hints?",
    "signature": r"signatures?",
    "snapshot": r"snapshots?",
    "unschedulablePods": r"unschedulablePods|unschedulable pods",
}

# (page, words around the use): a word spelled like a term, in another sense.
OTHER_SENSE = {
    ("chapters/03_plugins/index.md", "not their signatures"),  # a method's parameters
    ("chapters/03_plugins/index.md", "checks the signatures"),  # a method's parameters
    ("chapters/03_plugins/index.md", "changed two signatures"),  # a method's parameters
    ("chapters/04_scheduling_cycle/index.md", "as our signatures do"),  # a function's parameters
    ("chapters/05_reserve_permit/index.md", "the allocation as *in flight*"),  # DRA's, not a pod's
    ("chapters/13_making_it_fast/index.md", "how we measured the"),  # a CPU profile
    ("chapters/13_making_it_fast/first_pass.md", "the profile showed"),  # a CPU profile
    ("chapters/13_making_it_fast/second_pass.md", "we took the profile"),  # a CPU profile
}

_ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<body>[^`]*)`")
_CODE = re.compile(r"(`+)[^`]*?\1")
_LINK_TEXT = re.compile(r"\[[^\]]*\]\([^)]*\)")


@dataclass(frozen=True)
class Use:
    page: str
    line: int
    start: int
    end: int
    text: str
    linked: bool

    def around(self, source: str) -> str:
        return source[max(0, self.start - 30) : self.end + 30].replace("\n", " ")


def lines(source: str) -> list[tuple[int, str, bool]]:
    """Each line as ``(offset, text, is_prose)``: fenced blocks, headings and directive lines are not."""
    out: list[tuple[int, str, bool]] = []
    fence: str | None = None
    offset = 0
    for line in source.splitlines(keepends=True):
        stripped = line.strip()
        if fence is not None:
            out.append((offset, line, False))
            if stripped == fence:
                fence = None
        else:
            opener = re.match(r"(`{3,}|~{3,})", stripped)
            if opener:
                fence = opener.group(1)
            skip = bool(opener) or bool(re.match(r"(#|:::|:[\w-]+:|<!--)", stripped))
            out.append((offset, line, not skip))
        offset += len(line)
    return out


def uses(source: str, name: str = "") -> dict[str, list[Use]]:
    """Per term, its uses in ``source`` in order: plain words, and ``{term}`` roles naming it."""
    found: dict[str, list[Use]] = {term: [] for term in FORMS}
    for number, (offset, line, is_prose) in enumerate(lines(source), 1):
        if not is_prose:
            continue
        for match in _ROLE.finditer(line):
            body = match["body"]
            target = body.rsplit("<", 1)[1].rstrip(">").strip() if body.endswith(">") else body
            if match["role"] == "term" and target in found:
                start = offset + match.start()
                found[target].append(Use(name, number, start, offset + match.end(), body, True))
        plain = line
        for pattern in (_ROLE, _CODE, _LINK_TEXT):
            plain = pattern.sub(lambda m: " " * len(m[0]), plain)
        for term, form in FORMS.items():
            for match in re.finditer(rf"(?<![\w-])(?:{form})(?![\w-])", plain):
                start = offset + match.start()
                found[term].append(Use(name, number, start, offset + match.end(), match[0], False))
    for term in found:
        found[term].sort(key=lambda u: u.start)
    return found


def first_unlinked_uses() -> list[str]:
    problems = []
    for page in PAGES:
        source = page.read_text(encoding="utf-8")
        name = str(page.relative_to(ROOT))
        for term, found in uses(source, name).items():
            counted = [
                u
                for u in found
                if not any(
                    page == name and words in u.around(source) for page, words in OTHER_SENSE
                )
            ]
            if counted and not counted[0].linked:
                first = counted[0]
                problems.append(
                    f"{name}:{first.line}: first use of '{term}' ({first.text!r}) is not "
                    f"linked  [{first.around(source)}]"
                )
    return problems


def test_every_term_has_forms() -> None:
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    block = glossary.split("```{glossary}", 1)[1].split("```", 1)[0]
    terms = {line.strip() for line in block.splitlines() if line and not line[0].isspace()}
    assert terms == set(FORMS)


def test_each_terms_first_use_on_a_page_links_to_the_glossary() -> None:
    problems = first_unlinked_uses()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "linked"),
    [
        ("The {term}`informer` feeds it.\n\nInformers again.\n", True),
        ("The informer feeds it; {term}`informer`.\n", False),
        ("# An informer\n\n`informer` in code; then {term}`informers <informer>`.\n", True),
    ],
)
def test_the_first_use_is_what_counts(text: str, linked: bool) -> None:
    assert uses(text)["informer"][0].linked is linked
