"""Operate and weapon attacks: one attack per operated weapon, rolled with the operator's modifiers;
arcs, ranges, ammunition; targets are ships, creatures aboard (rails: half cover) or parts."""

from __future__ import annotations

import pytest

from naval_env.rulesets.crew_phase.events import (
    AttackRolled,
    CrewActionWasted,
    CrewWounded,
    PartDamaged,
    StationManned,
)
from naval_env.rulesets.crew_phase.state import Status
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, duel, make_game, of, pass_crew, ship, where


def fire_starboard(game, target="ship@e0", before=None):
    """Red's gunner 3 operates the starboard ballista, blue's crew does nothing, red fires at ``target``.
    ``before(game)`` runs once red holds its ATTACK decision."""
    act(game, crew={3: "operate@w1"}) if game.current_agent == "red_0" else pass_crew(game)
    while where(game) != ("red_0", "ATTACK"):
        assert game.round == 1
        act(game, crew={3: "operate@w1"}) if where(game) == ("red_0", "CREW") else act(game)
    if before is not None:
        before(game)
    return act(game, weapons={1: target})


def sinking(name):
    def change(game):
        ship = game.state.ships[name]
        ship.hp, ship.status = 0, Status.SINKING
    return change


def test_operate_gives_one_attack_rolled_with_the_operators_modifiers():
    """'realizar esta acción brinda una Acción de Ataque para el barco durante la próxima fase' and 'la criatura
    que realizó la Acción de Tripulación con esa arma realiza la tirada para el ataque, usando sus modificadores y
    proficiencias': gunner 3 has Dexterity +3 and siege-weapon proficiency +2."""
    game = duel(blue_at=(3, 12), dice=[10, 4, 5, 6])
    events = fire_starboard(game)
    [attack] = of(events, AttackRolled)
    assert (attack.ship, attack.weapon, attack.crew, attack.target_ship, attack.target) == (
        "red_0", 1, 3, "blue_0", "hull")
    assert (attack.rolls, attack.modifier, attack.total, attack.ac, attack.hit) == ((10,), 5, 15, 15, True)
    assert damage_list(events) == [("blue_0", 15, "red_0", "ballista")]      # 3d10: 4 + 5 + 6
    assert game.state.ships["blue_0"].hp == 45
    assert game.state.ships["red_0"].weapons[1].ammo == 19


def test_an_unskilled_operator_rolls_with_his_own_modifiers():
    game = duel(blue_at=(3, 12), dice=[13])
    act(game, crew={0: "operate@w1"})                     # a sailor: Dexterity +1, no siege proficiency
    pass_crew(game)
    events = act(game, weapons={1: "ship@e0"})
    [attack] = of(events, AttackRolled)
    assert (attack.crew, attack.modifier, attack.total, attack.hit) == (0, 1, 14, False)


def test_targets_are_chosen_in_the_ship_phase_within_range_and_arc():
    """'los objetivos se eligen durante la Fase de Barcos'; most weapons need the ship's facing: red faces east,
    so its starboard ballista bears south and its port ballista north."""
    game = duel(blue_at=(3, 12))
    act(game, crew={3: "operate@w0", 4: "operate@w1"})
    pass_crew(game)
    assert allowed_labels(game, "weapon_0") == ["none"]
    assert "ship@e0" in allowed_labels(game, "weapon_1")


def test_long_range_is_at_disadvantage_and_beyond_it_there_is_no_shot():
    game = duel(blue_at=(3, 15), dice=[15, 8])           # 70 ft: beyond 60, within 180
    events = fire_starboard(game)
    [attack] = of(events, AttackRolled)
    assert (attack.rolls, attack.total, attack.hit) == ((15, 8), 13, False)
    far = make_game([ship("sailing_ship", (3, 3), "E")], [ship("sailing_ship", (3, 22), "W")], board=(30, 30))
    act(far, crew={3: "operate@w1"})                      # 190 ft
    pass_crew(far)
    assert where(far) == ("red_0", "CREW") and far.round == 2  # no attack decision: nothing in range


def test_ammunition_is_needed_and_spent():
    """'el personaje debe tener acceso a todos los materiales necesarios (munición)'."""
    game = duel(blue_at=(3, 12), dice=[2], weapons={"ballista": {"ammo": 1}})
    fire_starboard(game)
    assert game.state.ships["red_0"].weapons[1].ammo == 0
    assert not allowed(game, "crew_3", "operate@w1") and not allowed(game, "crew_3", "ready@w1")
    assert allowed(game, "crew_3", "operate@w0")


def test_one_crew_member_per_weapon():
    """A crew member sent to a manned weapon takes the next free one that can fire; with none left the action
    is wasted (see Assumptions)."""
    game = duel(blue_at=(3, 12))
    events = act(game, crew={2: "ready@w1", 3: "operate@w1", 4: "operate@w1", 5: "operate@w0"})
    assert of(events, StationManned) == [StationManned("red_0", 2, "ready weapon 1"),
                                         StationManned("red_0", 3, "operate weapon 2"),
                                         StationManned("red_0", 4, "operate weapon 0")]
    assert of(events, CrewActionWasted) == [CrewActionWasted("red_0", 5, "operate@w0", "every weapon is manned")]


