"""``python -m framework schedule``: out-of-tree plugins registered by import path, from the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from framework.__main__ import main
from framework.cli.schedule import PluginSpecError, parse_plugin_spec, schedule_files

PLUGIN = '''
from framework.status import Status

class OnlyEven:
    """Filter: pods may only go to nodes whose name ends with an even digit."""

    def name(self):
        return "OnlyEven"

    def filter(self, state, pod, node_info):
        if int(node_info.name[-1]) % 2:
            return Status.unschedulable("node name is odd")
        return None

def new(args, handle):
    return OnlyEven()
'''

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: OnlyEven}, {name: DefaultBinder}]
"""

MANIFESTS = """
kind: Node
metadata: {name: node-1}
---
kind: Node
metadata: {name: node-2}
---
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: app, image: nginx}]}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my_plugins.py").write_text(PLUGIN)
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "cluster.yaml").write_text(MANIFESTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("my_plugins", None)


def test_an_out_of_tree_plugin_named_on_the_command_line_decides(project: Path) -> None:
    report = schedule_files(
        [project / "cluster.yaml"],
        config=project / "config.yaml",
        plugins=["OnlyEven=my_plugins:new"],
    )
    assert "shop/web" in report and "node-2" in report
    assert "Successfully assigned shop/web to node-2" in report


def test_the_cli_reports_bad_plugin_specs_without_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["schedule", str(project / "cluster.yaml"), "--config", str(project / "config.yaml")]
    assert main([*args, "--plugin", "OnlyEven=no_such_module:new"]) == 2
    assert "no module named 'no_such_module'" in capsys.readouterr().err
    assert main(args) == 2  # OnlyEven is enabled but not registered
    assert 'OnlyEven" does not exist' in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["OnlyEven", "=m:f", "OnlyEven=module_without_attr"])
def test_plugin_specs_must_name_a_plugin_and_a_factory(spec: str) -> None:
    with pytest.raises(PluginSpecError, match=r"expected NAME=package\.module:attribute"):
        parse_plugin_spec(spec)


def test_without_a_config_the_default_profile_runs_whole(project: Path) -> None:
    report = schedule_files([project / "cluster.yaml"])
    assert "left out" not in report  # every plugin of v1.33's default profile runs
    # These nodes state no allocatable resources: NodeResourcesFit sees room for no pod at all,
    # and DefaultPreemption finds no lower-priority pod to evict.
    assert (
        "0/2 nodes are available: 2 Too many pods. no new claims to deallocate, preemption: 0/2 nodes are available: "
        "2 No preemption victims found for incoming pod." in report
    )


def test_help_lists_no_plugin_as_not_implemented(capsys: pytest.CaptureFixture[str]) -> None:
    # Since DynamicResources (issue 19) the whole default profile is implemented: the
    # help's "Not implemented yet" line is gone with the last plugin it named.
    with pytest.raises(SystemExit):
        main(["schedule", "--help"])
    out = capsys.readouterr().out
    assert "Not implemented yet" not in out
    assert "DynamicResources" not in out
