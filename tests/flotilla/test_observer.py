"""The observation: named slices carry what the rules say from the observer's point of view."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.rulesets.flotilla.observer import OUTLOOK
from naval_env.rulesets.flotilla.state import Phase

from .helpers import act, make_game, ship
from .test_rules_attack import duel


def field(game, agent, name):
    spec = game.observation_spec
    scale = next(f.scale for f in spec.fields if f.name == name)
    return game.observe(agent)[spec.slice(name)] / scale


def test_phase_is_set_only_for_the_captain_deciding():
    game = duel()
    assert list(field(game, "red_0", "self.phase")) == [0, 0, 1, 0]            # ATTACK
    assert list(field(game, "blue_0", "self.phase")) == [0, 0, 0, 0]


def test_reaction_slices_describe_the_incoming_attack():
    game = duel()
    act(game, target="ship@enemy0")
    assert game.state.phase is Phase.REACTION
    assert list(field(game, "blue_0", "self.incoming_from")) == [1, 0, 0, 0, 0]
    # red throws 3 dice abeam; blue dodges with 2 - 1 = 1 die or counters with 3.
    assert list(np.round(field(game, "blue_0", "self.incoming_dice"))) == [3, 1, 3]
    hit_dodge, hit_counter, back = field(game, "blue_0", "self.incoming_odds")
    assert hit_dodge > hit_counter and back == pytest.approx(hit_counter)


def test_maneuver_outlook_matches_the_mask_and_sees_the_ram_line():
    game = make_game([ship("brig", (3, 7), "E")], [ship("brig", (9, 7), "W")], dice=[6, 1, 1, 1])
    outlook = field(game, "red_0", "self.maneuver_outlook").reshape(-1, OUTLOOK)
    labels = game.action_spec.components[1].labels
    mask = game.action_spec.split(game.legal_mask("red_0"))[1]
    assert list(outlook[:, 0] == 1) == list(mask[: len(outlook)])
    ahead = outlook[labels.index("ahead")]
    # ahead: red's bow to (6, 7), three squares from blue's bow on (9, 7), in blue's ram line
    # ((8, 7), (7, 7), (6, 7) within its 3 squares of movement). Gaps are stored x0.1.
    assert ahead[3] == pytest.approx(0.3) and ahead[-1] == 1.0
    heave_to = outlook[labels.index("heave_to")]
    assert heave_to[3] == pytest.approx(0.6) and heave_to[-1] == 0.0
    contact = field(game, "blue_0", "enemy0.contact")
    assert list(contact) == [0, 0, 0]                                       # 6 squares apart: nothing yet


def test_empty_slots_are_zero():
    game = duel()
    spec = game.observation_spec
    obs = game.observe("red_0")
    assert not obs[spec.slice("ally0.present")].any() and not obs[spec.slice("enemy1.present")].any()
    assert obs[spec.slice("enemy0.present")][0] == 1.0
