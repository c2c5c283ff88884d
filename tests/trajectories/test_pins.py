"""Seeded random games play exactly as they did before the engine speed-ups (see ``pins.py``)."""

from __future__ import annotations

import json

import pytest

from naval_env.core.ruleset import ruleset_ids

from .pins import PINS, case_key, cases, fingerprint

EXPECTED = json.loads(PINS.read_text())
CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case_key(*case) for case in CASES])
def test_game_plays_as_pinned(case: tuple[str, str, str, int]) -> None:
    key = case_key(*case)
    assert key in EXPECTED, f"{key} has no pin; regenerate pins.json from the old tree (see pins.py)"
    found = fingerprint(*case)
    changed = {name: (EXPECTED[key][name], value) for name, value in found.items() if EXPECTED[key][name] != value}
    assert not changed, f"{key} plays differently (pinned, now): {changed}"


def test_every_ruleset_is_pinned_by_engine_and_env_games() -> None:
    kinds = {(key.split("/")[0], key.split("/")[1]) for key in EXPECTED}
    assert kinds == {(kind, r) for r in ruleset_ids() for kind in ("engine", "env")}
