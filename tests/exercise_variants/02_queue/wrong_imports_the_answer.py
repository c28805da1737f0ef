"""Chapter 2, wrong on purpose:

import the reference's QOSSort instead of writing one. Must fail.
"""

from __future__ import annotations

from typing import Any

from framework.plugins.qos import QOSSort
from tests.exercise_variants import skeleton_namespace

globals().update({**skeleton_namespace("02_queue"), "QOSSort": QOSSort})


def new(args: Any, handle: Any) -> QOSSort:
    return QOSSort()
