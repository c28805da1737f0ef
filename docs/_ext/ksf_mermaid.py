"""The book's diagrams, drawn without a network and checked at build time.

A ```mermaid fence becomes ``<pre class="mermaid">`` holding the diagram's
source; mermaid's JavaScript, vendored from the npm package ``mermaid`` (pinned
in ``docs/mermaid/package-lock.json``), is copied into the built site's
``_static`` and loaded as a classic script, so a page opened from disk
(``file://``) draws its diagrams: an ES module, as a CDN build would load, is
refused there by the browser.

Every diagram is parsed by mermaid's own parser (``docs/mermaid/check.mjs``,
run with node) once all pages are read; a diagram that does not parse fails
the build, with or without ``-W``, naming the page and line.

The JavaScript is installed on first use with ``npm ci`` when it is missing
(``scripts/install_mermaid.sh`` does the same by hand).
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

MERMAID_DIR = Path(__file__).resolve().parent.parent / "mermaid"
MERMAID_JS = MERMAID_DIR / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
INSTALL_HINT = "run `bash scripts/install_mermaid.sh` (it needs node and npm)"

# Run by the page once mermaid.min.js has loaded. securityLevel "strict"
# keeps diagram text as text. A link to a diagram (#diagram-2) is followed
# again once the diagrams are drawn, since drawing moves everything below.
INIT_JS = """\
mermaid.initialize({startOnLoad: false, securityLevel: "strict", theme: "default"});
document.addEventListener("DOMContentLoaded", () => {
  mermaid.run({querySelector: "pre.mermaid"}).finally(() => {
    document.documentElement.dataset.diagrams = "drawn";
    const target = location.hash.startsWith("#diagram-") && document.querySelector(location.hash);
    if (target) target.scrollIntoView();
  });
});
"""


class mermaid_diagram(nodes.General, nodes.Element):
    """One diagram: its source in ``node["code"]``."""


class MermaidDirective(SphinxDirective):
    """```mermaid (MyST fence as directive) or ``.. mermaid::``: a diagram's source."""

    has_content = True
    option_spec: ClassVar[dict[str, Any]] = {}

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content).strip()
        if not code:
            raise self.error("a mermaid diagram needs its source in the block")
        node = mermaid_diagram(code=code)
        self.set_source_info(node)
        env = self.env
        diagrams = env.__dict__.setdefault("ksf_mermaid", {})
        diagrams.setdefault(env.docname, []).append((self.lineno, code))
        return [node]


def visit_html(self: Any, node: mermaid_diagram) -> None:
    # The page's diagrams are numbered in order (diagram-1, diagram-2): an
    # anchor for a link, a screenshot, or a test.
    index = self.__dict__["_ksf_diagrams"] = self.__dict__.get("_ksf_diagrams", 0) + 1
    self.body.append(
        f'<div class="ksf-diagram" id="diagram-{index}">'
        f'<pre class="mermaid">{html.escape(node["code"])}</pre></div>\n'
    )
    raise nodes.SkipNode


def visit_other(self: Any, node: mermaid_diagram) -> None:
    # Builders without a browser (text, man, latex) show the source.
    self.visit_literal_block(nodes.literal_block(node["code"], node["code"]))
    raise nodes.SkipNode


def _purge(app: Any, env: Any, docname: str) -> None:
    env.__dict__.setdefault("ksf_mermaid", {}).pop(docname, None)


def _merge(app: Any, env: Any, docnames: set[str], other: Any) -> None:
    mine = env.__dict__.setdefault("ksf_mermaid", {})
    for docname, diagrams in other.__dict__.get("ksf_mermaid", {}).items():
        if docname in docnames:
            mine[docname] = diagrams


def _ensure_javascript() -> None:
    if MERMAID_JS.is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise ExtensionError(
            f"mermaid's JavaScript is not installed in {MERMAID_DIR}: {INSTALL_HINT}"
        )
    logger.info("installing mermaid's JavaScript with npm ci in %s", MERMAID_DIR)
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=MERMAID_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not MERMAID_JS.is_file():
        raise ExtensionError(
            f"npm ci in {MERMAID_DIR} failed ({done.stderr.strip()[-500:]}); {INSTALL_HINT}"
        )


def parse_errors(sources: list[str]) -> list[str | None]:
    """Mermaid's parser's verdict on each source: None, or its message."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError(f"node is needed to check the book's diagrams: {INSTALL_HINT}")
    done = subprocess.run(
        [node, str(MERMAID_DIR / "check.mjs")],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        cwd=MERMAID_DIR,
        check=False,
    )
    if done.returncode != 0:
        raise ExtensionError(f"checking the diagrams failed: {done.stderr.strip()[-1000:]}")
    results: list[str | None] = json.loads(done.stdout)
    return results


def _check_diagrams(app: Any, env: Any) -> None:
    if app.builder.format != "html":
        return
    _ensure_javascript()
    found = [
        (docname, line, code)
        for docname, diagrams in sorted(env.__dict__.get("ksf_mermaid", {}).items())
        for line, code in diagrams
    ]
    if not found:
        return
    bad = 0
    for (docname, line, _code), error in zip(
        found, parse_errors([code for _, _, code in found]), strict=True
    ):
        if error is not None:
            bad += 1
            logger.warning("mermaid diagram does not parse: %s", error, location=(docname, line))
    if bad:
        raise ExtensionError(f"{bad} mermaid diagram(s) do not parse; see the warnings above")


def _add_scripts(app: Any, pagename: str, templatename: str, context: Any, doctree: Any) -> None:
    if doctree is None or not any(doctree.findall(mermaid_diagram)):
        return
    app.add_js_file("mermaid.min.js")
    app.add_js_file(None, body=INIT_JS)


def _copy_javascript(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(MERMAID_JS, static / "mermaid.min.js")


def setup(app: Any) -> dict[str, Any]:
    app.add_node(
        mermaid_diagram,
        html=(visit_html, None),
        latex=(visit_other, None),
        text=(visit_other, None),
        man=(visit_other, None),
        texinfo=(visit_other, None),
    )
    app.add_directive("mermaid", MermaidDirective)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_diagrams)
    app.connect("html-page-context", _add_scripts)
    app.connect("build-finished", _copy_javascript)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
