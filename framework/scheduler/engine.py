"""Which engine runs the Filter and Score loops: the reference, the batch engine, or both, compared.

The **reference** engine (:class:`~framework.scheduler.algorithm.SchedulingAlgorithm`)
is the code the book quotes: one node, one plugin, one call at a time, as
kube-scheduler's ``schedule_one.go`` reads. The **batch** engine
(:mod:`framework.batch`) reaches the same decisions with arrays, and is what
``simulate``, ``bench``, ``serve`` and ``run`` use unless told otherwise.
**both** runs the two in every cycle and fails loudly at any difference.

``KSF_ENGINE`` in the environment changes the programs' default (the test
suite runs whole directories with ``KSF_ENGINE=both``); a ``Scheduler`` built
in Python uses the reference unless given ``engine=``. The batch engine, and
numpy with it, is imported only when chosen, so ``import framework`` stays
light.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when called: the command-line parsers read this module too
    from framework.scheduler.algorithm import SchedulingAlgorithm

__all__ = [
    "ENGINES",
    "ENGINE_ENV",
    "add_engine_argument",
    "default_engine",
    "new_scheduling_algorithm",
]

ENGINES = ("reference", "batch", "both")
ENGINE_ENV = "KSF_ENGINE"


def default_engine() -> str:
    """The programs' engine: ``$KSF_ENGINE`` if set, else ``batch``."""
    engine = os.environ.get(ENGINE_ENV, "") or "batch"
    if engine not in ENGINES:
        raise ValueError(f"{ENGINE_ENV}={engine!r}: want one of {', '.join(ENGINES)}")
    return engine


def add_engine_argument(parser: Any) -> None:
    """``--engine reference|batch|both`` on a command's argparse parser (default: :func:`default_engine`)."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="who runs the Filter and Score loops: the book's reference code, the batch engine "
        "(numpy; the same decisions), or both, compared on every cycle (default: batch, or "
        f"${ENGINE_ENV})",
    )


def new_scheduling_algorithm(
    engine: str,
    percentage_of_nodes_to_score: int = 0,
    rng: random.Random | None = None,
    extenders: Sequence[Any] | None = None,
) -> SchedulingAlgorithm:
    """The scheduling algorithm of that engine."""
    from framework.scheduler.algorithm import SchedulingAlgorithm

    extender_list = list(extenders or [])
    if engine == "reference":
        return SchedulingAlgorithm(percentage_of_nodes_to_score, rng, extender_list)
    if engine == "batch":
        from framework.batch.engine import BatchSchedulingAlgorithm

        return BatchSchedulingAlgorithm(percentage_of_nodes_to_score, rng, extender_list)
    if engine == "both":
        from framework.batch.engine import DifferentialSchedulingAlgorithm

        return DifferentialSchedulingAlgorithm(percentage_of_nodes_to_score, rng, extender_list)
    raise ValueError(f"unknown engine {engine!r}: want one of {', '.join(ENGINES)}")
