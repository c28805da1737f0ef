"""Chapter 11, wrong on purpose:

name every node of a group; at most MAX_NODES_NAMED, then how many more (hint 4). Must fail.
"""

from __future__ import annotations

from tests.exercise_variants import variant_namespace

diagnose = variant_namespace("11_pending", "right")["make"](name_every_node=True)
