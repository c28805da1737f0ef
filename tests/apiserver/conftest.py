"""Fixtures shared by the API server tests: a fake clock and a fresh server."""

from __future__ import annotations

import random

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from tests.apiserver.helpers import counting_uids


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(clock, uid_factory=counting_uids(), rng=random.Random(7))
