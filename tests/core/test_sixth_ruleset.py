"""A sixth ruleset from one folder: `skirmish` (examples/ruleset_template/skirmish/, its config inside) is
registered by the fixture below and every floor above the rules plays it by id: the Gymnasium and PettingZoo
checkers, its rules with scripted dice, positions, clones, determinism, evaluation, the captain server's
decide, the replay viewer, ship cards, option explanations and an export's observation notes. Nothing
outside its folder names it (checked last), and the fixture always takes it back out of the registry:
other tests iterate ``ruleset_ids()``.

Evaluation plays in this process and in two spawned worker processes, which register the toy from the ruleset
object the tournament's set-up carries (``naval_agents/evaluation/workers.py``)."""

from __future__ import annotations

import importlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from fastapi.testclient import TestClient
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from rich.console import Console

import naval_env
from naval_agents.captains.arena import play_game
from naval_agents.captains.base import RandomCaptain
from naval_agents.captains.registry import make_captain, scripted_names
from naval_agents.evaluation.replay import write_replay
from naval_agents.evaluation.tournament import build_tournament, evaluate
from naval_agents.export.derivation import describe_observation
from naval_env.core.dice import ScriptedDice
from naval_env.core.errors import IllegalActionError
from naval_env.core.events import DamageDealt, GameEnded
from naval_env.core.game import Game
from naval_env.core.moves import decode, encode, legal_options
from naval_env.core.position import PositionError
from naval_env.core.ruleset import Ruleset, get_ruleset, ruleset_ids
from naval_env.envs.match import Match
from naval_tactics.cards import ship_cards
from naval_tactics.decisions import decision_for
from naval_tactics.explain import Explainer
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.viewer import replay_to_html

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "ruleset_template"
SCENARIOS = ("duel", "pair")


@pytest.fixture(scope="module", autouse=True)
def skirmish() -> Iterator[ModuleType]:
    """The toy ruleset's package, registered (with its Gymnasium id) for this module's tests only."""
    sys.path.insert(0, str(TEMPLATE))
    try:
        package = importlib.import_module("skirmish")
        naval_env.register_ruleset(package.RULESET)
        try:
            yield package
        finally:
            naval_env.unregister_ruleset("skirmish")
    finally:
        sys.path.remove(str(TEMPLATE))
        for name in [m for m in sys.modules if m == "skirmish" or m.startswith("skirmish.")]:
            del sys.modules[name]
    assert "skirmish" not in ruleset_ids() and "naval/Skirmish-v0" not in gym.registry


def ruleset() -> Ruleset:
    return get_ruleset("skirmish")


def loaded(position: dict[str, Any], *faces: int) -> Game:
    """The game in a short-form duel ``position``, rolling exactly ``faces``."""
    return ruleset().load_position({"ruleset": "skirmish", "scenario": "duel", **position},
                                   dice=ScriptedDice(faces))


def move(game: Game, shot: str = "hold", maneuver: str = "hold") -> list[Any]:
    agent = game.current_agent
    assert agent is not None
    return game.apply(agent, encode(game.action_spec, {"shot": shot, "maneuver": maneuver}, game.legal_mask(agent)))


def random_actions(game: Game, seed: int, decisions: int) -> list[tuple[str, np.ndarray]]:
    """Play up to ``decisions`` random legal moves on ``game``; the moves played."""
    rng = np.random.default_rng(seed)
    played: list[tuple[str, np.ndarray]] = []
    while not game.is_over and len(played) < decisions:
        agent = game.current_agent
        assert agent is not None
        action = game.action_spec.sample(game.legal_mask(agent), rng)
        game.apply(agent, action)
        played.append((agent, action))
    return played


# ------------------------------------------------------------------ the libraries' checkers
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_gymnasium_checker_passes(scenario: str, mask_in_obs: bool) -> None:
    env = gym.make("naval/Skirmish-v0", scenario=scenario, mask_in_obs=mask_in_obs)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_aec_and_parallel_api(skirmish: ModuleType, scenario: str) -> None:
    api_test(skirmish.env(scenario=scenario), num_cycles=200)
    seed_test(lambda: skirmish.env(scenario=scenario), num_cycles=50)
    parallel_api_test(skirmish.parallel_env(scenario=scenario), num_cycles=200)
    parallel_seed_test(lambda: skirmish.parallel_env(scenario=scenario), num_cycles=50)


