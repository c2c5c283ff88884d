"""Stall counts (agents/zoo/stalls.py), the placement hooks they read, and the anchor table on a card."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from naval_agents.captains.base import Captain, Decision
from naval_agents.zoo.card import anchor_markdown, render_card
from naval_agents.zoo.stalls import STALL_FLOOR, StallCount, count_stalls, stall_limit, stalled
from naval_env.core.hooks import hooks_of
from naval_env.core.ruleset import get_ruleset

GRID_RULESETS = ["pantheon", "crew_phase", "flotilla"]


class HoldStill(Captain):
    """Plays value 0 of every component: the contract's no-op, so its ship never moves and never fires."""

    name = "hold-still"

    def act(self, decision: Decision) -> np.ndarray:
        return np.zeros(len(decision.game.action_spec.components), dtype=np.int64)


def test_a_captain_that_never_moves_or_fires_is_idle_every_round_and_stalls_beside_zoo() -> None:
    still = count_stalls("pantheon", "duel", HoldStill(), seeds=3, seed=11)
    zoo = count_stalls("pantheon", "duel", "zoo", seeds=3, seed=11)
    assert still.games == zoo.games == 6 and still.rounds > 0
    assert still.idle == still.rounds                       # never moved, never took an enemy's hull
    assert still.share("idle") == 1.0 and zoo.share("idle") is not None and zoo.share("idle") < 0.5
    assert still.score is not None and still.score < 0.5 < (zoo.score or 0)
    assert "idle" in stalled(still, zoo) and stalled(zoo, zoo) == []


def test_a_stall_limit_is_twice_the_zoo_captains_share_with_a_floor() -> None:
    assert stall_limit(0.10) == pytest.approx(0.20)
    assert stall_limit(0.0) == STALL_FLOOR
    zoo = StallCount("zoo", "duel", "gunner", games=10, rounds=100, idle=5, edge_rounds=100, at_edge=5)
    level = StallCount("hard", "duel", "gunner", games=10, rounds=100, idle=10, edge_rounds=100, at_edge=11,
                       round_limit=1)
    assert stalled(level, zoo) == ["edge", "round_limit"]   # 0.10 idle is exactly twice 0.05: not past it
    open_plane = StallCount("hard", "chase", "hunter", games=10, rounds=100, idle=10)
    assert open_plane.share("edge") is None and "edge" not in stalled(open_plane, zoo)


@pytest.mark.parametrize("ruleset_id", GRID_RULESETS)
def test_a_grid_ship_on_the_outer_ring_is_at_the_edge_and_one_inside_is_not(ruleset_id: str) -> None:
    rules = get_ruleset(ruleset_id)
    game = rules.new_game(rules.load_config(), seed=3)
    agent = game.agents[0]
    ship = game.state.ships[agent]
    hooks = hooks_of(ruleset_id)
    ship.x, ship.y = 0, 5
    assert hooks.at_board_edge(game, agent) is True
    assert hooks.place(game, agent) == (0, 5, ship.facing)
    ship.x, ship.y = 3, 4
    assert hooks.at_board_edge(game, agent) is False


def test_broadside_counts_a_hull_within_an_inch_of_the_table_edge_and_pursuit_has_no_edge() -> None:
    rules = get_ruleset("broadside")
    game = rules.new_game(rules.load_config(), seed=3)
    agent = game.agents[0]
    ship = game.state.ships[agent]
    width, height = game.scenario.board
    hooks = hooks_of("broadside")
    for y, at_edge in ((height / 2, False), (ship.shape.radius + 0.5, True)):
        ship.shape = dataclasses.replace(ship.shape, x=width / 2, y=y)   # the hull is frozen: a new one
        assert hooks.at_board_edge(game, agent) is at_edge
    pursuit = get_ruleset("pursuit")
    chase = pursuit.new_game(pursuit.load_config(), seed=3)
    assert hooks_of("pursuit").at_board_edge(chase, chase.agents[0]) is None
    assert len(hooks_of("pursuit").place(chase, chase.agents[0]) or ()) == 2


