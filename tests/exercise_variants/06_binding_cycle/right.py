"""Chapter 6 done right: NodeSlotStamp's Unreserve and PreBind. Must pass.

:func:`make` builds the module's names; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from typing import Any

from framework.apiserver.errors import APIError, Conflict
from framework.cycle_state import NotFound
from framework.objects import Pod
from framework.status import Status
from tests.exercise_variants import skeleton_namespace


def make(
    *,
    unreserve_insists: bool = False,
    writes_the_schedulers_copy: bool = False,
    conflict_is_final: bool = False,
) -> dict[str, Any]:
    given = skeleton_namespace("06_binding_cycle")
    skeleton: Any = given["NodeSlotStamp"]
    state_key: str = given["STATE_KEY"]
    slot_state: Any = given["SlotState"]
    annotation: str = given["SLOT_ANNOTATION"]
    retries: int = given["MAX_CONFLICT_RETRIES"]

    def failed(pod: Any, slot: int, error: APIError) -> Any:
        return Status.as_error(RuntimeError(f"stamping slot {slot} on pod {pod.key}: {error}"))

    class NodeSlotStamp(skeleton):  # type: ignore[misc,valid-type]
        def unreserve(self, state: Any, pod: Any, node_name: str) -> None:
            with self._lock:
                if unreserve_insists:
                    del self._held[pod.metadata.uid]
                else:
                    self._held.pop(pod.metadata.uid, None)

        def pre_bind(self, state: Any, pod: Any, node_name: str) -> Any:
            try:
                chosen = state.read_as(state_key, slot_state)
            except NotFound:
                return None
            client = self._handle.client()
            last: APIError | None = None
            for _ in range(1 if conflict_is_final else retries):
                try:
                    current = (
                        pod
                        if writes_the_schedulers_copy
                        else client.get(Pod, pod.name, namespace=pod.namespace)
                    )
                    annotations = {**current.metadata.annotations, annotation: str(chosen.slot)}
                    client.update(current.with_metadata(annotations=annotations))
                    return None
                except Conflict as error:
                    last = error
                except APIError as error:
                    return failed(pod, chosen.slot, error)
            assert last is not None
            return failed(pod, chosen.slot, last)

    def new(args: Any, handle: Any) -> Any:
        return NodeSlotStamp(handle)

    return {**given, "NodeSlotStamp": NodeSlotStamp, "new": new}


globals().update(make())
