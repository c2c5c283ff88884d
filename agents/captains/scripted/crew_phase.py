"""Scripted `crew_phase` captains with distinct tactics. They read the engine, never the dice.

Captains: ``rammer``, ``gunner``, ``breaker``;
each class declares its ``description`` (how it plays), which ``naval-tactics list`` and the
server's catalogue show.

All of them heal the wounded, repair the hull when it is low or sinking, and keep sea room
(a ship that cannot turn in place must not end its move against the board edge).
"""

from __future__ import annotations

import math

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.rulesets.crew_phase.arcs import ALL, BOW, covers_square
from naval_env.rulesets.crew_phase.combat import TargetKind
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame, ManeuverOutcomes
from naval_env.rulesets.crew_phase.grapple import grappled_with, in_weapon_grapple
from naval_env.rulesets.crew_phase.preview import (
    alignment,
    coverage,
    end_distance,
    in_its_bow,
    ram_ready,
    sea_room,
)
from naval_env.rulesets.crew_phase.state import CrewMember, Phase, Ship, Status

Job = tuple[str, int | None]


class ScriptedCrewPhaseCaptain(Captain):
    """Shared plumbing: phase dispatch, crew assignment by job priority, move scoring, targets."""

    needs_observation = False

    #: Hull fraction under which spare hands repair the hull.
    repair_below = 0.6
    #: Preferred distance to the nearest enemy, in squares.
    standoff = 4.0
    #: Score per operated weapon bearing on an enemy at normal range (a third of it at long range).
    cover_weight = 3.0

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, CrewPhaseGame):
            raise TypeError(f"{self.name} captain needs the crew_phase game in its Decision, got {type(game).__name__}")
        spec = game.action_spec
        parts = spec.split(decision.action_mask)
        ship = game.state.ships[decision.agent]
        action = spec.noop()
        actions = game.actions
        phase = game.state.phase
        if phase is Phase.CREW:
            for slot, code in self.assign_crew(game, ship, parts).items():
                action[slot] = code
        elif phase is Phase.MOVE:
            moves = game.maneuver_outcomes(decision.agent)
            if moves is not None and moves.index.size:
                action[actions.MANEUVER] = int(moves.index[int(np.argmax(self.move_scores(game, ship, moves)))])
        else:
            ram_part = parts[actions.RAM]
            if ram_part[1:].any() and self.wants_ram(game, ship):
                action[actions.RAM] = 1 + int(np.flatnonzero(ram_part[1:])[0])
            for j in range(actions.max_weapons):
                action[actions.WEAPON + j] = self.choose_target(game, ship, parts[actions.WEAPON + j])
        return action

    # Hooks -------------------------------------------------------------------
    def jobs(self, game: CrewPhaseGame, ship: Ship) -> list[Job]:
        """Jobs after healing and hull repair, best first: ("navigate", section), ("steer", None),
        ("operate", weapon), ("repair_part", weapon), ("cut", None). Hands left over give Command."""
        raise NotImplementedError

    def wants_ram(self, game: CrewPhaseGame, ship: Ship) -> bool:
        return False

    def extra_move_score(self, game: CrewPhaseGame, ship: Ship, moves: ManeuverOutcomes,
                         enemy: Ship) -> np.ndarray:
        return np.zeros(moves.index.size)

    # Crew ----------------------------------------------------------------------
    def assign_crew(self, game: CrewPhaseGame, ship: Ship, parts: list[np.ndarray]) -> dict[int, int]:
        codec = game.actions.crew
        free = [m for m in ship.crew if m.hp > 0]
        chosen: dict[int, int] = {}

        def take(code: int, score) -> bool:
            candidates = [m for m in free if parts[m.index][code]]
            if not candidates:
                return False
            best = max(candidates, key=score)
            free.remove(best)
            chosen[best.index] = code
            return True

        for _ in [m for m in ship.crew if m.hp <= 0]:
            if not take(codec.heal, lambda m: m.heals_left):
                break
        if ship.status is Status.SINKING:
            repairers = min(ship.hull_dice_left, len(free))
        elif ship.hp < self.repair_below * ship.max_hp:
            repairers = min(ship.hull_dice_left, 2, math.ceil((ship.max_hp - ship.hp) / ((ship.hull_die + 1) / 2)))
        else:
            repairers = 0
        for _ in range(repairers):
            if not take(codec.repair_hull, _repairer):
                break
        for job, index in self.jobs(game, ship):
            if not free:
                break
            if job == "navigate":
                take(codec.navigate + (index or 0), _navigator)
            elif job == "steer":
                take(codec.steer, lambda m: (m.water_vehicles, m.dexterity))
            elif job == "operate":
                take(codec.operate + (index or 0), _gunner)
            elif job == "repair_part":
                take(codec.repair_part + (index or 0), _repairer)
            elif job == "cut":
                take(codec.cut, lambda m: m.strength)
        for member in list(free):
            if parts[member.index][codec.command]:
                chosen[member.index] = codec.command
        return chosen

    # Movement ------------------------------------------------------------------
    def move_scores(self, game: CrewPhaseGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
        enemy = nearest_enemy(game, ship)
        score = searoom_score(game, moves) + 0.001 * moves.forward
        if enemy is None:
            return score
        distance = end_distance(moves, enemy)
        score += self.cover_weight * coverage(game, ship, moves) - 0.5 * np.abs(distance - self.standoff)
        if max(abs(ship.x - enemy.x), abs(ship.y - enemy.y)) > self.standoff + 3:
            score += 2.0 * alignment(moves, enemy)   # far off: come about toward the enemy first
        return score + self.extra_move_score(game, ship, moves, enemy)

    # Targets -------------------------------------------------------------------
    def choose_target(self, game: CrewPhaseGame, ship: Ship, legal: np.ndarray) -> int:
        """The hull of the enemy closest to sinking among those this weapon bears on."""
        options = [v for v in np.flatnonzero(legal) if game.actions.targets[v].kind is TargetKind.SHIP]
        if not options:
            return 0
        enemies = game.enemies_of(ship)
        return int(min(options, key=lambda v: enemies[game.actions.targets[v].enemy or 0].hp))


def _repairer(m: CrewMember) -> int:
    return max(m.strength, m.intelligence)


def _navigator(m: CrewMember) -> int:
    return m.strength + (m.proficiency if m.water_vehicles else 0)


def _gunner(m: CrewMember) -> int:
    return m.dexterity + (m.proficiency if m.siege_weapons else 0)


def nearest_enemy(game: CrewPhaseGame, ship: Ship) -> Ship | None:
    enemies = [e for e in game.enemies_of(ship) if e.status is not Status.SUNK]
    if not enemies:
        return None
    return min(enemies, key=lambda e: (max(abs(e.x - ship.x), abs(e.y - ship.y)), e.hp))


def searoom_score(game: CrewPhaseGame, moves: ManeuverOutcomes) -> np.ndarray:
    """Penalty for ending with little open water ahead or near an edge: a ship that cannot turn in
    place may be unable to come about there."""
    state = game.state
    edge = np.minimum.reduce([moves.x, moves.y, state.width - 1 - moves.x, state.height - 1 - moves.y])
    return -0.8 * (5 - sea_room(game, moves, 5)) - 1.0 * np.maximum(0, 3 - edge)


def ram_is_sound(ship: Ship, target: Ship) -> bool:
    """A miss would leave the ship repairable, or a hit sinks the target outright and a miss does not
    sink the ship (the ram as written: a miss costs the rammer the target's maximum)."""
    after_miss = ship.hp - target.max_hp
    sinks_target = target.hp - ship.max_hp <= target.floor
    return after_miss >= -ship.hull_die or (sinks_target and after_miss > ship.floor)


class RammerCaptain(ScriptedCrewPhaseCaptain):
    name = "rammer"
    description = (
        "a helmsman and every hand on the sails first, then the bow guns and harpoon, then the "
        "broadsides; closes bow-on and rams whatever is directly ahead when a miss would not sink "
        "it.")
    standoff = 1.0

    def jobs(self, game: CrewPhaseGame, ship: Ship) -> list[Job]:
        enemy = nearest_enemy(game, ship)
        sails = ship.sections
        if enemy is not None and grappled_with(game.state, ship.id, enemy.id):
            sails = min(sails, 1)  # locked together by a ram: man the guns
        jobs: list[Job] = [("steer", None)]
        jobs += [("navigate", s) for s in range(sails)]
        # Bow guns and the grappling harpoon bear where the ram goes: they come first.
        jobs += [("operate", w.index) for w in sorted(ship.weapons, key=lambda w: w.arc not in (BOW, ALL))]
        return jobs

    def wants_ram(self, game: CrewPhaseGame, ship: Ship) -> bool:
        target = game.ram_target(ship)
        return target is not None and ram_is_sound(ship, target)

    def extra_move_score(self, game: CrewPhaseGame, ship: Ship, moves: ManeuverOutcomes,
                         enemy: Ship) -> np.ndarray:
        if grappled_with(game.state, ship.id, enemy.id) and not ram_is_sound(ship, enemy):
            # Locked together and no sound ram: swing the broadsides to bear instead.
            return 2.0 * coverage(game, ship, moves)
        score = 2.0 * alignment(moves, enemy) + 0.01 * moves.feet_left
        if ram_is_sound(ship, enemy):
            score = np.where(ram_ready(moves, enemy), score + 100.0, score)
        return score


class GunnerCaptain(ScriptedCrewPhaseCaptain):
    name = "gunner"
    description = (
        "crews every gun first, holds its broadside on the enemy at a few squares, keeps out of "
        "the enemy's bow, never rams and cuts grappling lines.")
    repair_below = 0.7
    standoff = 4.0

    def jobs(self, game: CrewPhaseGame, ship: Ship) -> list[Job]:
        jobs: list[Job] = []
        if in_weapon_grapple(game.state, ship.id):
            jobs.append(("cut", None))
        jobs += [("operate", w.index) for w in ship.weapons if not w.grapples]
        jobs.append(("steer", None))
        jobs += [("navigate", s) for s in range(ship.sections)]
        return jobs

    def extra_move_score(self, game: CrewPhaseGame, ship: Ship, moves: ManeuverOutcomes,
                         enemy: Ship) -> np.ndarray:
        """Stay out of the enemy's ram: not in front of its bow within its reach, never alongside."""
        return -4.0 * in_its_bow(game, moves, enemy) - 6.0 * (end_distance(moves, enemy) <= 1)


class BreakerCaptain(GunnerCaptain):
    name = "breaker"
    description = (
        "the gunner's crew and helm, but it silences the guns that can fire on it: each shot goes "
        "at the enemy's working gun whose arc covers this ship (the most damaged first), the hull "
        "when none does or once the enemy is down to half its hull; spare hands repair its own "
        "broken guns; it stands a square further off than the gunner.")
    # A square further off and a heavier weight on guns bearing than the gunner's: tuned against
    # gunner, rammer and a breaker with the gunner's settings (docs/rules/crew_phase.md, Captains).
    standoff = 5.0
    cover_weight = 5.0
    #: Hull fraction at or under which an enemy is finished off rather than disarmed.
    finish_below = 0.5

    def jobs(self, game: CrewPhaseGame, ship: Ship) -> list[Job]:
        broken = [("repair_part", w.index) for w in ship.weapons if not w.working and not w.grapples]
        return super().jobs(game, ship) + broken

    def choose_target(self, game: CrewPhaseGame, ship: Ship, legal: np.ndarray) -> int:
        """The most damaged enemy gun that can fire on this ship, else the hull (a harpoon only grapples:
        never worth a shot). An enemy at half its hull or less is sunk rather than disarmed."""
        targets = game.actions.targets
        enemies = game.enemies_of(ship)
        best, best_hp = 0, None
        for value in np.flatnonzero(legal):
            target = targets[value]
            if target.kind is not TargetKind.PART:
                continue
            enemy = enemies[target.enemy or 0]
            if enemy.hp <= self.finish_below * enemy.max_hp:
                continue
            weapon = enemy.weapons[target.index or 0]
            if not weapon.working or weapon.grapples:
                continue
            if not covers_square(weapon.arc, enemy.facing, ship.x - enemy.x, ship.y - enemy.y):
                continue
            if best_hp is None or weapon.hp < best_hp:
                best, best_hp = int(value), weapon.hp
        return best if best_hp is not None else super().choose_target(game, ship, legal)


#: Found by naval_agents.captains.registry; the first one is the env's default opponent.
CAPTAINS = {"rammer": RammerCaptain, "gunner": GunnerCaptain, "breaker": BreakerCaptain}
