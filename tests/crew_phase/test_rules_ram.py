"""Ramming, as written: adjacent, with movement to enter the target's space; +5 plus the helmsman's Water
Vehicles proficiency; damage from maximum hull points (reversed on a miss); DC 15 Dexterity saves or prone;
both ships grappled until one is destroyed; one ram a turn."""

from __future__ import annotations

import pytest

from naval_env.rulesets.crew_phase.events import (
    AttackRolled,
    CheckRolled,
    GrappleStarted,
    KnockedProne,
    RamRolled,
)
from naval_env.rulesets.crew_phase.state import Status
from naval_env.testing import allowed, damage_list

from .helpers import act, make_game, of, pass_crew, ship, where

FULL_SAIL_AND_HELM = {0: "navigate@s0", 1: "navigate@s1", 2: "navigate@s2", 5: "steer"}   # the officer steers


def ready_to_ram(blue_at=(6, 8), crew=FULL_SAIL_AND_HELM, maneuver="ahead 2", dice=(), red="sailing_ship",
                 blue="sailing_ship"):
    game = make_game([ship(red, (3, 8), "E")], [ship(blue, blue_at, "N")], dice=[10, 10, 10, *dice])
    while where(game) != ("red_0", "MOVE"):
        act(game, crew=crew) if where(game) == ("red_0", "CREW") else act(game)
    act(game, maneuver=maneuver)
    return game


def test_ram_needs_the_target_directly_ahead_and_movement_to_enter_its_space():
    """'tu nave debe estar adyacente al objetivo que pretendes embestir y tener suficiente velocidad de
    movimiento para entrar en el espacio de tu objetivo.'"""
    game = ready_to_ram()                                  # at (5, 8), blue at (6, 8), 40 ft left
    assert allowed(game, "ram", "ram@e0")
    beside = ready_to_ram(blue_at=(6, 9))                  # adjacent, but not ahead
    assert not allowed(beside, "ram", "ram@e0")
    spent = ready_to_ram(blue_at=(10, 8), maneuver="ahead 6")  # adjacent and ahead, but all 60 ft spent
    assert spent.state.ships["red_0"].movement_left == 0
    assert where(spent) != ("red_0", "ATTACK")              # no ram to offer, so no attack decision at all


@pytest.mark.parametrize("face, hit, to_blue, to_red", [
    (8, True, 60, 30),    # 8 + 5 + 2 = 15 vs AC 15: blue takes red's maximum, red half of blue's
    (7, False, 30, 60),   # a miss: the reverse
])
def test_ram_damage_as_written(face, hit, to_blue, to_red):
    """'Tras un ataque exitoso, la nave embestida sufre un daño igual al máximo de Puntos de Casco de la nave que
    la embistió, mientras que la nave que realizó el ataque sufre un daño igual a la mitad del punto máximo del
    casco de la nave embestida. En un ataque fallido, ocurre lo contrario.'"""
    saves = [20] * 6
    game = ready_to_ram(dice=[face, *saves])
    events = act(game, ram="ram@e0")
    [ram] = of(events, RamRolled)
    assert (ram.rammer, ram.target, ram.rolls, ram.modifier, ram.total, ram.ac, ram.hit) == (
        "red_0", "blue_0", (face,), 7, face + 7, 15, hit)
    assert damage_list(events)[:2] == [("blue_0", to_blue, "red_0", "ram"), ("red_0", to_red, "blue_0", "ram recoil")]
    sunk_to_zero = "blue_0" if hit else "red_0"
    assert game.state.ships[sunk_to_zero].status is Status.SINKING


def test_the_helmsmans_water_vehicles_proficiency_counts_only_if_someone_steered():
    """'Si un personaje ha tomado la Acción de tripulación del timón ese turno, puede agregar su habilidad en
    Vehículos de agua a esta tirada.'"""
    game = ready_to_ram(crew={0: "navigate@s0", 1: "navigate@s1", 2: "navigate@s2"}, dice=[9, *[20] * 6])
    [ram] = of(act(game, ram="ram@e0"), RamRolled)
    assert (ram.modifier, ram.total, ram.hit) == (5, 14, False)