def test_masks_match_the_engine_and_invariants_hold_in_random_games(skirmish: ModuleType) -> None:
    check_invariants = importlib.import_module("skirmish.engine").check_invariants
    config = ruleset().load_config()
    for scenario in SCENARIOS:
        for seed in range(6):
            game = ruleset().new_game(config, scenario, seed=seed)
            rng = np.random.default_rng(seed)
            while not game.is_over:
                check_invariants(game)
                agent = game.current_agent
                assert agent is not None
                mask = game.legal_mask(agent)
                for index in np.flatnonzero(~mask):   # every masked-out value is refused, the state untouched
                    component = int(np.searchsorted(game.action_spec.offsets, index, side="right")) - 1
                    action = game.action_spec.noop()
                    action[component] = index - game.action_spec.offsets[component]
                    before = game.state_dict()
                    with pytest.raises(IllegalActionError):
                        game.apply(agent, action)
                    assert game.state_dict() == before
                game.apply(agent, game.action_spec.sample(mask, rng))
            check_invariants(game)
            assert game.current_agent is None and json.dumps(game.state_dict())


# ------------------------------------------------------------------ rules, with scripted dice
def test_a_shot_hits_on_a_scripted_5_and_misses_on_a_2() -> None:
    game = loaded({"ships": [{"id": "red_0", "cell": 3}, {"id": "blue_0", "cell": 6}]}, 5, 2)
    assert game.current_agent == "red_0"
    assert legal_options(game)["shot"] == ["hold", "fire@enemy0"]        # 3 cells away, range 3
    events = move(game, "fire@enemy0")
    assert [e.text() for e in events] == ["red_0 fires at blue_0: rolls 5, needs 4 -> hit",
                                          "blue_0 takes 1 damage from red_0 (shot)", "-- round 1: blue_0's turn"]
    assert [e for e in events if isinstance(e, DamageDealt)] == [DamageDealt("blue_0", 1, "red_0", "shot")]
    assert game.health("blue_0") == (2, 3)
    events = move(game, "fire@enemy0")
    assert events[0].text() == "blue_0 fires at red_0: rolls 2, needs 4 -> miss"
    assert not [e for e in events if isinstance(e, DamageDealt)]
    assert game.health("red_0") == (3, 3) and game.round == 2 and game.current_agent == "red_0"
    assert isinstance(game.dice, ScriptedDice) and game.dice.remaining == 0
    assert [(roll.values, roll.reason) for roll in game.dice.history] == [((5,), "red_0 fires at blue_0"),
                                                                          ((2,), "blue_0 fires at red_0")]


def test_out_of_range_no_shot_and_a_held_cell_no_move() -> None:
    game = loaded({"ships": [{"id": "red_0", "cell": 2}, {"id": "blue_0", "cell": 6}]})
    assert legal_options(game) == {"shot": ["hold"], "maneuver": ["hold", "back", "ahead"]}
    with pytest.raises(IllegalActionError, match="component 'shot': value 1 \\(fire@enemy0\\) is not allowed"):
        game.apply("red_0", [1, 0])
    events = move(game, maneuver="ahead")                              # red sails toward higher cells
    assert events[0].text() == "red_0 sails from cell 2 to cell 3"
    events = move(game, maneuver="ahead")                              # blue toward lower ones
    assert events[0].text() == "blue_0 sails from cell 6 to cell 5"
    game = loaded({"ships": [{"id": "red_0", "cell": 0}, {"id": "blue_0", "cell": 1}]})
    assert legal_options(game)["maneuver"] == ["hold"]                 # the track's end behind, blue ahead


def test_a_sink_ends_the_game_with_the_right_winner() -> None:
    game = loaded({"ships": [{"id": "red_0", "cell": 4}, {"id": "blue_0", "cell": 5, "hull": 1}]}, 4)
    events = move(game, "fire@enemy0", "back")
    assert [type(e).__name__ for e in events] == ["Shot", "DamageDealt", "StatusChanged", "Sailed", "GameEnded"]
    assert events[-1] == GameEnded("red", "last side afloat")
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None
    position = game.position()
    assert position["result"] == {"winner": "red", "reason": "last side afloat"} and position["to_move"] is None
    assert position["ships"][0]["cell"] == 3                            # the turn is played out: shot, then move
    assert position["ships"][1] == {"id": "blue_0", "side": "blue", "cell": 5, "hull": 0, "status": "sunk"}


def test_the_round_limit_is_a_truncated_draw() -> None:
    limit = ruleset().load_config().house_rules.max_rounds
    game = loaded({"round": limit, "to_move": "blue_0",
                   "ships": [{"id": "red_0", "cell": 0}, {"id": "blue_0", "cell": 9}]})
    assert move(game)[-1] == GameEnded(None, "round_limit")
    assert game.is_over and game.winner is None and game.truncated


