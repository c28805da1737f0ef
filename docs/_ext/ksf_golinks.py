"""Go citations link to the source at the mirrored release tag: the ``{go}`` role.

A citation names a file or a folder. In a chapter::

    {go}`pkg/scheduler/schedule_one.go`
    {go}`schedule_one.go <pkg/scheduler/schedule_one.go>`
    {go}`scheduler-plugins:pkg/coscheduling/core/core.go`
    {go}`pkg/scheduler/framework/plugins/`

The first shows the path and links to it in kubernetes/kubernetes; the
second shows its own text; the third is a file of kubernetes-sigs/scheduler-plugins.
Each repository's tag is one setting in ``docs/conf.py``
(``ksf_go_tags``), so the book moves to another release in one line. A
target that is not a path from the repository's root (a bare ``fit.go``)
is a build error: the reader could not find it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docutils import nodes
from sphinx.util.nodes import split_explicit_title

# The repositories a citation may name, by prefix ("" is kubernetes/kubernetes).
REPOSITORIES = {
    "": "kubernetes/kubernetes",
    "scheduler-plugins": "kubernetes-sigs/scheduler-plugins",
}
# Where a file can sit from each repository's root.
# A file (``.go``) or a folder (no extension, a trailing ``/`` allowed).
PATH_FORM = {
    "": re.compile(
        r"^(pkg|cmd|staging/src/k8s\.io/[\w.-]+|plugin|test|vendor)(/[\w-]+)*(/[\w-]+\.go|/)?$"
    ),
    "scheduler-plugins": re.compile(r"^(pkg|apis|cmd|test)(/[\w-]+)*(/[\w-]+\.go|/)?$"),
}


class NotAPath(ValueError):
    """A citation that does not name a file from its repository's root."""


def split_target(target: str) -> tuple[str, str]:
    """``(repository prefix, path)`` of a citation's target."""
    prefix, sep, path = target.partition(":")
    if not sep:
        return "", target
    if prefix not in REPOSITORIES:
        raise NotAPath(f"{target!r}: unknown repository {prefix!r}; known: {sorted(REPOSITORIES)}")
    return prefix, path


def go_source_url(target: str, tags: Mapping[str, str]) -> str:
    """The URL of ``target`` at its repository's tag, or :class:`NotAPath`."""
    prefix, path = split_target(target)
    if not PATH_FORM[prefix].match(path):
        raise NotAPath(
            f"{target!r} is not a path from the root of {REPOSITORIES[prefix]} "
            "(write it in full, e.g. pkg/scheduler/schedule_one.go, and show a short "
            "name with {go}`short.go <full/path.go>`)"
        )
    repository = REPOSITORIES[prefix]
    kind = "blob" if path.endswith(".go") else "tree"
    return f"https://github.com/{repository}/{kind}/{tags[repository]}/{path.rstrip('/')}"


def go_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: Mapping[str, Any] | None = None,
    content: Any = (),
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    has_title, title, target = split_explicit_title(text)
    config = inliner.document.settings.env.config
    try:
        url = go_source_url(target, config.ksf_go_tags)
    except NotAPath as problem:
        message = inliner.reporter.error(str(problem), line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    shown = title if has_title else split_target(target)[1]
    reference = nodes.reference(rawtext, "", nodes.literal(shown, shown), refuri=url)
    reference["classes"].append("ksf-go-source")
    return [reference], []


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value(
        "ksf_go_tags",
        {
            "kubernetes/kubernetes": "v1.33.0",
            "kubernetes-sigs/scheduler-plugins": "v0.33.5",
        },
        "env",
    )
    app.add_role("go", go_role)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
