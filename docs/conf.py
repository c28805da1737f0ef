"""Sphinx configuration for the book.

The *source directory is the repository root*, so chapters live beside their
code and tests (``chapters/00_why/index.md``) and the API reference lives in
``docs/``. Build from the root with the config taken from here::

    sphinx-build -W -n --keep-going -c docs . docs/_build/html
    sphinx-build -W -n --keep-going -b doctest -c docs . docs/_build/doctest

``include_patterns`` keeps Sphinx away from everything else in the root
(``.venv``, ``.tox``, the README, the exercise and test ``.py`` files): only
the pages under ``docs/`` and the chapters' Markdown are documents.
"""

from __future__ import annotations

import builtins
import importlib
import os
import sys
import types
from pathlib import Path
from typing import Any, TypeVar

from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = Path(__file__).resolve().parent.parent
# `import framework` must work whether or not the package is installed
# (a fresh checkout building its docs, or tox's installed copy: both import
# the same source tree because the root comes first).
sys.path.insert(0, str(ROOT))
# The book's own Sphinx extensions (ksf_mermaid: diagrams drawn offline;
# ksf_captions: every included block names its file and lines;
# ksf_reading_time: each chapter's reading time, counted at build time;
# ksf_golinks: Go citations linked to the source at the mirrored tag;
# ksf_featuregates: the gate × release table, built from framework.featuregate).
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import framework  # noqa: E402  (needs the path above)

# -- Project -----------------------------------------------------------------

project = "The Kubernetes Scheduling Framework, in Python"
author = "kube-scheduling-framework contributors"
copyright = "2025, kube-scheduling-framework contributors"
release = framework.__version__
version = ".".join(release.split(".")[:2])

root_doc = "docs/index"
include_patterns = ["docs/**", "chapters/**/*.md"]
exclude_patterns = ["docs/_build/**", "docs/mermaid/**", "**/.ipynb_checkpoints"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}

# -- Extensions --------------------------------------------------------------

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "sphinx_copybutton",
    "sphinx_design",
    "ksf_mermaid",
    "ksf_captions",
    "ksf_reading_time",
    "ksf_golinks",
    "ksf_featuregates",
    "sphinxcontrib.programoutput",
]

# MyST: fenced directives with ::: (colon_fence), definition and field lists,
# {attrs} on blocks and spans, and ```mermaid fences rendered as diagrams.
myst_enable_extensions = [
    "colon_fence",
    "deflist",
    "fieldlist",
    "attrs_block",
    "attrs_inline",
]
myst_fence_as_directive = ["mermaid"]
myst_heading_anchors = 3

# Autodoc: members in the order the source tells the story.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "show-inheritance": True,
}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Doctests. The doctest builder checks the pages' own ``{doctest}``,
# ``{testcode}``/``{testoutput}`` blocks. It does NOT check the ``>>>``
# examples that autodoc pulls in from docstrings: it would run them in the
# page's namespace, where the module's names are not defined. Those examples
# are checked where they live, by ``pytest --doctest-modules framework`` (the
# tox ``docs`` env runs both).
doctest_test_doctest_blocks = ""

# Diagrams are drawn by mermaid's JavaScript in the reader's browser, from a
# copy inside the built site (docs/_ext/ksf_mermaid.py), so the book opened
# from disk draws them; every diagram is parsed at build time and one that does
# not parse fails the build. There is no intersphinx, by design.

# Go citations ({go}`pkg/scheduler/schedule_one.go`) link to the source at
# these tags (docs/_ext/ksf_golinks.py): the release the book mirrors, and
# the scheduler-plugins release built against it. One line per repository.
ksf_go_tags = {
    "kubernetes/kubernetes": "v1.33.0",
    "kubernetes-sigs/scheduler-plugins": "v0.33.5",
}

# `{program-output} python -m framework ...` runs at build time, from the
# repository root. Put this interpreter's directory first on PATH so that
# `python` there is the one running Sphinx (the venv's or tox's), not
# whatever `python` the shell would find.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
programoutput_use_ansi = False

# -- Nitpicky references -----------------------------------------------------
#
# -n makes every cross-reference that does not resolve a warning, and -W makes
# warnings errors. Without intersphinx, names from the standard library, the
# typing module and third-party packages cannot resolve; they are ignored here
# by pattern. Names from `framework` are NOT ignored: they must resolve.