def test_the_card_shows_each_level_against_its_anchor_and_its_stalls() -> None:
    zoo = StallCount("zoo", "duel", "gunner", games=20, wins=16, rounds=200, idle=4, edge_rounds=200, at_edge=10)
    easy = StallCount("easy", "duel", "gunner", games=20, wins=2, rounds=200, idle=40, edge_rounds=200, at_edge=60)
    table = {"scenario": "duel", "seeds": 10, "seed": 7000, "strongest": "gunner", "weakest": "rammer",
             "anchors": [{"level": "easy", "reference": "random", "score": 0.62, "ci": [0.5, 0.72], "band": [0.65, 1.0],
                          "lands": False}],
             "stalls": [{**zoo.to_dict(), "stalled": []}, {**easy.to_dict(), "stalled": stalled(easy, zoo)}]}
    lines = anchor_markdown(table)
    assert "| `easy` | `random` | 0.62 [0.50, 0.72] | 0.65-1.00 | **no** |" in lines
    assert "| `easy` | 0.10 | 0.200 (max 0.040) | 0.300 (max 0.100) | 0.000 (max 0.020) | idle, edge |" in lines
    facts = {"ruleset": "pantheon", "ruleset_version": "1.0", "rebuild_command": "x",
             "ladder": {"scenario": "duel", "seeds": 10, "seed": 5000, "command": "c", "levels": {},
                        "pairings": [], "ratings": [], "anchor_tables": [table]}}
    card = render_card(facts)
    assert "### Anchors and stalls" in card and "`normal` against the weakest (`rammer`)" in card


def test_anchor_tables_without_steps_mark_the_steps_of_other_levels_stale(tmp_path: Path) -> None:
    from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
    from naval_agents.captains.zoo.levels import LEVELS, levels_of
    from naval_agents.zoo.card import read_facts
    from naval_agents.zoo.ladder import level_settings, record_anchor_tables

    shutil.copy(CAPTAINS_DIR / "pantheon.card.json", tmp_path / "pantheon.card.json")
    now = {name: level_settings(getattr(levels_of("pantheon"), name)) for name in LEVELS}
    facts = read_facts("pantheon", tmp_path)
    facts["ladder"]["levels"] = now
    facts["ladder"].pop("stale", None)                     # the shipped card may carry one already
    (tmp_path / "pantheon.card.json").write_text(json.dumps(facts))
    table = {"scenario": "duel", "seeds": 2, "seed": 7000, "strongest": "gunner", "weakest": "rammer",
             "anchors": [], "stalls": [{**StallCount("zoo", "duel", "gunner", games=4).to_dict(), "stalled": []}]}
    record_anchor_tables("pantheon", [table], tmp_path)
    same = read_facts("pantheon", tmp_path)["ladder"]
    assert "stale" not in same and same["anchor_tables"] == [table]
    facts = read_facts("pantheon", tmp_path)
    facts["ladder"]["levels"] = {**now, "hard": {"temperature": 9.0}}    # steps played by another hard
    (tmp_path / "pantheon.card.json").write_text(json.dumps(facts))
    record_anchor_tables("pantheon", [table], tmp_path)
    changed = read_facts("pantheon", tmp_path)["ladder"]
    assert changed["levels"] == now and "hard {temperature: 9.0}" in changed["stale"]
    assert "Stale:" in (tmp_path / "pantheon.md").read_text()


def test_zoo_ladder_refuses_no_steps_with_no_anchor_games(capsys: pytest.CaptureFixture[str]) -> None:
    from naval_tactics.commands import zoo as zoo_command

    assert zoo_command.main(["ladder", "--ruleset", "pantheon", "--no-steps", "--anchor-games", "0"]) == 2
    assert "--no-steps with --anchor-games 0 would measure nothing" in capsys.readouterr().err
