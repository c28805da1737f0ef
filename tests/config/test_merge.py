"""Merging a user's plugin set into the defaults: in place, appended, or disabled."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.config import Plugin, PluginSet, merge_plugin_set, merge_plugins
from framework.config.default_plugins import default_plugins
from tests.config.helpers import plugin_set, plugins

DEFAULTS = plugin_set("A", ("B", 3), "C")


@pytest.mark.parametrize(
    ("custom", "enabled", "disabled"),
    [
        (PluginSet(), [("A", None), ("B", 3), ("C", None)], []),
        (plugin_set("D"), [("A", None), ("B", 3), ("C", None), ("D", None)], []),
        (plugin_set(("B", 7)), [("A", None), ("B", 7), ("C", None)], []),
        (plugin_set("B"), [("A", None), ("B", None), ("C", None)], []),
        (plugin_set(disabled=("B",)), [("A", None), ("C", None)], ["B"]),
        (plugin_set("D", disabled=("*",)), [("D", None)], ["*"]),
        (plugin_set("B", disabled=("B",)), [("A", None), ("C", None), ("B", None)], ["B"]),
        (
            plugin_set("D", ("C", 2), "E"),
            [("A", None), ("B", 3), ("C", 2), ("D", None), ("E", None)],
            [],
        ),
        (plugin_set(("A", 1), ("A", 2)), [("A", 2), ("B", 3), ("C", None), ("A", 1)], []),
    ],
    ids=[
        "nothing configured keeps the defaults",
        "a new plugin is appended",
        "re-enabling a default replaces it in place with the user weight",
        "re-enabling a default without weight drops the default weight",
        "disabling one default removes just it",
        "disabling * removes every default",
        "disabled then enabled moves the plugin to the end",
        "replaced defaults keep their place, others append in user order",
        "a name enabled twice: the last entry replaces, the first is appended",
    ],
)
def test_merge_plugin_set_follows_kube_schedulers_rules(
    custom: PluginSet, enabled: list[tuple[str, int | None]], disabled: list[str]
) -> None:
    merged = merge_plugin_set(DEFAULTS, custom)
    assert [(p.name, p.weight) for p in merged.enabled] == enabled
    assert [p.name for p in merged.disabled] == disabled


def test_disabled_entries_lose_their_weight_and_the_defaults_own_disabled_are_kept() -> None:
    defaults = PluginSet(enabled=(Plugin("A"),), disabled=(Plugin("X"),))
    merged = merge_plugin_set(defaults, PluginSet(disabled=(Plugin("A", 5),)))
    assert merged.disabled == (Plugin("A"), Plugin("X"))


def test_merge_plugins_merges_every_point_and_none_keeps_the_defaults() -> None:
    defaults = default_plugins()
    assert merge_plugins(defaults, None) is defaults
    custom = plugins(score=plugin_set(("ImageLocality", 5)), multiPoint=plugin_set("MyGang"))
    merged = merge_plugins(defaults, custom)
    assert merged.score == plugin_set(("ImageLocality", 5))
    assert merged.multi_point.enabled[-1] == Plugin("MyGang")
    assert merged.multi_point.enabled[:-1] == defaults.multi_point.enabled


NAMES = [f"P{i}" for i in range(8)]


@given(
    disabled=st.sets(st.sampled_from(NAMES)),
    custom=st.lists(
        st.tuples(st.sampled_from([*NAMES, "U0", "U1", "U2"]), st.none() | st.integers(0, 9)),
        unique_by=lambda entry: entry[0],
    ),
)
def test_merging_keeps_default_order_appends_user_plugins_and_duplicates_nothing(
    disabled: set[str], custom: list[tuple[str, int | None]]
) -> None:
    defaults = PluginSet(enabled=tuple(Plugin(n, i) for i, n in enumerate(NAMES)))
    user = PluginSet(
        enabled=tuple(Plugin(n, w) for n, w in custom),
        disabled=tuple(Plugin(n) for n in sorted(disabled)),
    )
    merged = [p.name for p in merge_plugin_set(defaults, user).enabled]
    custom_names = [n for n, _ in custom]
    kept = [n for n in NAMES if n not in disabled]
    # Every default not disabled and every user plugin, each once.
    assert len(merged) == len(set(merged))
    assert set(merged) == set(kept) | set(custom_names)
    # The kept defaults come first, in default order; then the rest of the user's, in user order.
    assert merged[: len(kept)] == kept
    assert merged[len(kept) :] == [n for n in custom_names if n not in kept]
    # A user entry wins over the default of the same name (its weight is the user's).
    by_name = {p.name: p for p in merge_plugin_set(defaults, user).enabled}
    for name, weight in custom:
        assert by_name[name].weight == weight