nitpicky = True
# Every standard-library module, so `random.Random` or `threading.Event` in a
# type hint never needs its own entry.
_STDLIB_MODULES = "|".join(sorted(sys.stdlib_module_names))
_TYPING = (
    "Any|Self|ClassVar|Callable|Iterator|Iterable|Mapping|MutableMapping|Sequence|"
    "Collection|Generator|Literal|Protocol|TypeVar|Generic|Optional|Union|Final|"
    "Hashable|Sized|Container|Awaitable|Coroutine|TypeAlias|TypeGuard|Never|NoReturn|"
    "ParamSpec|Concatenate|Annotated|NamedTuple|TypedDict|IO|TextIO|BinaryIO"
)
_STDLIB_NAMES = (
    "Decimal|Fraction|Enum|IntEnum|StrEnum|Flag|IntFlag|Path|datetime|timedelta|"
    "Event|Lock|RLock|Condition|Thread|Semaphore|Random|Field|Pattern|Match|deque|"
    "defaultdict|OrderedDict|Counter|partial"
)
nitpick_ignore_regex = [
    # Standard library, fully qualified (typing.Any, threading.Event, ...).
    (r"py:.*", rf"({_STDLIB_MODULES})\..+"),
    # typing names and common stdlib classes written unqualified, as autodoc
    # renders them from `from __future__ import annotations` hints. (Builtins
    # never get here: `_UnlinkBuiltins` below turns them into plain text, and
    # the project's TypeVars are rendered as text by `_resolve_project_name`.)
    (r"py:.*", rf"({_TYPING}|{_STDLIB_NAMES})"),
    # Third-party packages the framework uses: PyYAML, the kubernetes client, numpy.
    (r"py:.*", r"(yaml|kubernetes|numpy)(\..+)?"),
    # The batch engine's array aliases (numpy.typing.NDArray of one dtype).
    (r"py:.*", r"(IntArray|BoolArray)"),
]

# -- HTML --------------------------------------------------------------------

html_theme = "sphinx_book_theme"
html_title = project
html_theme_options = {
    # No repository or launch buttons: the book names no hosting service.
    "show_toc_level": 2,
    "home_page_in_toc": True,
}
html_static_path: list[str] = []
# The root document is docs/index, so Sphinx writes it to docs/index.html; a
# one-line redirect at the output root lets `open docs/_build/html/index.html`
# and any static host find the book.
html_extra_path = ["_root"]

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True


# -- Two reference fixes, kept narrow ----------------------------------------


def _resolve_project_name(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve ``framework.objects.Pod`` to where it is documented.

    Packages re-export their modules' names (``from framework.objects import
    Pod``) and docstrings refer to them that way, or by a bare name a module
    imported (``BadRequest`` inside ``framework.apiserver.fields``); autodoc
    documents each class once, under its defining module
    (``framework.objects.pod.Pod``). Import the target as Python would see
    it, and if it is a project object defined under another name, resolve to
    that name. Anything that still does not resolve stays a warning: project
    names must resolve.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    context = node.get("py:module") or ""
    if target.startswith("framework."):
        full = target
    elif context.startswith("framework"):
        full = f"{context}.{target}"
    else:
        return None
    parts = full.split(".")
    obj: Any = None
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        break
    if isinstance(obj, TypeVar):
        # A type variable (``T`` in ``get(kind: type[T]) -> T``) is a
        # placeholder, not an API: show its name, link nowhere.
        return contnode
    if isinstance(obj, types.ModuleType):
        canonical = obj.__name__
    else:
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if not module or not qualname:
            return None
        canonical = f"{module}.{qualname}"
    if not canonical.startswith("framework"):
        return None
    if canonical == full:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode
    )


_BUILTIN_NAMES = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) or value is None or isinstance(value, bool)
)


class _UnlinkBuiltins(SphinxPostTransform):
    """Render builtin names in type hints (``str``, ``type``, ``None``) as plain text.

    Without intersphinx they have nowhere to link to. Worse, the Python domain
    resolves type fields by suffix, so ``type`` in ``dict[str, type[Model]]``
    would match every documented attribute called ``type`` (``Event.type``,
    ``PodCondition.type``) and fail as ambiguous, or link to the wrong one.
    Runs before Sphinx's reference resolver (priority 10).
    """

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        for ref in list(self.document.findall(pending_xref)):
            if (
                ref.get("refdomain") == "py"
                and ref.get("reftype") in {"class", "obj", "data"}
                and ref.get("reftarget") in _BUILTIN_NAMES
            ):
                ref.replace_self(ref.children)


def setup(app: Any) -> None:
    app.connect("missing-reference", _resolve_project_name)
    app.add_post_transform(_UnlinkBuiltins)
