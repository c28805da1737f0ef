"""End to end: DynamicResources' Score sends a ``firstAvailable`` claim to the node with its first choice.

The pod's claim asks for a big GPU, else a small one. Node ``gpu-small``
holds the pod's image (ImageLocality prefers it by a few points); node
``gpu-big`` has the big GPU. A v1.34 scheduler has no DynamicResources Score
and follows the image; from v1.35 (kubernetes#134711, ``dynamicresources.go``
``Score``/``computeScore``/``NormalizeScore``) the big GPU scores 8 against
7, normalised to 100 against 87, and outweighs the image.
"""

from __future__ import annotations

import pytest

from framework.simulator import simulate

IMAGE = "trainer:v1"


def node(name: str, *, image: bool) -> str:
    images = f"images: [{{names: [{IMAGE}], sizeBytes: 120000000}}]" if image else "images: []"
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "16", memory: 64Gi, pods: "110"}}
  {images}
"""


def gpu_slice(node_name: str, model: str) -> str:
    return f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node_name}-gpu.example.com}}
spec:
  driver: gpu.example.com
  nodeName: {node_name}
  pool: {{name: {node_name}, generation: 1, resourceSliceCount: 1}}
  devices: [{{name: gpu-0, attributes: {{model: {{string: {model}}}}}}}]
"""


def device_class(model: str) -> str:
    return f"""---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {model}-gpu}}
spec:
  selectors:
  - cel: {{expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "{model}"'}}
"""


CLUSTER = (
    node("gpu-big", image=False)
    + node("gpu-small", image=True)
    + gpu_slice("gpu-big", "big")
    + gpu_slice("gpu-small", "small")
    + device_class("big")
    + device_class("small")
)

TEMPLATE = """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: big-else-small}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: big-gpu}
        - {name: small, deviceClassName: small-gpu}
"""

POD = f"""---
apiVersion: v1
kind: Pod
metadata: {{name: train}}
spec:
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: big-else-small}}]
  containers:
  - name: train
    image: {IMAGE}
    resources: {{requests: {{cpu: 100m}}, claims: [{{name: gpu}}]}}
"""


@pytest.mark.parametrize("engine", ["reference", "both"])
def test_the_preferred_device_outweighs_the_image_from_v1_35(engine: str) -> None:
    result = simulate(CLUSTER, TEMPLATE, POD, emulated_version="1.37", engine=engine)
    assert result.placements == {"default/train": "gpu-big"}


def test_before_v1_35_the_image_decides() -> None:
    result = simulate(CLUSTER, TEMPLATE, POD, emulated_version="1.34")
    assert result.placements == {"default/train": "gpu-small"}


@pytest.mark.parametrize(("version", "weight"), [("1.34", None), ("1.35", 1), ("1.37", 1)])
def test_a_score_plugin_of_weight_1_from_v1_35(version: str, weight: int | None) -> None:
    # DynamicResources is in the default multiPoint list without a weight: a Score plugin
    # there gets 1. Before v1.35 it does not score at all.
    result = simulate(CLUSTER, TEMPLATE, POD, emulated_version=version)
    assert result.score_weights["default-scheduler"].get("DynamicResources") == weight
    (attempt,) = result.attempts
    assert ("DynamicResources" in attempt.score["gpu-big"]) is (weight is not None)
