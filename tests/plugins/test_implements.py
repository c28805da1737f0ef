"""Each plugin states the extension points it implements, as Go's ``var _ framework.FilterPlugin = &X{}``.

A plugin module ends with an ``if TYPE_CHECKING:`` block of assignments
``_filter: type[interface.FilterPlugin] = NodeName``; mypy --strict checks
each (a missing method or a wrong signature is a type error). This test
checks the other half: that the block names *every* point the plugin joins
(the framework finds them by ``isinstance``, so a method added without its
line would go unchecked) and none it does not.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import framework.plugins
from framework import interface
from framework.runtime.framework import EXTENSION_POINTS

PROTOCOLS = [*EXTENSION_POINTS.values(), interface.EnqueueExtensions]


def _plugin_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(framework.plugins.__path__, "framework.plugins."):
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (
                inspect.isclass(cls)
                and cls.__module__ == module.__name__
                and not name.startswith("_")
                and callable(getattr(cls, "name", None))
                and any(issubclass(cls, p) for p in PROTOCOLS)
            ):
                found.append(cls)
    return found


def _stated(cls: type) -> set[str]:
    """The Protocols the module's TYPE_CHECKING block assigns ``cls`` to."""
    tree = ast.parse(Path(inspect.getfile(cls)).read_text(encoding="utf-8"))
    stated = set()
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for line in node.body:
            if (
                isinstance(line, ast.AnnAssign)
                and isinstance(line.value, ast.Name)
                and line.value.id == cls.__name__
            ):
                # type[interface.FilterPlugin] -> FilterPlugin
                stated.add(ast.unparse(line.annotation).split(".")[-1].rstrip("]"))
    return stated


@pytest.mark.parametrize("cls", _plugin_classes(), ids=lambda cls: cls.__name__)
def test_each_plugin_states_exactly_the_points_it_implements(cls: type) -> None:
    implemented = {p.__name__ for p in PROTOCOLS if issubclass(cls, p)}
    assert _stated(cls) == implemented, (
        f"{cls.__name__} implements {sorted(implemented)}; end its module with an "
        "`if TYPE_CHECKING:` block assigning it to `type[interface.<Point>]` for each"
    )
