"""ImageLocality: image sizes scaled by spread, thresholds, name normalisation, in a scheduler.

The scoring table follows ``TestImageLocalityPriority`` and the names
``TestNormalizedImageName`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go``
(v1.33), in our own words; each case shows its arithmetic. Scores are taken
through a snapshot built by :func:`framework.cache.snapshot.new_snapshot`,
which computes how many nodes hold each image, as the Go test does.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.cache.snapshot import Snapshot, new_snapshot
from framework.clock import FakeClock
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.interface import ScorePlugin
from framework.node_info import ImageStateSummary, NodeInfo
from framework.objects import Node, Pod
from framework.plugins import imagelocality
from framework.plugins.imagelocality import (
    MAX_CONTAINER_THRESHOLD,
    MB,
    MIN_THRESHOLD,
    ImageLocality,
    calculate_priority,
    normalized_image_name,
    scaled_image_score,
)
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Code


class Handle:
    """Just enough framework handle: the snapshot."""

    def __init__(self, snapshot: Snapshot | None) -> None:
        self.snapshot = snapshot

    def snapshot_shared_lister(self) -> Snapshot | None:
        return self.snapshot


def make_pod(*images: str, init: tuple[str, ...] = ()) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": "pod1"},
            "spec": {
                "initContainers": [{"name": f"i{i}", "image": im} for i, im in enumerate(init)],
                "containers": [{"name": f"c{i}", "image": im} for i, im in enumerate(images)],
            },
        }
    )


def image(size_mb: int, *names: str) -> dict[str, Any]:
    return {"names": list(names), "sizeBytes": size_mb * MB}


def make_node(name: str, *images: dict[str, Any]) -> Node:
    return Node.from_dict({"metadata": {"name": name}, "status": {"images": list(images)}})


NODE_40_300_2000 = [
    image(40, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"),
    image(300, "gcr.io/300:latest", "gcr.io/300:v1"),
    image(2000, "gcr.io/2000:latest"),
]
NODE_250_10 = [image(250, "gcr.io/250:latest"), image(10, "gcr.io/10:latest", "gcr.io/10:v1")]
NODE_600_40_900 = [
    image(600, "gcr.io/600:latest"),
    image(40, "gcr.io/40:latest"),
    image(900, "gcr.io/900:latest"),
]
NODE_300_600_900 = [
    image(300, "gcr.io/300:latest"),
    image(600, "gcr.io/600:latest"),
    image(900, "gcr.io/900:latest"),
]
NODE_4000_30 = [image(4000, "gcr.io/4000:latest"), image(30, "gcr.io/30:latest")]
NODE_20_30_40 = [
    image(20, "gcr.io/20:latest"),
    image(30, "gcr.io/30:latest"),
    image(40, "gcr.io/40:latest"),
]

CASES = [
    pytest.param(
        make_pod("gcr.io/40", "gcr.io/250"),
        {"node1": NODE_40_300_2000, "node2": NODE_250_10},
        # node1: 40M/2 < 23M, the minimum: 0. node2: 100 * (250M/2 - 23M) / (2000M - 23M) = 5.
        {"node1": 0, "node2": 5},
        id="two images spread on two nodes, prefer the larger image one",
    ),
    pytest.param(
        make_pod("gcr.io/40", "gcr.io/300"),
        {"node1": NODE_40_300_2000, "node2": NODE_250_10},
        # node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7. node2: none present.
        {"node1": 7, "node2": 0},
        id="two images on one node, prefer this node",
    ),
    pytest.param(
        make_pod("gcr.io/300", "gcr.io/2000"),
        {"node1": NODE_40_300_2000, "node2": NODE_250_10},
        # node1: (300M + 2000M)/2 = 1150M, within [23M, 2000M]: 100 * 1127 / 1977 = 57.
        {"node1": 57, "node2": 0},
        id="large images on one node",
    ),
    pytest.param(
        make_pod("gcr.io/10", "gcr.io/4000"),
        {"node1": NODE_250_10, "node2": NODE_4000_30, "node3": []},
        # node1: 10M/3 < 23M: 0. node2: 4000M/3 = 1333M, within [23M, 2000M]: 66.
        {"node1": 0, "node2": 66, "node3": 0},
        id="each image on one node of three",
    ),
    pytest.param(
        make_pod("gcr.io/4000"),
        {"node1": NODE_4000_30},
        # 4000M on the only node is above 1000M * 1 container: clamped, 100.
        {"node1": 100},
        id="if exceed limit, use limit",
    ),
    pytest.param(
        make_pod("gcr.io/300", "gcr.io/600", "gcr.io/900"),
        {"node1": NODE_600_40_900, "node2": NODE_300_600_900, "node3": []},
        # node1: 100 * (600M * 2/3 + 900M * 2/3 - 23M) / (3000M - 23M) = 32.
        # node2: 100 * (300M * 1/3 + 600M * 2/3 + 900M * 2/3 - 23M) / (3000M - 23M) = 36.
        {"node1": 32, "node2": 36, "node3": 0},
        id="pod with multiple large images, node2 is preferred",
    ),
    pytest.param(
        make_pod("gcr.io/30", "gcr.io/40"),
        {"node1": NODE_20_30_40, "node2": NODE_4000_30, "node3": []},
        # node1: 100 * (30M * 2/3 + 40M * 1/3 - 23M) / (2000M - 23M) = 0 (10M over the minimum).
        # node2: 30M * 2/3 = 20M < 23M: 0.
        {"node1": 0, "node2": 0, "node3": 0},
        id="pod with multiple small images",
    ),
    pytest.param(
        make_pod("gcr.io/30", init=("gcr.io/300",)),
        {"node1": NODE_40_300_2000, "node2": NODE_20_30_40, "node3": []},
        # node1: 100 * (300M * 1/3 - 23M) / (2000M - 23M) = 3. node2: 30M/3 < 23M: 0.
        {"node1": 3, "node2": 0, "node3": 0},
        id="init containers count too",
    ),
    pytest.param(
        make_pod("gcr.io/300:v1"),
        {"node1": NODE_40_300_2000, "node2": []},
        # An explicit tag matches that name: 100 * (300M/2 - 23M) / (1000M - 23M) = 12.99: 12.
        {"node1": 12, "node2": 0},
        id="a tagged image matches that tag",
    ),
]


def scores(pod: Pod, nodes: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    snapshot = new_snapshot([], [make_node(name, *images) for name, images in nodes.items()])
    plugin = ImageLocality(Handle(snapshot))
    result = {}
    for name in nodes:
        score, status = plugin.score(CycleState(), pod, snapshot.get(name))
        assert status is None
        result[name] = score
    return result


@pytest.mark.parametrize(("pod", "nodes", "expected"), CASES)
def test_score(pod: Pod, nodes: dict[str, list[dict[str, Any]]], expected: dict[str, int]) -> None:
    assert scores(pod, nodes) == expected


NAME_CASES = [
    pytest.param("root", "root:latest", id="add :latest postfix 1"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
    pytest.param("root:tag", "root:tag", id="keep it as is 1"),
    pytest.param(
        "root@sha256:" + "a" * 64, "root@sha256:" + "a" * 64, id="keep it as is 2 (a digest)"
    ),
]


@pytest.mark.parametrize(("name", "normalized"), NAME_CASES)
def test_normalized_image_name(name: str, normalized: str) -> None:
    assert normalized_image_name(name) == normalized


def test_the_thresholds_are_kubernetes_constants() -> None:
    assert (MB, MIN_THRESHOLD, MAX_CONTAINER_THRESHOLD) == (2**20, 23 * 2**20, 1000 * 2**20)


def test_calculate_priority_clamps_into_the_thresholds() -> None:
    assert calculate_priority(0, 1) == 0
    assert calculate_priority(MIN_THRESHOLD, 1) == 0
    assert calculate_priority(MAX_CONTAINER_THRESHOLD * 5, 2) == 100
    assert calculate_priority(0, 0) == 0  # no containers at all: nothing to gain


def test_the_spread_factor_is_computed_in_floating_point_as_go_does() -> None:
    # 100 bytes on 29 nodes of 100: 100.0 * 0.29 is 28.999999999999996, so 28, where
    # exact integer arithmetic (100 * 29 // 100) would say 29.
    assert scaled_image_score(ImageStateSummary(size=100, num_nodes=29), 100) == 28
    assert scaled_image_score(ImageStateSummary(size=3 * MB, num_nodes=1), 3) == MB


def test_without_a_snapshot_score_is_an_error() -> None:
    score, status = ImageLocality(Handle(None)).score(CycleState(), make_pod("x"), NodeInfo())
    assert score == 0 and status is not None and status.code is Code.ERROR


def test_the_plugin_is_a_score_plugin_without_normalize_registered_in_tree() -> None:
    plugin = imagelocality.new(None, None)
    assert isinstance(plugin, ScorePlugin)
    assert plugin.score_extensions() is None
    assert plugin.name() == imagelocality.NAME == "ImageLocality"
    assert in_tree_registry()["ImageLocality"] is imagelocality.new


# --- In a scheduler -------------------------------------------------------------------------

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: ImageLocality}, {name: DefaultBinder}]
"""


def test_the_pod_goes_where_its_big_image_already_is() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    api.create(make_node("empty-1"))
    api.create(make_node("warm", image(800, "registry.example/ml/trainer:latest")))
    api.create(make_node("empty-2"))
    api.create(
        Pod.from_dict(
            {
                "metadata": {"name": "train"},
                "spec": {"containers": [{"name": "c", "image": "registry.example/ml/trainer"}]},
            }
        )
    )
    # The cache counts the image on 1 node of 3: 100 * (800M/3 - 23M) / (1000M - 23M) = 24.
    sched = Scheduler(api, loads_config(CONFIG, "images.yaml"), in_tree_registry(), clock=clock)
    sched.schedule_pending()
    sched.stop()
    assert api.get(Pod, "train", namespace="default").spec.node_name == "warm"
    assert sched.snapshot.get("warm").image_states["registry.example/ml/trainer:latest"] == (
        ImageStateSummary(800 * MB, 1)
    )
