"""The captain zoo: shipped captains fit their rulesets and play legal games; difficulty levels; stale entries fail loudly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import RandomCaptain
from naval_agents.captains.registry import LEVELS, captain_names, make_captain, scripted_names
from naval_agents.captains.search import SearchCaptain
from naval_agents.captains.zoo import ZooError, load_zoo_captain, zoo_rulesets
from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR, card_path
from naval_agents.captains.zoo.levels import MixedCaptain, levels_of
from naval_agents.export.conformance import check_conformance
from naval_agents.zoo.card import read_facts, render_card
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

SHIPPED = zoo_rulesets()


def test_every_built_in_ruleset_ships_a_zoo_captain_and_its_value_network() -> None:
    import naval_env.rulesets

    folder = Path(naval_env.rulesets.__file__).parent
    built_in = {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    assert built_in and built_in <= set(ruleset_ids())
    assert set(SHIPPED) == built_in
    assert all((CAPTAINS_DIR / f"{ruleset_id}.value.npz").is_file() for ruleset_id in built_in)


def test_a_ruleset_without_a_shipped_captain_plays_and_is_told_how_to_build_one(tmp_path: Path) -> None:
    """A new ruleset need not ship a trained captain (docs/contract.md): ``zoo`` is refused with the command."""
    with pytest.raises(ZooError, match=r"no zoo captain ships for ruleset 'pursuit' \(have: none\); build one with: "
                                       r"naval-tactics zoo build --ruleset pursuit"):
        load_zoo_captain("pursuit", directory=tmp_path)


@pytest.mark.parametrize("ruleset_id", SHIPPED)
def test_a_shipped_captain_fits_its_ruleset_and_plays_legal_games(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    captain = load_zoo_captain(ruleset_id, config)
    assert captain.ruleset_version == ruleset.version
    for scenario in ruleset.scenarios(config):
        match = Match(ruleset_id, config, scenario, illegal_action="raise")  # an illegal move raises
        record = play_game(match, {side: c for side, c in zip(match.game.sides, (
            captain, RandomCaptain(match.action_spec)))}, seed=3)
        assert record.decisions > 0 and match.game.is_over


@pytest.mark.parametrize("ruleset_id", SHIPPED)
def test_a_shipped_captain_is_small_and_its_conformance_vectors_reproduce(ruleset_id: str) -> None:
    value = CAPTAINS_DIR / f"{ruleset_id}.value.npz"   # expert's value network, bounded on its own
    total = sum(p.stat().st_size for p in CAPTAINS_DIR.glob(f"{ruleset_id}.*") if p != value)
    assert total < 3 * 2**20, f"{ruleset_id}'s zoo entry takes {total} bytes"
    assert value.stat().st_size < 2**20, f"{ruleset_id}'s value network takes {value.stat().st_size} bytes"
    report = check_conformance(CAPTAINS_DIR / f"{ruleset_id}.conformance.json",
                               captain=load_zoo_captain(ruleset_id))
    assert report.ok and report.actions_checked and report.vectors == 100, report


@pytest.mark.parametrize("ruleset_id", SHIPPED)
def test_the_card_gives_the_command_and_the_measured_win_rates(ruleset_id: str) -> None:
    facts = read_facts(ruleset_id)
    assert facts["ruleset_version"] == get_ruleset(ruleset_id).version
    rebuild, _, config = facts["rebuild_command"].partition(" --config ")
    assert rebuild == f"naval-tactics zoo build --ruleset {ruleset_id}"
    assert f"python train.py --config configs/train/{config or ruleset_id}.yaml " in facts["training"]["command"]
    evaluation = facts["evaluation"]
    assert evaluation["seeds"] >= 400
    rivals = {p["b"] for p in evaluation["pairings"]}
    scripted = set(scripted_names(ruleset_id)) - {"random"}
    assert rivals == scripted
    for pairing in evaluation["pairings"]:
        assert pairing["games"] == 2 * evaluation["seeds"]
        assert pairing["ci_low"] <= pairing["win_rate"] <= pairing["ci_high"]
    card = card_path(ruleset_id).read_text(encoding="utf-8")
    assert card == render_card(facts)
    assert evaluation["command"] in card


def test_a_stale_zoo_captain_fails_loudly_with_what_to_rerun(tmp_path: Path) -> None:
    for path in CAPTAINS_DIR.glob("pantheon.*"):
        shutil.copy(path, tmp_path / path.name)
    sidecar = tmp_path / "pantheon.json"
    data = json.loads(sidecar.read_text())
    data["ruleset"]["version"] = "0.9"
    sidecar.write_text(json.dumps(data))
    with pytest.raises(ZooError, match=r"stale: .*version '0.9'.*rebuild it with: naval-tactics zoo build --ruleset pantheon"):
        load_zoo_captain("pantheon", directory=tmp_path)
    with pytest.raises(ZooError, match="no zoo captain ships for ruleset 'crew_phase'.*naval-tactics zoo build"):
        load_zoo_captain("crew_phase", directory=tmp_path)


@pytest.mark.parametrize("ruleset_id", SHIPPED)
def test_every_level_is_a_captain_name(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    spec = ruleset.action_spec(config)
    levels = levels_of(ruleset_id)
    temperatures = [getattr(levels, name).temperature for name in LEVELS]
    assert temperatures == sorted(temperatures, reverse=True) and temperatures[-1] == 0.0, \
        "easier levels sample from a flatter policy; expert plays its most likely moves"
    for name in LEVELS:
        captain = make_captain(name, ruleset_id, spec, seed=1, config=config)
        if name == "expert":   # the zoo captain searched (agents/captains/zoo/levels.yaml): no temperature, no random moves
            assert isinstance(captain, SearchCaptain) and captain.name == name and captain.simulations == 256
            continue
        assert isinstance(captain, MixedCaptain) and captain.name == name
        assert captain.random_share == 0.0, "no shipped level plays uniformly random moves"
        level = getattr(levels, name)
        assert getattr(captain.base, "temperature", 0.0) == level.temperature
    assert {"zoo", *LEVELS} <= set(captain_names(ruleset_id))


def _actions(captain, ruleset_id: str, seed: int) -> list[list[int]]:
    match = Match(ruleset_id, None, None)
    record = play_game(match, {side: captain for side in match.game.sides}, seed=seed)
    return [action for _, action in record.actions]


def test_a_mixed_captain_replays_from_its_seed_and_its_share_is_its_random_moves() -> None:
    ruleset = get_ruleset("pantheon")
    config = ruleset.load_config()
    spec = ruleset.action_spec(config)
    zoo = make_captain("zoo", "pantheon", spec, config=config)
    assert _actions(make_captain("mixed:zoo:0.0", "pantheon", spec, config=config), "pantheon", 4) == \
        _actions(zoo, "pantheon", 4)
    half = make_captain("mixed:zoo:0.5", "pantheon", spec, config=config)
    replayed = _actions(half, "pantheon", 4)
    assert replayed == _actions(half, "pantheon", 4)   # the same captain again
    assert replayed == _actions(make_captain("mixed:zoo:0.5", "pantheon", spec, config=config), "pantheon", 4)
    assert replayed != _actions(zoo, "pantheon", 4)    # its random moves are in the game replayed
    # Share 0.5: about half the decisions with a real choice differ from the base captain's in the same position.
    match = Match("pantheon", config, "duel")
    same = total = 0
    rng = np.random.default_rng(0)
    seed = 0
    while total < 300:
        match.reset(seed)
        half.reset(seed)
        game = match.game
        while not game.is_over:
            agent = game.current_agent
            decision = match.decision(agent, half)
            if int(decision.action_mask.sum()) > len(spec.components) + 2:  # a real choice
                same += int(np.array_equal(half.act(decision), zoo.act(decision)))
                total += 1
            game.apply(agent, spec.sample(decision.action_mask, rng))
        seed += 1
    assert 0.35 < 1 - same / total < 0.6


@pytest.mark.parametrize("bad", ["mixed:zoo:1.5", "mixed:zoo:x", "mixed::0.5", "mixed:nosuch:0.5"])
def test_a_bad_mixed_captain_is_refused_with_the_form(bad: str) -> None:
    spec = get_ruleset("pantheon").action_spec(get_ruleset("pantheon").load_config())
    with pytest.raises(ValueError, match="mixed:BASE:SHARE|unknown captain 'nosuch'"):
        make_captain(bad, "pantheon", spec)


def test_the_ladder_aims_for_70_percent_steps_or_three_equal_steps_of_a_narrow_range() -> None:
    from naval_agents.zoo.ladder import step_target

    assert step_target(0.99) == 0.70
    assert step_target(0.85) == pytest.approx(0.6407, abs=1e-4)  # logit(0.85) / 3 = 0.578
    # Three steps of the returned size add up to the range on the logistic scale.
    import math

    logit = lambda p: math.log(p / (1 - p))
    assert 3 * logit(step_target(0.85)) == pytest.approx(logit(0.85))