def test_the_attack_is_lost_if_its_crew_member_is_incapacitated_first():
    """'si el miembro de la tripulación que operó el arma de un barco está incapacitado antes de usar poder usar el
    arma en la Fase de Barcos, se pierde la acción de ataque'. The keelboat (initiative 12) shoots first and fells
    red's gunner 3 (AC 13 + 2 for the rails): red's starboard attack is lost."""
    game = make_game([ship("sailing_ship", (3, 8), "E")], [ship("keelboat", (3, 12), "N")],
                     dice=[18, 6, 6, 6])
    act(game, crew={2: "operate@w0"})                      # blue (keelboat) decides first
    act(game, crew={3: "operate@w1"})
    events = act(game, weapons={0: "crew@e0.c3"})
    [attack] = of(events, AttackRolled)
    assert (attack.target, attack.ac, attack.hit) == ("crew 3", 15, True)
    assert of(events, CrewWounded) == [CrewWounded("red_0", 3, 18, 0)]
    assert where(game) == ("blue_0", "CREW") and game.round == 2   # red had nothing left to decide
    assert game.state.ships["blue_0"].hp == 40


@pytest.mark.parametrize("vessel, ac", [("sailing_ship", 14), ("rowboat", 12)])
def test_creatures_aboard_a_ship_with_rails_have_half_cover(vessel, ac):
    """'todas las naves medianas y grandes tienden a tener rieles y paredes en sus cubiertas superiores, otorgando a
    todas las criaturas a bordo al menos cobertura media': sailor AC 12, +2 behind rails; the rowboat has none."""
    game = duel(blue_at=(3, 12), blue=vessel, dice=[ac - 5, 1, 1, 1])
    events = fire_starboard(game, "crew@e0.c0")
    [attack] = of(events, AttackRolled)
    assert (attack.ac, attack.total, attack.hit) == (ac, ac, True)
    assert of(events, CrewWounded) == [CrewWounded("blue_0", 0, 3, 8)]
    assert damage_list(events) == []


def test_parts_with_their_own_hit_points_can_be_attacked_and_destroyed():
    """Weapons are parts with their own hit points: a destroyed weapon cannot be operated until repaired."""
    game = duel(blue_at=(3, 12), dice=[10, 10, 10, 10])
    events = fire_starboard(game, "part@e0.w0")
    [attack] = of(events, AttackRolled)
    assert (attack.target, attack.ac, attack.hit) == ("weapon 0", 15, True)
    assert of(events, PartDamaged) == [PartDamaged("blue_0", 0, 30, 0)]
    pass_crew(game)                                        # round 2: red
    assert not allowed(game, "crew_3", "operate@w0")       # blue's destroyed ballista
    assert allowed(game, "crew_0", "repair@w0")


def test_a_natural_20_is_a_critical_hit_doubling_the_damage_dice_and_a_natural_1_misses():
    game = duel(blue_at=(3, 12), dice=[20, 1, 1, 1, 1, 1, 1])
    events = fire_starboard(game)
    [attack] = of(events, AttackRolled)
    assert attack.critical and damage_list(events) == [("blue_0", 6, "red_0", "ballista")]
    game = duel(blue_at=(3, 12), dice=[1], weapons={"ballista": {"attack_bonus": 10}})
    [attack] = of(fire_starboard(game), AttackRolled)
    assert (attack.total, attack.hit) == (16, False)


def test_attacks_against_a_sinking_ship_have_advantage():
    """'todos los ataques realizados contra él se lanzan con ventaja'."""
    game = duel(blue_at=(3, 12), dice=[3, 12, 1, 1, 1])
    [attack] = of(fire_starboard(game, before=sinking("blue_0")), AttackRolled)
    assert (attack.rolls, attack.total, attack.hit) == ((3, 12), 17, True)


def test_the_crew_of_a_sinking_ship_attacks_at_disadvantage():
    """'todas las Acciones de Tripulación se lanzan en desventaja': the Operate attack comes from a crew action."""
    game = duel(blue_at=(3, 12), dice=[18, 4])
    [attack] = of(fire_starboard(game, before=sinking("red_0")), AttackRolled)
    assert (attack.rolls, attack.total, attack.hit) == ((18, 4), 9, False)


def test_prone_operator_and_prone_target_mean_disadvantage():
    game = duel(blue_at=(3, 12), dice=[18, 4])
    game.state.ships["red_0"].crew[3].prone = True
    act(game, crew={3: "operate@w1"})
    game.state.ships["red_0"].crew[3].prone = True         # knocked down after taking the gun (as by a ram)
    pass_crew(game)
    [attack] = of(act(game, weapons={1: "ship@e0"}), AttackRolled)
    assert attack.rolls == (18, 4) and not attack.hit
    game = duel(blue_at=(3, 12), dice=[18, 4])
    act(game, crew={3: "operate@w1"})
    pass_crew(game)
    game.state.ships["blue_0"].crew[0].prone = True
    [attack] = of(act(game, weapons={1: "crew@e0.c0"}), AttackRolled)
    assert attack.rolls == (18, 4) and not attack.hit
