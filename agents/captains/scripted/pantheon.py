"""Scripted `pantheon` captains with distinct tactics. They read the engine, never the dice.

Captains: ``rammer``, ``gunner``; each class declares its ``description`` (how it plays), which
``naval-tactics list`` and the server's catalogue show.
"""

from __future__ import annotations

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.rulesets.pantheon.actions import AttackKind, TurnOrder
from naval_env.rulesets.pantheon.actions import PantheonActions as A
from naval_env.rulesets.pantheon.crew import CREW_LABELS, REPAIR_CODE
from naval_env.rulesets.pantheon.engine import ManeuverOutcomes, PantheonGame
from naval_env.rulesets.pantheon.state import Phase, Ship

CREW_CODE = {label: code for code, label in enumerate(CREW_LABELS)}


class ScriptedPantheonCaptain(Captain):
    """Shared plumbing: phase dispatch, legal lookups, crew and retest orders."""

    needs_observation = False

    crew_preference: tuple[str, ...] = ()

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, PantheonGame):
            raise TypeError(f"{self.name} captain needs the pantheon game in its Decision, got {type(game).__name__}")
        spec = game.action_spec
        parts = spec.split(decision.action_mask)
        ship = game.state.ships[decision.agent]
        action = spec.noop()
        phase = game.state.phase
        if phase is Phase.START:
            action[A.TURN_ORDER] = self.turn_order(game, ship, parts[A.TURN_ORDER])
        elif phase is Phase.MOVE:
            action[A.MANEUVER] = self.choose_move(game, ship, decision.agent)
        elif phase is Phase.ESCAPE:
            action[A.ESCAPE] = self.choose_move(game, ship, decision.agent)
        else:
            action[A.ATTACK] = self.choose_attack(game, ship, parts[A.ATTACK])
            for slot in range(A.RETEST_ON_FAILURE - A.CREW):
                action[A.CREW + slot] = self.crew_action(ship, slot, parts[A.CREW + slot])
            action[A.RETEST_ON_FAILURE] = int(parts[A.RETEST_ON_FAILURE][1])
            action[A.RETEST_WHEN_HIT] = int(parts[A.RETEST_WHEN_HIT][1])
        return action

    # Hooks -------------------------------------------------------------------
    def turn_order(self, game: PantheonGame, ship: Ship, legal: np.ndarray) -> int:
        return TurnOrder.PROCEED

    def attack_order(self, ship: Ship) -> tuple[AttackKind, ...]:
        """Attack kinds to try, best first."""
        raise NotImplementedError

    def move_scores(self, game: PantheonGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
        """Score of every legal maneuver (higher is better); the first best one is chosen."""
        raise NotImplementedError

    # Shared logic --------------------------------------------------------------
    def choose_move(self, game: PantheonGame, ship: Ship, agent: str) -> int:
        moves = game.maneuver_outcomes(agent)
        if moves is None or moves.index.size == 0:
            return 0
        return int(moves.index[int(np.argmax(self.move_scores(game, ship, moves)))])

    def choose_attack(self, game: PantheonGame, ship: Ship, legal: np.ndarray) -> int:
        enemies = game.enemies_of(ship)
        for kind in self.attack_order(ship):
            options = [
                code for code, choice in enumerate(game.actions.attacks)
                if choice.kind is kind and legal[code]
            ]
            if options:
                # Among targets, the one closest to sinking.
                return min(options, key=lambda c: _target_health(enemies, game.actions.attacks[c].target_slot))
        return 0

    def crew_action(self, ship: Ship, slot: int, legal: np.ndarray) -> int:
        if slot == 0 and legal[REPAIR_CODE] and ship.health <= ship.max_health // 2:
            return REPAIR_CODE
        if not self.crew_preference:
            return 0
        code = CREW_CODE[self.crew_preference[slot % len(self.crew_preference)]]
        return code if legal[code] else 0


def _target_health(enemies: list[Ship], slot: int | None) -> int:
    return 0 if slot is None else enemies[slot].health


def nearest_enemy_distance(game: PantheonGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
    """Chebyshev distance from each maneuver's end square to the nearest fighting enemy."""
    enemies = [e for e in game.enemies_of(ship) if e.status.fighting]
    if not enemies:
        return np.zeros(moves.index.size, dtype=np.int64)
    ex = np.array([e.x for e in enemies])[:, None]
    ey = np.array([e.y for e in enemies])[:, None]
    return np.maximum(np.abs(moves.x - ex), np.abs(moves.y - ey)).min(axis=0)


class RammerCaptain(ScriptedPantheonCaptain):
    name = "rammer"
    description = (
        "closes in, rams whatever it can reach, boards and presses when it cannot ram.")
    crew_preference = ("attack+ram", "damage+ram", "dodge+ram", "attack+board")

    def attack_order(self, ship: Ship) -> tuple[AttackKind, ...]:
        return (AttackKind.REPAIR, AttackKind.RAM, AttackKind.BOARD, AttackKind.FIRE)

    def choose_attack(self, game: PantheonGame, ship: Ship, legal: np.ndarray) -> int:
        # Press an existing boarding first; otherwise ram beats starting a new boarding.
        if ship.boarding is not None:
            slot = [e.id for e in game.enemies_of(ship)].index(ship.boarding)
            code = next(c for c, a in enumerate(game.actions.attacks)
                        if a.kind is AttackKind.BOARD and a.target_slot == slot)
            if legal[code]:
                return code
        return super().choose_attack(game, ship, legal)

    def move_scores(self, game: PantheonGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
        distance = nearest_enemy_distance(game, ship, moves)
        can_ram = (distance == 1) & (moves.forward > 0)  # contact after moving forward: ram next
        return np.where(can_ram, 100.0, -distance.astype(float)) + moves.forward * 0.01


class GunnerCaptain(ScriptedPantheonCaptain):
    name = "gunner"
    description = (
        "keeps at the edge of Fire! range, shoots the weakest target, cuts free of boarders.")
    crew_preference = ("attack+fire", "damage+fire", "dodge+ram", "dodge+board")

    def turn_order(self, game: PantheonGame, ship: Ship, legal: np.ndarray) -> int:
        return TurnOrder.RELEASE if legal[TurnOrder.RELEASE] else TurnOrder.PROCEED

    def attack_order(self, ship: Ship) -> tuple[AttackKind, ...]:
        if ship.tied_to is None:
            return (AttackKind.REPAIR, AttackKind.FIRE)
        return (AttackKind.GET_OUT, AttackKind.FIRE)

    def move_scores(self, game: PantheonGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
        distance = nearest_enemy_distance(game, ship, moves)
        state = game.state
        edge_room = np.minimum.reduce([moves.x, moves.y, state.width - 1 - moves.x, state.height - 1 - moves.y])
        in_range = 20.0 + distance  # in range, as far back as the guns allow
        score = np.where(distance <= 1, -50.0, np.where(distance <= ship.fire_range, in_range, -distance))
        return score + 0.1 * np.minimum(edge_room, 2)


#: Found by naval_agents.captains.registry; the first one is the env's default opponent.
CAPTAINS = {"rammer": RammerCaptain, "gunner": GunnerCaptain}
