"""Imports point one way: each package of framework/ imports only from the layers below it.

kube-scheduler's packages form a layered graph, and Go's compiler refuses an
import cycle between packages. Python does not, so this test keeps ours the
way Go would: it reads every module of ``framework/`` (imports inside
functions and under ``TYPE_CHECKING`` count too: a lazy import is still a
dependency), counts a **directory as one package** as Go does, and checks

* that no package imports from a layer above its own, and
* that no two packages import each other, directly or around a loop.

The layers, lowest first, follow the pod's journey through Kubernetes'
source tree: the API objects (``k8s.io/api`` and the component helpers), the
API server, the scheduler's configuration (``apis/config``), the framework's
contract (``pkg/scheduler/framework``: interface, types, status), the cache
and the queue (``pkg/scheduler/backend``), the runtime
(``framework/runtime``), the extender API and preemption
(``framework/preemption``), the plugins (``framework/plugins``), the scheduler
(``pkg/scheduler``) and, on top, the programs that drive it.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "framework"

# Lowest first. A package imports from its own layer or below, never above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("framework.objects", "framework.plugins.names"),
    ("framework.apiserver",),
    ("framework.config",),
    ("framework",),
    ("framework.cache", "framework.queue"),
    ("framework.runtime",),
    ("framework.extender",),
    ("framework.preemption",),
    (
        "framework.plugins",
        "framework.plugins.coscheduling",
        "framework.plugins.defaultpreemption",
        "framework.plugins.dynamicresources",
        "framework.plugins.examples",
        "framework.plugins.interpodaffinity",
        "framework.plugins.nodeaffinity",
        "framework.plugins.noderesources",
        "framework.plugins.podtopologyspread",
        # Go's registry.go is alone in its package; ours sits beside the one-file plugins and
        # the helpers the plugin packages import, so it is a package of its own.
        "framework.plugins.registry",
    ),
    ("framework.scheduler", "framework.batch"),
    (
        "framework.apiserver.http",
        "framework.adapter",
        "framework.simulator",
        "framework.bench",
        "framework.experiments",
        "framework.scenarios",
        "framework.testing",
        "framework.testing.faults",
        "framework.cli",
    ),
)

# Imports that break the rule on purpose, each with its reason. The test fails
# when one of them is no longer there, so the list can only shrink.
KNOWN: dict[tuple[str, str], str] = {
    # ``framework.simulate`` is imported on first use, the package's one convenience.
    ("framework", "framework.simulator"): "framework/__init__.py",
    # The scheduler picks its Filter/Score engine by name, and the batch engine
    # extends the reference one: engine.py imports it on first use.
    ("framework.scheduler", "framework.batch"): "framework/scheduler/engine.py",
}

# Top-level modules that are not the framework's contract: each is its own
# package, at the layer given.
TOP_LEVEL: dict[str, str] = {
    # ``python -m framework``: the programs' entry point (the programs are in framework/cli/).
    "framework.__main__": "framework.cli",
    # Go's clock is k8s.io/utils/clock, a leaf that the API objects' helpers use too.
    "framework.clock": "framework.objects",
    # Go's feature gates are k8s.io/component-base/featuregate, a leaf (stdlib only here)
    # that the API server's validation, the configuration's defaults and the plugins read.
    "framework.featuregate": "framework.objects",
}


def _layer_of(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise AssertionError(
        f"package {package} has no layer: add it to LAYERS in tests/test_layering.py"
    )


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(module: str) -> str:
    """The directory a module lives in, as a dotted name (a package is its own directory)."""
    if module in TOP_LEVEL:
        return module
    if ROOT.joinpath(*module.split(".")).is_dir():
        return module
    return module.rpartition(".")[0]


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.is_dir() or path.with_suffix(".py").exists()


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every ``framework`` module a file imports, anywhere in it, with the line."""
    module = _module_name(path)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            submodules = [
                f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")
            ]
            if len(submodules) < len(node.names):
                yield target, node.lineno  # names defined in the module itself
            for name in submodules:
                yield name, node.lineno


@functools.cache
def _edges() -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) -> where, for every import between two packages."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _package_of(_module_name(path))
        for name, line in _imports(path):
            if name != "framework" and not name.startswith("framework."):
                continue
            target = _package_of(name)
            if target != source:
                edges[source, target].append(f"{path.relative_to(ROOT)}:{line}")
    return edges


def _layer(package: str) -> int:
    return _layer_of(TOP_LEVEL.get(package, package))


def test_every_package_has_a_layer() -> None:
    packages = {_package_of(_module_name(p)) for p in PACKAGE.rglob("*.py")}
    for package in sorted(packages):
        _layer(package)


def test_no_package_imports_from_a_layer_above_its_own() -> None:
    upward = [
        f"{source} -> {target} ({', '.join(where)})"
        for (source, target), where in sorted(_edges().items())
        if _layer(target) > _layer(source) and (source, target) not in KNOWN
    ]
    assert not upward, (
        "imports against the layering (objects -> apiserver -> config -> framework -> "
        "cache/queue -> runtime -> extender -> preemption -> plugins -> scheduler -> programs); "
        "move the imported name down to where Go keeps it:\n" + "\n".join(upward)
    )


def test_no_two_packages_import_each_other() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for source, target in _edges():
        if (source, target) not in KNOWN:
            graph[source].add(target)
    cycles = []
    for (source, target), where in sorted(_edges().items()):
        if (source, target) in KNOWN:
            continue
        # Is there a way back from target to source?
        seen, stack = {target}, [target]
        while stack:
            for nxt in graph[stack.pop()]:
                if nxt == source:
                    cycles.append(f"{source} -> {target} ({where[0]}) and back")
                    stack.clear()
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    assert not cycles, "import cycles between packages:\n" + "\n".join(cycles)


@pytest.mark.parametrize(("edge", "where"), sorted(KNOWN.items()))
def test_every_known_exception_is_still_needed(edge: tuple[str, str], where: str) -> None:
    found = _edges().get(edge, [])
    assert any(place.startswith(where) for place in found), (
        f"{edge[0]} no longer imports {edge[1]} from {where}: remove the entry from KNOWN"
    )
