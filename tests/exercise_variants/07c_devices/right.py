"""Chapter 7c done right: GatherPools. Must pass.

:func:`make` builds ``gather_pools``; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("07c_devices")
AllocationError: Any = _given["AllocationError"]
Pool: Any = _given["Pool"]
slice_reaches: Any = _given["slice_reaches"]


def make(*, every_generation: bool = False, never_incomplete: bool = False) -> dict[str, Any]:
    def gather_pools(slices: Any, node: Any) -> list[Any]:
        pools: dict[tuple[str, str], Any] = {}
        for resource_slice in slices:
            if not slice_reaches(resource_slice, node):
                continue
            spec = resource_slice.spec
            key = (spec.driver, spec.pool.name)
            pool = pools.get(key)
            newer = pool is None or spec.pool.generation > pool.generation
            if newer and not (every_generation and pool is not None):
                pools[key] = Pool(
                    spec.driver, spec.pool.name, spec.pool.generation, [resource_slice]
                )
            elif every_generation or spec.pool.generation == pool.generation:
                pool.slices.append(resource_slice)
        for pool in pools.values():
            expected = pool.slices[0].spec.pool.resource_slice_count
            pool.incomplete = False if never_incomplete else len(pool.slices) < expected
            names = [d.name for s in pool.slices for d in s.spec.devices]
            if len(names) != len(set(names)):
                raise AllocationError(f"invalid resource pools were encountered: {pool.name}")
        return [pools[key] for key in sorted(pools)]

    made: dict[str, Callable[..., Any]] = {"gather_pools": gather_pools}
    return {**made, "AllocationError": AllocationError, "Pool": Pool}


globals().update(make())