# ------------------------------------------------------------------ positions, clones, determinism
def test_a_position_round_trips_and_plays_on_identically() -> None:
    config = ruleset().load_config()
    game = ruleset().new_game(config, "pair", seed=3)
    random_actions(game, 3, 9)
    position = game.position()
    assert json.loads(json.dumps(position)) == position
    twin = ruleset().load_position(position, dice=game.dice.clone())
    assert twin.position() == position and twin.state_dict() == game.state_dict()
    rng = np.random.default_rng(8)
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None and twin.current_agent == agent
        action = game.action_spec.sample(game.legal_mask(agent), rng)
        assert np.array_equal(game.legal_mask(agent), twin.legal_mask(agent))
        assert [e.text() for e in game.apply(agent, action)] == [e.text() for e in twin.apply(agent, action)]
        assert np.array_equal(game.observe(agent), twin.observe(agent))
    assert twin.state_dict() == game.state_dict() and twin.winner == game.winner
    schema = ruleset().position_schema()
    assert schema["title"] == "SkirmishPosition" and schema["required"] == ["ruleset", "ships"]


def test_a_bad_position_names_every_field_at_fault() -> None:
    with pytest.raises(PositionError) as refused:
        loaded({"ships": [{"id": "red_0", "cell": 4, "hull": 7}, {"id": "blue_0", "cell": 12}]})
    assert {p.path for p in refused.value.problems} == {"ships.0.hull", "ships.1.cell"}
    with pytest.raises(PositionError, match="two boats afloat cannot share a cell"):
        loaded({"ships": [{"id": "red_0", "cell": 4}, {"id": "blue_0", "cell": 4}]})


def test_a_clone_is_independent_and_plays_on_as_the_original() -> None:
    game = ruleset().new_game(ruleset().load_config(), "pair", seed=11)
    random_actions(game, 11, 6)
    before = game.state_dict()
    twin = game.clone()
    played = random_actions(twin, 5, 40)
    assert game.state_dict() == before and twin.state_dict() != before
    for agent, action in played:
        game.apply(agent, action)
    assert game.state_dict() == twin.state_dict() and game.dice.history == twin.dice.history


def test_same_seed_same_actions_same_game() -> None:
    config = ruleset().load_config()
    games = [ruleset().new_game(config, "pair", seed=21) for _ in range(2)]
    for game in games:
        random_actions(game, 4, 200)
    assert games[0].is_over and games[0].state_dict() == games[1].state_dict()
    assert games[0].dice.history == games[1].dice.history


# ------------------------------------------------------------------ evaluation, server, viewer
def test_the_closer_beats_random_in_a_paired_tournament_in_this_process_and_in_workers() -> None:
    tournament = build_tournament("skirmish", ["random", "closer"], games=10, scenario="pair")
    (summary,) = evaluate(tournament, workers=1, progress=False).summaries
    closer_wins = summary.wins if summary.a == "closer" else summary.losses
    assert summary.games == 20 and closer_wins >= 15, summary                 # 10 seeds x 2 seats
    (in_workers,) = evaluate(tournament, workers=2, progress=False).summaries  # spawned: the toy registered there
    assert in_workers == summary


def test_the_server_lists_skirmish_and_its_closer_decides_a_legal_move() -> None:
    with TestClient(create_app(ServerSettings(max_games=4)), raise_server_exceptions=True) as client:
        listed = {r["id"]: r for r in client.get("/v1/rulesets").json()["rulesets"]}
        assert "skirmish" in listed and set(SCENARIOS) <= set(listed["skirmish"]["scenarios"])
        view = client.post("/v1/games", json={"ruleset": "skirmish", "scenario": "duel", "seed": 3})
        assert view.status_code == 201, view.text
        position = view.json()["position"]
        answer = client.post("/v1/decide", json={"ruleset": "skirmish", "position": position, "captain": "closer"})
        assert answer.status_code == 200, answer.text
    game = ruleset().load_position(position, seed=0)
    agent = game.current_agent
    assert agent is not None and answer.json()["seat"] == agent
    action = encode(game.action_spec, answer.json()["move"], game.legal_mask(agent))   # raises if illegal
    captain = make_captain("closer", "skirmish", game.action_spec)
    assert action.tolist() == answer.json()["action"] == captain.act(decision_for(game, agent, captain)).tolist()
    assert decode(game.action_spec, action) == {"shot": "hold", "maneuver": "ahead"}    # nobody in range yet


