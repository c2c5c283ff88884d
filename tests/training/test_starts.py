"""Training over many starts: scenario choices, mid-game positions, the learner commanding its side, PFSP draws."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped

from naval_agents.captains.registry import make_captain
from naval_agents.evaluation.midgame import play_from, sample_positions, source_pairings
from naval_agents.training.config import load_train_config
from naval_agents.training.run import check_run, make_env
from naval_agents.training.start_draws import SNAPSHOT, StartsEnv, position_pool
from naval_agents.training.starts import PrioritySettings, home_scenario, scenario_weights
from naval_env.core.errors import ConfigError
from naval_env.core.events import DamageDealt, GameEnded
from naval_env.envs.gym_env import NavalEnv
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

BASE = {"name": "starts", "ruleset": "pantheon", "total_timesteps": 256, "n_envs": 1,
        "ppo": {"n_steps": 64, "batch_size": 64}}


def config_of(**fields):
    from naval_agents.training.config import TrainConfig
    from naval_env.core.config import validate

    return validate(TrainConfig, {**BASE, **fields}, "<test>")


@pytest.mark.parametrize(("choice", "expected"), [
    ("squadron", {"squadron": 1.0}),
    (["duel", "fleet"], {"duel": 0.5, "fleet": 0.5}),
    ({"duel": 1, "squadron": 3}, {"duel": 0.25, "squadron": 0.75}),
    ("all", {"duel": 0.25, "mixed_duel": 0.25, "squadron": 0.25, "fleet": 0.25}),
    (None, {None: 1.0}),
])
def test_scenario_choices_become_weights(choice, expected):
    assert scenario_weights("pantheon", None, choice) == expected


def test_the_home_scenario_is_the_first_listed():
    assert home_scenario("pantheon", None, {"fleet": 1, "duel": 5}) == "fleet"


@pytest.mark.parametrize(("fields", "message"), [
    ({"scenario": []}, "an empty scenario list; name at least one scenario, or write all"),
    ({"scenario": ["duel", "duel"]}, r"scenario\(s\) \['duel'\] listed twice"),
    ({"scenario": {"duel": 0}}, r"scenario weights must be above 0, got \{'duel': 0"),
    ({"scenario": {"duel": -1.0}}, "scenario weights must be above 0"),
    ({"starts": {"midgame": {"share": 1.5}}}, "field 'starts.midgame.share': Input should be less than or equal to 1"),
    ({"starts": {"midgame": {"share": -0.1}}}, "field 'starts.midgame.share': Input should be greater than or equal"),
    ({"starts": {"midgame": {"shares": 0.1}}}, "allowed keys here: captains, games, seed, share"),
    ({"learner_commands": "fleet"}, "field 'learner_commands': Input should be 'ship' or 'side'"),
    ({"backend": "rllib", "scenario": ["duel", "fleet"]}, "backend rllib trains one scenario from its set-up"),
    ({"backend": "rllib", "starts": {"midgame": {"share": 0.2}}}, "starts.midgame.share above 0 need backend local"),
    ({"learner_commands": "side", "opponents": {"allies": "learner"}},
     "learner_commands 'side' already has the learner captain its other ships"),
])
def test_bad_start_settings_are_named(fields, message):
    with pytest.raises(ConfigError, match=message):
        config_of(**fields)


@pytest.mark.parametrize("choice", ["armada", ["duel", "armada"], {"duel": 1, "armada": 2}])
def test_an_unknown_scenario_names_the_allowed_ones(choice, tmp_path):
    config = config_of(scenario=choice, run_dir=str(tmp_path / "runs"))
    with pytest.raises(ConfigError, match="scenario 'armada': not a pantheon scenario; allowed: duel, mixed_duel, "
                                          "squadron, fleet"):
        check_run(config)
    assert not (tmp_path / "runs").exists()


def test_the_learner_commands_every_ship_of_its_side():
    env = NavalEnv("pantheon", scenario="squadron", learner="random", opponent="gunner", command="side")
    seats: Counter[str] = Counter()
    for seed in range(3):
        _, info = env.reset(seed=seed)
        side = env.game.side_of(info["learner"])
        assert not any(env.game.side_of(agent) == side for agent in env.captains)   # no other captain on its side
        done = False
        while not done:
            seats[info["learner"]] += 1
            assert env.game.current_agent == info["learner"]
            _, _, terminated, truncated, info = env.step(env.action_space.sample())
            done = terminated or truncated
    assert {seat[-1] for seat in seats} == {"0", "1", "2"}   # every ship of the side got decisions


def test_a_side_reward_counts_the_whole_sides_damage_and_the_result_once():
    match = Match("pantheon", None, "squadron")
    red = [a for a in match.agents if match.game.side_of(a) == "red"]
    events = [DamageDealt(target="blue_0", amount=10, source="red_1", cause="gun"),   # +0.2
              DamageDealt(target="red_2", amount=5, source="blue_1", cause="gun"),    # -0.1
              DamageDealt(target="red_0", amount=5, source="red_1", cause="ram"),     # friendly: -0.1 only
              GameEnded(winner="red", reason="test")]                                 # +1 once
    assert match.side_reward(red, events) == pytest.approx(1.0 + 0.2 - 0.1 - 0.1)
    assert match.reward("red_0", events) == pytest.approx(1.0 - 0.1)   # one ship's reward as before


def test_positions_come_from_the_scenario_and_play_on_with_the_games_dice():
    found = sample_positions("pantheon", "squadron", ["gunner", "rammer"], 4, seed=11)
    assert found and all(p.position["scenario"] == "squadron" for p in found)
    assert {p.captains for p in found} <= set(source_pairings(["gunner", "rammer"]))
    again = sample_positions("pantheon", "squadron", ["gunner", "rammer"], 4, seed=11)
    assert [p.position for p in again] == [p.position for p in found]   # seeded
    match = Match("pantheon", None, "squadron", "raise")
    captains = {side: make_captain("gunner", "pantheon", match.action_spec) for side in match.game.sides}
    first = play_from(match, found[0].position, captains, seed=5)
    rounds = match.game.round
    assert play_from(match, found[0].position, captains, seed=5) == first and match.game.round == rounds


def test_a_start_env_draws_scenarios_by_weight_and_mid_game_starts_by_share():
    config = config_of(scenario={"duel": 1, "squadron": 3}, starts={"midgame": {"share": 0.5, "games": 4}})
    positions = position_pool("pantheon", None, ["duel", "squadron"], config.starts.midgame)
    env = make_env(config, 0, positions)()
    starts = Counter()
    for seed in range(200):
        env.reset(seed=seed)
        starts[(env.unwrapped.match.scenario, env._start["midgame"])] += 1
    by_scenario = Counter({s: sum(n for (t, _), n in starts.items() if t == s) for s in ("duel", "squadron")})
    assert 0.15 < by_scenario["duel"] / 200 < 0.35
    assert 0.35 < sum(n for (_, mid), n in starts.items() if mid) / 200 < 0.65


def test_prioritized_draws_lean_toward_the_cells_the_learner_loses():
    naval = NavalEnv("pantheon", opponent="gunner")
    settings = PrioritySettings(enabled=True, power=2.0, floor=0.1)
    env = StartsEnv(naval, ["gunner", "rammer"], 0.0, 3, weights={"duel": 0.5, "squadron": 0.5}, positions={},
                    midgame_share=0.0, prioritized=settings)
    env.set_cell_scores({("duel", "gunner"): 0.9, ("duel", "rammer"): 0.9, ("squadron", "gunner"): 0.1,
                         ("squadron", "rammer"): 0.9})
    env._rng = np.random.default_rng(0)
    drawn = Counter(env.draw_cell() for _ in range(2000))
    assert drawn[("squadron", "gunner")] / 2000 > 0.7   # (1.0 / 0.2) ** 2 = 25 times the weight of the others
    env.prioritized = PrioritySettings(enabled=False)
    drawn = Counter(env.draw_cell() for _ in range(2000))
    assert 0.18 < drawn[("squadron", "gunner")] / 2000 < 0.32


def test_snapshots_are_a_cell_once_there_are_some():
    naval = NavalEnv("pantheon", opponent="gunner")
    env = StartsEnv(naval, ["gunner"], 0.5, 3, weights={None: 1.0}, positions={}, midgame_share=0.0,
                    prioritized=PrioritySettings())
    assert [o for _, o, _ in env.cells()] == ["gunner"]
    env.snapshots = [object()]   # any snapshot
    assert [(o, w) for _, o, w in env.cells()] == [("gunner", 0.5), (SNAPSHOT, 0.5)]


def test_a_run_over_several_scenarios_records_its_scenarios(tmp_path):
    config = load_train_config(None, {"name": "multi", "ruleset": "pantheon", "total_timesteps": 1,
                                      "run_dir": str(tmp_path)})
    config = config.model_copy(update={"scenario": ["squadron", "duel"]})
    from naval_agents.training.run import write_manifest

    tmp_path.joinpath("run").mkdir()
    write_manifest(tmp_path / "run", config, {"status": "running"})
    import json

    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["scenario"] == "squadron" and manifest["scenarios"] == {"squadron": 0.5, "duel": 0.5}


def test_a_mid_game_start_seats_the_learner_on_a_ship_still_fighting():
    found = sample_positions("pantheon", "fleet", ["gunner", "rammer"], 6, seed=21)
    assert len(found) == 6
    env = NavalEnv("pantheon", scenario="fleet", learner=["red_0", "blue_0"], opponent="gunner")
    for start in found:
        env.set_start("fleet", start.position)
        _, info = env.reset(seed=start.seed)
        assert env.game.is_active(info["learner"]) and env.game.current_agent == info["learner"]
        assert env.game.round >= start.position["round"]   # it played on from the position, not a new game


def test_a_position_of_another_scenario_is_refused():
    found = sample_positions("pantheon", "fleet", ["gunner"], 2, seed=5)
    match = Match("pantheon", None, "duel")
    with pytest.raises(ValueError, match="position of scenario 'fleet' given to a match of scenario 'duel'"):
        match.start_from(found[0].position, seed=1)
