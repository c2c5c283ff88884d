"""Difficulty by sampling temperature: the zoo policy's own preferences, sharpened or flattened, never a masked move."""

from __future__ import annotations

import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.captains.zoo.levels import Level, TemperatureCaptain, level_captain
from naval_env.core.errors import ConfigError
from naval_env.envs.match import Match


@pytest.fixture(scope="module")
def match():
    return Match("pantheon", None, "duel", "raise")


def decisions(match, count=30):
    """Decisions of a seeded game between scripted captains."""
    gunner = {side: make_captain("gunner", "pantheon", match.action_spec) for side in match.game.sides}
    found = []
    match.reset(3)
    while not match.game.is_over and len(found) < count:
        agent = match.game.current_agent
        decision = match.decision(agent)
        found.append(decision)
        match.game.apply(agent, gunner[match.game.side_of(agent)].act(decision))
    return found


def test_a_tempered_move_is_always_legal_and_a_cold_one_is_the_policys_favourite(match):
    zoo = make_captain("zoo", "pantheon", match.action_spec)
    hot = TemperatureCaptain(zoo, 50.0, "hot", seed=1)
    cold = TemperatureCaptain(zoo, 0.01, "cold", seed=1)
    seen = decisions(match)
    assert seen, "the seeded game gave no decision to check"
    for decision in seen:
        action = hot.act(decision)
        assert np.asarray(decision.action_mask)[np.asarray(match.action_spec.offsets) + action].all()
        assert np.array_equal(cold.act(decision), zoo.act(decision))


def test_a_tempered_game_replays_from_its_seed(match):
    zoo = make_captain("zoo", "pantheon", match.action_spec)
    level = level_captain(zoo, Level(base="zoo", temperature=2.0), match.action_spec, "normal")
    other = make_captain("gunner", "pantheon", match.action_spec)
    first = play_game(match, {"red": level, "blue": other}, 12)
    again = play_game(match, {"red": level, "blue": other}, 12)
    assert first.actions == again.actions


def test_a_captain_without_probabilities_cannot_be_tempered(match):
    with pytest.raises(ConfigError, match="gives no move probabilities"):
        TemperatureCaptain(make_captain("gunner", "pantheon", match.action_spec), 1.0, "x")


def test_a_level_refuses_a_temperature_out_of_range():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="less than or equal to 100"):
        Level(base="zoo", temperature=1000)


def test_a_temperature_level_plays_on_the_onnx_captain_without_torch():
    import subprocess
    import sys
    from pathlib import Path

    code = """
import sys
from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.captains.zoo.levels import TemperatureCaptain, levels_of
from naval_env.envs.match import Match
match = Match("pantheon")
hard = make_captain("hard", "pantheon", match.action_spec, seed=1)
assert isinstance(hard.base, TemperatureCaptain), type(hard.base)
assert hard.base.temperature == levels_of("pantheon").hard.temperature > 0
assert type(hard.base.base).__name__ == "OnnxCaptain", type(hard.base.base)
play_game(match, {"red": hard, "blue": make_captain("gunner", "pantheon", match.action_spec)}, seed=1)
assert match.game.is_over
assert "torch" not in sys.modules, "torch was imported"
print("ok")
"""
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


def test_a_tempered_captain_name_plays_at_its_temperature_and_a_bad_one_names_the_form(match):
    captain = make_captain("tempered:zoo:2.5", "pantheon", match.action_spec, seed=1)
    assert isinstance(captain, TemperatureCaptain) and captain.temperature == 2.5
    assert type(make_captain("tempered:zoo:0", "pantheon", match.action_spec)).__name__ == "OnnxCaptain"
    for bad in ("tempered:zoo:hot", "tempered:zoo:101", "tempered::1"):
        with pytest.raises(ValueError, match="write tempered:BASE:T with T from 0 to 100"):
            make_captain(bad, "pantheon", match.action_spec)