def test_the_viewer_draws_a_replayed_game(tmp_path: Path) -> None:
    match = Match("skirmish", scenario="pair", illegal_action="raise")
    captains = {"red": make_captain("closer", "skirmish", match.action_spec),
                "blue": RandomCaptain(match.action_spec)}
    record = play_game(match, captains, seed=5)
    replay = write_replay(tmp_path / "game.jsonl", record, ruleset="skirmish", scenario="pair")
    page = replay_to_html(replay, tmp_path / "game.html").read_text(encoding="utf-8")
    data = json.loads(page.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    svg = "".join(data["parts"])
    assert data["ruleset"] == "skirmish" and len(data["frames"]) == record.decisions + 1
    assert svg.startswith("<svg") and 'class="sea"' in svg and 'class="fire-range"' in svg
    assert all(f'data-ref="{agent}"' in svg for agent in match.game.agents)


# ------------------------------------------------------------------ words: cards, options, export notes
def test_ship_cards_and_option_explanations_use_the_toys_words() -> None:
    game = ruleset().new_game(ruleset().load_config(), "pair", seed=0)
    console = Console(file=io.StringIO(), width=120)
    console.print(ship_cards(game, deciding="red_0"))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "on cell 0" in text and "on cell 9" in text and "3/3" in text
    game = loaded({"ships": [{"id": "red_0", "cell": 3}, {"id": "blue_0", "cell": 5}]})
    explain = Explainer(game, "red_0")
    shot, maneuver = game.action_spec.components
    assert explain.option(shot, "fire@enemy0") == "fire at blue_0: a d6 hits on the house rules' hit roll or more"
    assert explain.option(maneuver, "ahead") == "one cell ahead, toward the enemy's end"
    assert explain.option(shot, "hold") == "hold fire"


def test_an_export_sidecar_describes_every_observation_group() -> None:
    spec = ruleset().observation_spec(ruleset().load_config())
    described = describe_observation("skirmish", spec)
    groups = {g["group"]: g for g in described["groups"]}
    assert list(groups) == ["self", "ally", "enemy"]
    assert sum(g["size"] for g in groups.values()) == spec.size
    assert (groups["ally"]["slots"], groups["enemy"]["slots"]) == (1, 2)
    assert all(g["meaning"] for g in groups.values()) and "track" in described["ruleset"]


def test_its_scripted_captains_and_hooks_are_found_through_the_registry() -> None:
    assert scripted_names("skirmish") == ["random", "closer"]
    assert ruleset().hooks.strongest_scripted == "closer"
    game = ruleset().new_game(ruleset().load_config(), "duel", seed=0)
    assert game.render_ansi().splitlines()[1].startswith("R0>") and game.render_rgb().ndim == 3


# ------------------------------------------------------------------ one folder
def test_nothing_outside_its_folder_names_the_toy() -> None:
    """The toy is added from examples/ruleset_template/ alone: no package or config of the project names it."""
    naming = [
        path.relative_to(ROOT).as_posix()
        for folder in ("naval_env", "agents", "naval_tactics", "configs")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
        and b"skirmish" in path.read_bytes().lower()
    ]
    assert naming == []
    assert not (ROOT / "naval_env" / "rulesets" / "skirmish").exists()


def test_an_installed_distribution_offers_the_ruleset_through_its_entry_point(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``pip install`` of a package declaring ``skirmish = "skirmish:RULESET"`` in the group
    ``naval_env.rulesets`` leaves on the path: a dist-info folder that ``import naval_env`` reads."""
    from naval_env.envs.registration import PLUGIN_GROUP, register_plugin_rulesets

    dist = tmp_path / "skirmish_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: skirmish-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{PLUGIN_GROUP}]\nskirmish = skirmish:RULESET\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    naval_env.unregister_ruleset("skirmish")
    assert "skirmish" not in ruleset_ids()
    assert register_plugin_rulesets() == ["skirmish"]
    assert "skirmish" in ruleset_ids() and gym.make("naval/Skirmish-v0").reset(seed=1)[0].shape[0] > 0
    assert register_plugin_rulesets() == []            # already registered: nothing twice
    (dist / "entry_points.txt").write_text(f"[{PLUGIN_GROUP}]\nskirmish = skirmish:CAPTAINS_TYPO\n")
    with pytest.raises(AttributeError):
        register_plugin_rulesets()
