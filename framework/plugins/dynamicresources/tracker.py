"""What DynamicResources keeps of the cluster between cycles: claims, slices, classes.

kube's plugin never lists ResourceClaims per pod. Its DRA manager reads them
from informers, and ``allocatedDevices`` follows the claim informer's events
to keep the set of devices some allocation holds, so PreFilter takes a copy
of that set instead of walking every claim of the cluster. Listing and
sorting five thousand claims for every pod is what made this plugin scale
with the cluster's claims, not its nodes.

:class:`~framework.plugins.listers.ObjectTracker` is that informer, without a thread of its own: it
lists once, opens a watch from the list's resourceVersion, and on every
read applies what the watch has delivered since (``drain``), so a read sees
every change the API server committed before it (the in-memory server
delivers at commit). A stopped watch (the HTTP client's timeout) is listed
again. A client with no ``watch`` (a test's fake clientset) is listed at
every read. The plugin's own writes are applied at once (:meth:`~framework.plugins.listers.ObjectTracker.assume`,
kube's ``AssumeClaimAfterAPICall``) and an older event from the watch does
not undo them.

:class:`AllocatedDevices` counts, per device, the claims whose allocation
holds it (admin access holds nothing), from the tracker's changes.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``allocateddevices.go`` (``allocatedDevices``, ``foreachAllocatedDevice``) and the
listers of ``dra_manager.go`` (read at the index's copy of v1.34-era master,
commit ``030880a``). Simplified: a device held by two claims (only possible
when something else wrote them) stays taken until both let go, where kube's
set forgets it at the first; no consumable capacity (shared devices).
"""

from __future__ import annotations

import threading

from framework.objects.resource import ResourceClaim
from framework.plugins.dynamicresources.structured import DeviceID

__all__ = ["AllocatedDevices", "held_devices"]


def held_devices(claim: ResourceClaim) -> tuple[DeviceID, ...]:
    """The devices the claim's allocation holds for itself (``foreachAllocatedDevice``)."""
    allocation = claim.status.allocation
    if allocation is None:
        return ()
    return tuple(
        DeviceID(result.driver, result.pool, result.device)
        for result in allocation.devices.results
        if not result.admin_access  # admin access shares the device; it is not taken
    )


class AllocatedDevices:
    """How many claims hold each device, from a claim tracker's changes (``allocatedDevices``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders: dict[DeviceID, int] = {}

    def on_change(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        gone = held_devices(old) if old is not None else ()
        came = held_devices(new) if new is not None else ()
        if gone == came:
            return
        with self._lock:
            for device in gone:
                left = self._holders[device] - 1
                if left:
                    self._holders[device] = left
                else:
                    del self._holders[device]
            for device in came:
                self._holders[device] = self._holders.get(device, 0) + 1

    def get(self) -> set[DeviceID]:
        """A copy of the devices held (the caller adds the in-flight ones to it)."""
        with self._lock:
            return set(self._holders)

    def holders(self, device: DeviceID) -> int:
        with self._lock:
            return self._holders.get(device, 0)
