"""The log and the board panel read as English: a ship "has fled", a failed maneuver names what the ship
does instead, the panel says a stage once, and pursuit's sea plot numbers its yards like the log's (x, y)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from naval_env.core.picture import picture_of
from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.broadside.events import ShipLost
from naval_env.rulesets.flotilla.events import ManeuverFailed


@pytest.mark.parametrize(("status", "by", "text"), [
    ("fled", None, "red_0 has fled off the table"),
    ("sunk", None, "red_0 is sunk"),
    ("prize", "blue", "red_0 is taken as a prize by blue"),
])
def test_a_lost_ship_is_told_in_words(status: str, by: str | None, text: str) -> None:
    assert ShipLost("red_0", status, by).text() == text


@pytest.mark.parametrize(("maneuver", "text"), [
    ("hard_turn_port", "red_0 fails the hard turn to port and sails ahead instead"),
    ("tack_starboard", "red_0 fails the tack to starboard and sails ahead instead"),
    ("heave_to", "red_0 fails the heave to and sails ahead instead"),
    ("half_sail", "red_0 fails the half sail and sails ahead instead"),
])
def test_a_failed_maneuver_says_what_the_ship_does_instead(maneuver: str, text: str) -> None:
    assert ManeuverFailed("red_0", maneuver, "ahead").text() == text


def _random_decisions(ruleset: str, seed: int, until: str) -> str:
    """The board picture of the first position, over random legal decisions, whose phase is ``until``."""
    rules = get_ruleset(ruleset)
    game = rules.new_game(rules.load_config(), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        if game.position()["phase"] == until:
            return picture_of(game).to_svg()
        agent = game.current_agent
        assert agent is not None
        parts = game.action_spec.split(game.legal_mask(agent))
        game.apply(agent, np.array([rng.choice(np.flatnonzero(part)) for part in parts]))
        assert not game.is_over, "the game ended before the phase came"
    pytest.fail(f"no {until} phase in 2000 decisions")


def test_the_broadside_panel_names_the_boarding_stage_once() -> None:
    svg = _random_decisions("broadside", 0, "boarding")
    panel = re.search(r'class="round"[^>]*>([^<]*)<', svg)
    assert panel is not None and panel.group(1).endswith("\u00b7 boarding"), panel
    assert "boarding, boarding" not in svg


def test_the_pursuit_plot_numbers_its_yards_where_the_ships_are() -> None:
    rules = get_ruleset("pursuit")
    game = rules.new_game(rules.load_config(), seed=1)
    svg = picture_of(game).to_svg()
    ticks = {axis: {float(ref): float(at) for at, ref in
                    re.findall(rf'<text x="([-\d.]+)"[^>]*class="coordinate" data-ref="{axis}([-\d.]+)"', svg)}
             for axis in "x"}
    ticks_y = {float(ref): float(at) for at, ref in
               re.findall(r'<text x="[-\d.]+" y="([-\d.]+)"[^>]*class="coordinate" data-ref="y([-\d.]+)"', svg)}
    assert len(ticks["x"]) >= 3 and len(ticks_y) >= 2
    for ship in game.position()["ships"]:   # each ship's centre lies where the numbers put its (x, y)
        found = re.search(rf'<circle cx="([-\d.]+)" cy="([-\d.]+)"[^>]*class="ship" data-ref="{ship["id"]}"', svg)
        assert found is not None
        (x0, px0), (x1, px1) = sorted(ticks["x"].items())[:2]
        (y0, py0), (y1, py1) = sorted(ticks_y.items())[:2]
        assert float(found.group(1)) == pytest.approx(px0 + (ship["x"] - x0) * (px1 - px0) / (x1 - x0), abs=0.5)
        # text baselines sit 3 px under the value's height
        assert float(found.group(2)) + 3 == pytest.approx(py0 + (ship["y"] - y0) * (py1 - py0) / (y1 - y0), abs=0.5)
