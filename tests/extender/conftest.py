from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.extender.fake_extender import FakeExtender


@pytest.fixture
def fake_extender() -> Iterator[FakeExtender]:
    extender = FakeExtender()
    try:
        yield extender
    finally:
        extender.close()
