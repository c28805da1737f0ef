"""The plugin registry: names to factories, in-tree plus out-of-tree, with kube-scheduler's errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from framework.plugins.registry import in_tree_registry, out_of_tree_registry
from framework.runtime.registry import (
    MSG_ALREADY_EXISTS,
    MSG_NO_SUCH_PLUGIN,
    Registry,
    RegistryError,
    build_registry,
    load_factory,
    with_plugin,
)


class Noop:
    def __init__(self, name: str = "Noop") -> None:
        self._name = name

    def name(self) -> str:
        return self._name


def noop_factory(args: Any, handle: Any) -> Noop:
    return Noop()


def other_factory(args: Any, handle: Any) -> Noop:
    return Noop("Other")


def test_a_registered_factory_is_found_by_name_and_builds_the_plugin() -> None:
    registry = Registry()
    registry.register("Noop", noop_factory)
    assert "Noop" in registry and registry["Noop"] is noop_factory
    assert registry.get("Noop") is noop_factory
    assert registry["Noop"](None, None).name() == "Noop"


def test_registering_a_taken_name_fails_with_kube_schedulers_message() -> None:
    registry = Registry({"Noop": noop_factory})
    with pytest.raises(RegistryError) as raised:
        registry.register("Noop", other_factory)
    assert str(raised.value) == MSG_ALREADY_EXISTS.format(name="Noop")
    assert registry["Noop"] is noop_factory


def test_unregistering_removes_a_name_and_an_unknown_name_is_an_error() -> None:
    registry = Registry({"Noop": noop_factory})
    registry.unregister("Noop")
    assert "Noop" not in registry and len(registry) == 0
    with pytest.raises(RegistryError, match=MSG_NO_SUCH_PLUGIN.format(name="Noop")):
        registry.unregister("Noop")


def test_looking_up_an_unknown_name_raises_a_registry_error_not_a_bare_key_error() -> None:
    registry = Registry()
    with pytest.raises(RegistryError, match="no plugin named Missing exists"):
        registry["Missing"]
    assert registry.get("Missing") is None and "Missing" not in registry


def test_names_and_iteration_follow_registration_order() -> None:
    registry = Registry()
    registry.register("B", noop_factory)
    registry.register("A", other_factory)
    assert registry.names() == ("B", "A") and list(registry) == ["B", "A"]


@pytest.mark.parametrize(
    ("name", "factory", "message"),
    [
        ("", noop_factory, "non-empty name"),
        ("Noop", "not a function", "not callable"),
    ],
    ids=["empty name", "factory is not callable"],
)
def test_registering_nonsense_is_refused_up_front(name: str, factory: Any, message: str) -> None:
    with pytest.raises(RegistryError, match=message):
        Registry().register(name, factory)


def test_merge_adds_every_factory_and_refuses_a_shared_name_without_changing_anything() -> None:
    registry = Registry({"A": noop_factory})
    registry.merge(Registry({"B": other_factory}))
    assert registry.names() == ("A", "B")
    with pytest.raises(RegistryError, match=MSG_ALREADY_EXISTS.format(name="A")):
        registry.merge({"C": noop_factory, "A": other_factory})
    assert registry.names() == ("A", "B")


def test_with_plugin_options_build_the_out_of_tree_part_of_the_final_registry() -> None:
    in_tree = Registry({"PrioritySort": noop_factory})
    final = build_registry(
        in_tree, with_plugin("MyGang", other_factory), with_plugin("X", noop_factory)
    )
    assert final.names() == ("PrioritySort", "MyGang", "X")
    assert in_tree.names() == ("PrioritySort",), "the in-tree registry is not modified"


@pytest.mark.parametrize(
    "options",
    [
        (with_plugin("PrioritySort", other_factory),),
        (with_plugin("X", noop_factory), with_plugin("X", other_factory)),
    ],
    ids=["out-of-tree name shadows an in-tree plugin", "two options register one name"],
)
def test_build_registry_refuses_a_name_registered_twice(options: tuple[Any, ...]) -> None:
    with pytest.raises(RegistryError, match="already exists"):
        build_registry(Registry({"PrioritySort": noop_factory}), *options)


def test_load_factory_imports_a_module_attribute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "myplugins"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "gang.py").write_text(
        textwrap.dedent(
            """
            NAME = "MyGang"
            class Gang:
                @staticmethod
                def new(args, handle):
                    return ("gang", args)
            def new(args, handle):
                return ("plugin", args)
            NOT_CALLABLE = 3
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "myplugins", raising=False)
    assert load_factory("myplugins.gang:new")({"a": 1}, None) == ("plugin", {"a": 1})
    assert load_factory("myplugins.gang:Gang.new")(None, None) == ("gang", None)
    with pytest.raises(RegistryError, match=r"myplugins\.gang has no attribute 'missing'"):
        load_factory("myplugins.gang:missing")
    with pytest.raises(RegistryError, match="NOT_CALLABLE is int, not a callable"):
        load_factory("myplugins.gang:NOT_CALLABLE")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("myplugins.gang", 'write it as "package.module:attribute"'),
        (":new", 'write it as "package.module:attribute"'),
        ("myplugins.gang:", 'write it as "package.module:attribute"'),
        ("no_such_package_xyz.mod:new", "no module named 'no_such_package_xyz'"),
    ],
    ids=["no colon", "no module", "no attribute", "module not installed"],
)
def test_load_factory_says_what_is_wrong_with_a_bad_spec(spec: str, message: str) -> None:
    with pytest.raises(RegistryError, match=message):
        load_factory(spec)


def test_the_project_registries_build_plugins_that_answer_to_their_registered_names() -> None:
    in_tree, out_of_tree = in_tree_registry(), out_of_tree_registry()
    assert {"PrioritySort", "SchedulingGates"} <= set(in_tree)
    assert "QOSSort" in out_of_tree and "QOSSort" not in in_tree, "QOSSort is out-of-tree upstream"
    for registry in (in_tree, out_of_tree):
        for name, factory in registry.items():
            assert factory(None, None).name() == name
    combined = build_registry(in_tree, *(with_plugin(n, f) for n, f in out_of_tree.items()))
    assert combined.names() == in_tree.names() + out_of_tree.names()