def test_a_ship_that_loses_more_than_half_its_maximum_in_the_ram_has_its_crew_save_or_fall_prone():
    """'Si un barco sufre más de la mitad de sus puntos máximos de daño en el casco como resultado del ataque ...
    todas las criaturas a bordo de ese barco deben tener éxito en una [salvación] de Destreza de DC 15 o ser
    derribadas.' Blue loses 60 of 60: its six crew save (Dexterity +1 sailors and officer, +3 gunners); red loses
    30 of 60, not more than half: no saves."""
    game = ready_to_ram(dice=[8, 14, 13, 1, 12, 11, 20])
    events = act(game, ram="ram@e0")
    saves = of(events, CheckRolled)
    assert [(s.ship, s.crew, s.total, s.dc, s.success) for s in saves] == [
        ("blue_0", 0, 15, 15, True), ("blue_0", 1, 14, 15, False), ("blue_0", 2, 2, 15, False),
        ("blue_0", 3, 15, 15, True), ("blue_0", 4, 14, 15, False), ("blue_0", 5, 21, 15, True)]
    assert of(events, KnockedProne) == [KnockedProne("blue_0", 1), KnockedProne("blue_0", 2), KnockedProne("blue_0", 4)]
    # Prone lasts for the rest of the Ship Phase; they stand up on their next turn (the next Character Phase).
    assert game.round == 2 and not any(c.prone for c in game.state.ships["blue_0"].crew)


def test_after_a_ram_both_ships_are_grappled_until_one_is_destroyed():
    """'Después de un ataque de embestida, ambas naves están atrapadas juntas ... Esta presa termina si uno de los
    dos barcos es destruido.' The ram's grapple holds both ways and cannot be cut."""
    game = ready_to_ram(dice=[7, *[20] * 6])
    events = act(game, ram="ram@e0")
    assert of(events, GrappleStarted) == [GrappleStarted("red_0", "blue_0", None)]
    pass_crew(game) if where(game) == ("red_0", "CREW") else None
    assert not allowed(game, "crew_0", "cut_lines")


def test_one_ram_per_turn():
    """'Un barco solo puede realizar un ataque de carnero por turno': the ram ends the attack decision."""
    game = ready_to_ram(dice=[8, *[20] * 6])
    events = act(game, ram="ram@e0")
    assert len(of(events, RamRolled)) == 1
    assert where(game) != ("red_0", "ATTACK")


def test_ramming_a_sinking_ship_is_at_advantage():
    game = ready_to_ram(dice=[2, 9])
    blue = game.state.ships["blue_0"]
    blue.hp, blue.status = 0, Status.SINKING
    [ram] = of(act(game, ram="ram@e0"), RamRolled)
    assert (ram.rolls, ram.total, ram.hit) == ((2, 9), 16, True)


def test_a_small_rammer_against_a_large_target_takes_the_targets_maximum_on_a_miss():
    """Implemented as written: a keelboat (40) missing a warship (120) takes 120 and sinks outright (floor -20);
    the warship takes half the keelboat's maximum (20)."""
    game = make_game([ship("keelboat", (3, 8), "E")], [ship("warship", (6, 8), "N")], dice=[10, 10, 1])
    while where(game) != ("red_0", "MOVE"):
        act(game, crew=["navigate@s0", "navigate@s1"]) if where(game) == ("red_0", "CREW") else act(game)
    act(game, maneuver="ahead 2")
    events = act(game, ram="ram@e0")
    assert damage_list(events) == [("blue_0", 20, "red_0", "ram"), ("red_0", 60, "blue_0", "ram recoil")]
    assert game.state.ships["red_0"].status is Status.SUNK and game.is_over and game.winner == "blue"


def test_crew_knocked_prone_by_a_ram_attack_at_disadvantage_for_the_rest_of_the_ship_phase():
    """A keelboat (40) rams a sailing ship (60): the ship loses 40, more than half, and its gunner 3 falls prone;
    when the ship's turn comes, his operated ballista attacks at disadvantage."""
    game = make_game([ship("keelboat", (3, 8), "E")], [ship("sailing_ship", (6, 8), "N")],
                     dice=[10, 10, 8, 20, 20, 20, 1, 20, 20, 20, 20, 20, 20, 18, 4])
    act(game, crew={0: "navigate@s0", 1: "navigate@s1", 3: "steer"})
    act(game, crew={3: "operate@w0"})                      # blue's port ballista bears on red (west of it)
    act(game, maneuver="ahead 2")
    events = act(game, ram="ram@e0")
    assert damage_list(events)[:2] == [("blue_0", 40, "red_0", "ram"), ("red_0", 30, "blue_0", "ram recoil")]
    assert of(events, KnockedProne) == [KnockedProne("blue_0", 3)]
    assert where(game) == ("blue_0", "ATTACK")
    [attack] = of(act(game, weapons={0: "ship@e0"}), AttackRolled)
    assert (attack.crew, attack.rolls, attack.total, attack.hit) == (3, (18, 4), 9, False)
