"""``python -m framework schedule``: your manifests, your configuration, your plugins.

The plugin author's loop: write a plugin, point the scheduler at it by import
path (``--plugin MyPlugin=my_package.my_module:new``, the command-line
counterpart of Go's ``app.WithPlugin``), enable it in a
``KubeSchedulerConfiguration``, and schedule a few manifests on the fake API
server to see where the pods go and why the others did not.

This was the simulator's first step; it is now ``simulate --output table``:
the same loader, the same run, the same report
(:mod:`framework.simulator`). Without ``--config`` the v1 default profile
runs; its plugins that this project does not implement yet are left out and
named in a note at the top of the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from framework.simulator.inputs import PluginSpecError, parse_plugin_spec
from framework.simulator.report import render_table
from framework.simulator.run import simulate

__all__ = ["PluginSpecError", "parse_plugin_spec", "schedule_files"]


def schedule_files(
    paths: Sequence[str | Path],
    *,
    config: str | Path | None = None,
    plugins: Sequence[str] = (),
    seed: int = 0,
) -> str:
    """Load, schedule, and return the report as text (:func:`~framework.simulator.simulate`'s table)."""
    return render_table(simulate(*paths, config=config, seed=seed, plugins=plugins))
