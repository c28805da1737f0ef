"""``python -m framework experiment race|pools``: one command per experiment, a table, by seed."""

from __future__ import annotations

import logging

import pytest

from framework.__main__ import main


def test_race_prints_the_story_and_one_row_per_load(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "race", "--pods", "16", "64", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "batch -> node-a, rejected: OutOfcpu" in out
    assert "Pod was rejected: Node didn't have enough resource: cpu" in out
    rows = [line for line in out.splitlines() if line.lstrip().startswith(("16 ", "64 "))]
    assert len(rows) == 2


def test_the_same_seed_prints_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    main(["experiment", "pools", "--pods", "6", "--seed", "2"])
    first = capsys.readouterr().out
    main(["experiment", "pools", "--pods", "6", "--seed", "2"])
    assert capsys.readouterr().out == first
    assert "pool=batch" in first


def test_a_negative_delay_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["experiment", "race", "--watch-delay", "-1"])
    assert "a delay cannot be negative" in capsys.readouterr().err


def test_the_race_options_are_refused_for_pools(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "pools", "--watch-delay", "0.1"]) == 2
    assert "--watch-delay: only for 'experiment race'" in capsys.readouterr().err


def test_the_command_leaves_the_loggers_as_it_found_them() -> None:
    logger = logging.getLogger("framework.runtime.build")
    before = logger.level
    main(["experiment", "pools", "--pods", "2"])
    assert logger.level == before
