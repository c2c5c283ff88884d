"""The `crew_phase` rules engine: set-up, the two phases of a round, and the legal-action masks.

Each round is a Character Phase (every ship's captain assigns its crew members'
actions, in fixed ship-initiative order: decision CREW) and then a Ship Phase
(ships act in initiative order, raised by Command: decisions MOVE and ATTACK).
A decision with nothing to choose is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from naval_env.core import maneuvers
from naval_env.core.cache import PerObjectCache, PerScenarioCache, scenario_ships
from naval_env.core.events import Event
from naval_env.core.game import ShipBattle
from naval_env.core.grid import Compass
from naval_env.rulesets.crew_phase.arcs import covers_square, directly_ahead
from naval_env.rulesets.crew_phase.combat import TargetKind, ram, weapon_attack
from naval_env.rulesets.crew_phase.config import (
    ARCS,
    SIZES,
    CrewPhaseConfig,
    Scenario,
    ShipSetup,
    SideSetup,
    parse_dice,
)
from naval_env.rulesets.crew_phase.events import (
    AttackLost,
    CharacterPhaseStarted,
    Moved,
    ShipPhaseStarted,
    TurnStarted,
)
from naval_env.rulesets.crew_phase.grapple import (
    end_grapples_of,
    held_by_larger,
    in_weapon_grapple,
    towed_by,
)
from naval_env.rulesets.crew_phase.hull import damage_hull, sinking_damage
from naval_env.rulesets.crew_phase.movement import bits_to_bytes, speed_allowance, tow_multiplier
from naval_env.rulesets.crew_phase.observer import ObserverConstants, observe
from naval_env.rulesets.crew_phase.state import (
    CrewMember,
    GameState,
    Phase,
    Ship,
    Status,
    WeaponState,
)

#: Where an illegal action was tried, per phase (built once: an Enum's ``name`` is slow to read).
_CONTEXT = {phase: f"in phase {phase.name}" for phase in Phase}
# Enum members read once: Enum class attributes are slow to read in Python 3.11.
_AFLOAT, _SINKING, _SUNK = Status.AFLOAT, Status.SINKING, Status.SUNK
_CREW, _MOVE, _ATTACK = Phase.CREW, Phase.MOVE, Phase.ATTACK


#: numpy's bool dtype as an object: ``np.frombuffer(mask, _BOOL)`` parses no keyword (a third of its cost).
_BOOL = np.dtype(bool)
_SHARED_OBSERVER_CONSTANTS: PerObjectCache[CrewPhaseConfig, dict[str, ObserverConstants]] = PerObjectCache(
    lambda _: {})

# The scenario's ships as set-up builds them, before any is placed: what no die decides, built once per config
# and scenario; every game takes copies (``Ship.copy`` copies the crew and weapons).
def _template(config: CrewPhaseConfig, side: SideSetup, setup: ShipSetup, ship_id: str, slot: int) -> Ship:
    vessel = config.vessels[setup.vessel]
    return Ship(
        id=ship_id, side=side.name, vessel=setup.vessel, slot=slot,
        size=SIZES.index(vessel.size), speed_unit=vessel.speed_unit, sections=vessel.sections,
        self_steering=vessel.self_steering, agile=vessel.agile, rails=vessel.rails, ac=vessel.ac,
        base_initiative=vessel.initiative, max_hp=vessel.hull_points, hp=vessel.hull_points,
        hull_die=vessel.hull_dice.sides, hull_dice_max=vessel.hull_dice.count,
        hull_dice_left=vessel.hull_dice.count, x=-1, y=-1,
        facing=int(Compass.parse(setup.facing or side.facing)),
        crew=[_crew_member(config, i, role) for i, role in enumerate(setup.crew or vessel.crew)],
        weapons=[_weapon(config, j, mount.weapon, mount.arc) for j, mount in enumerate(vessel.weapons)],
    )


_prototypes: PerScenarioCache[CrewPhaseConfig, tuple[Ship, ...]] = scenario_ships(_template)


def _crew_member(config: CrewPhaseConfig, index: int, role: str) -> CrewMember:
    p = config.crew_profiles[role]
    return CrewMember(index=index, role=role, strength=p.strength, dexterity=p.dexterity,
                      intelligence=p.intelligence, charisma=p.charisma, proficiency=p.proficiency,
                      water_vehicles=p.water_vehicles, siege_weapons=p.siege_weapons,
                      dex_save=p.dexterity if p.dex_save is None else p.dex_save, ac=p.ac, max_hp=p.hp,
                      hp=p.hp, heals_left=p.heals)


def _weapon(config: CrewPhaseConfig, index: int, name: str, arc: str) -> WeaponState:
    w = config.weapons[name]
    return WeaponState(index=index, name=name, arc=ARCS.index(arc), ability=w.ability,
                       attack_bonus=w.attack_bonus, dice=parse_dice(w.damage), range_ft=w.range,
                       long_range_ft=w.long_range, max_hp=w.hp, hp=w.hp, ac=w.ac, ammo=w.ammo,
                       grapples=w.grapples)

class CrewPhaseGame(ShipBattle[GameState, CrewPhaseConfig]):
    ruleset_id = "crew_phase"
    scenario: Scenario
    observer_constants: ObserverConstants | None

    def _prepare(self) -> None:
        super()._prepare()
        self._noop_bytes = self.action_spec.noop_mask().tobytes()
        self._crew_idle = self._noop_bytes[:self.actions.crew.size]  # the no-op block of one crew component
        self.observer_constants = None  # a loaded position's: built by the observer on first use

    def _start(self, events: list[Event]) -> None:
        # Every game set up from the scenario has the same ships' constants: the observer's are shared.
        shared = _SHARED_OBSERVER_CONSTANTS(self.config)
        if self.scenario_name not in shared:
            shared[self.scenario_name] = ObserverConstants(self)
        self.observer_constants = shared[self.scenario_name]
        self._start_round(events)
        self._advance(events)

    def _enter(self, state: GameState) -> None:
        """Hold ``state`` and index its ships (agent order, enemies, allies, target slots)."""
        super()._enter(state)
        self._enemy_slot = {s: {o.id: i for i, o in enumerate(self._enemies[s])} for s in self._agents}

    # ------------------------------------------------------------------ set-up
    def _set_up(self) -> GameState:
        config, scenario = self.config, self.scenario
        width, height = scenario.board
        ships: dict[str, Ship] = {}
        occupancy: dict[tuple[int, int], str] = {}
        reserved: set[tuple[int, int]] = {
            (s.position[0], s.position[1]) for side in scenario.sides for s in side.ships if s.position is not None}
        prototypes = iter(_prototypes(config, self.scenario_name))
        for side in scenario.sides:
            for setup in side.ships:
                x, y = setup.position if setup.position is not None else self._place(
                    side.zone, reserved | occupancy.keys())
                ship = next(prototypes).copy()
                ship.x, ship.y = x, y
                ships[ship.id] = ship
                occupancy[(x, y)] = ship.id
        order = sorted(ships, key=lambda s: (-ships[s].base_initiative, ships[s].slot))
        sides = tuple(side.name for side in scenario.sides)
        return GameState(width, height, scenario.weather == "rough", (sides[0], sides[1]), ships,
                         character_order=order, order=list(order), initiative={}, occupancy=occupancy)

    def _place(self, zone: Any, taken: set[tuple[int, int]]) -> tuple[int, int]:
        """A free square of the set-up zone (not ``taken``), drawn with the game's dice."""
        free = [(x, y) for y in range(zone.y[0], zone.y[1] + 1) for x in range(zone.x[0], zone.x[1] + 1)
                if (x, y) not in taken]
        if not free:
            raise ValueError(f"set-up zone {zone} has no free square left")
        return free[self.dice.choice_index(len(free), "placement")]

    # ------------------------------------------------------------- Game API
    def is_active(self, agent: str) -> bool:
        return self.state.ships[agent].status is not _SUNK

    def health(self, agent: str) -> tuple[int, int]:
        ship = self.state.ships[agent]
        return ship.hp, ship.max_hp

    observe = observe  # the observer's ``observe(game, agent)``, bound as the method

    # ------------------------------------------------------------------ masks
    # Masks are built as bytes (one per value) from the no-op mask's and handed to numpy once: numpy
    # calls cost more than the Python item assignments on so few values.
    def _build_mask(self, ship: Ship) -> np.ndarray:
        phase = self.state.phase
        if phase is _CREW:
            return self._crew_mask(ship)
        if phase is _MOVE:
            return self._maneuver_mask(self._maneuver_bits(ship))
        return self._attack_mask(self._attack_choices(ship))

    def _crew_mask(self, ship: Ship) -> np.ndarray:
        """Crew components come first in the flat mask, one block each: a conscious crew member's block
        is the ship's row (a healer's with healing when someone is down), any other is a no-op block."""
        row = self._crew_row(ship)
        idle = self._crew_idle
        blocks: list[bytes | bytearray] = []
        someone_down = False
        for member in ship.crew:
            if member.hp > 0:
                blocks.append(row)
            else:
                blocks.append(idle)
                someone_down = True
        if someone_down:  # healing needs a patient
            heal = self.actions.crew.heal
            healing = row[:heal] + b"\x01" + row[heal + 1:]
            for i, member in enumerate(ship.crew):
                if member.hp > 0 and member.heals_left > 0:
                    blocks[i] = healing
        blocks.append(self._noop_bytes[len(ship.crew) * len(idle):])
        return np.frombuffer(b"".join(blocks), _BOOL)

    def _crew_row(self, ship: Ship) -> bytearray:
        """What any conscious crew member of ``ship`` may do, healing aside."""
        codec = self.actions.crew
        state = self.state
        row = bytearray(codec.size)
        row[0] = row[codec.command] = True
        if ship.status is _AFLOAT:
            row[codec.steer] = True
            if not (state.grapples and held_by_larger(state, ship)):  # no call without a grapple
                navigate = codec.navigate
                row[navigate: navigate + ship.sections] = b"\x01" * ship.sections
        operate, ready = codec.operate, codec.ready
        for j, weapon in enumerate(ship.weapons):
            if weapon.hp > 0 and weapon.ammo > 0 and weapon.holding is None:
                row[operate + j] = row[ready + j] = True
        if ship.hull_dice_left > 0:
            repair_part = codec.repair_part
            for j, weapon in enumerate(ship.weapons):
                if weapon.hp < weapon.max_hp:
                    row[repair_part + j] = True
            row[codec.repair_hull] = ship.hp < ship.max_hp
        if state.grapples:
            row[codec.cut] = in_weapon_grapple(state, ship.id)
        return row

    def move_cost(self, ship: Ship) -> tuple[int, list[Ship]]:
        """Feet of speed one square costs this ship now, and the ships it would tow."""
        towed = towed_by(self.state, ship)
        if not towed:  # the common case, without tow_multiplier's generator
            return self.rules.square_feet, towed
        return self.rules.square_feet * tow_multiplier(ship.size, [s.size for s in towed]), towed

    def _maneuver_mask(self, bits: int) -> np.ndarray:
        mask = bytearray(self._noop_bytes)
        size = len(self.actions.maneuvers)
        base = self.action_spec.offsets[self.actions.MANEUVER]
        mask[base: base + size] = bits_to_bytes(bits, size)
        return np.frombuffer(mask, _BOOL)

    def _maneuver_bits(self, ship: Ship) -> int:
        """Bit set of the legal values of the ``maneuver`` component."""
        if ship.status is not _AFLOAT:
            return 1  # hold only
        state = self.state
        cost, towed = self.move_cost(ship)
        table = self.actions.table(ship.agile, ship.speed_unit, cost)
        max_squares = ship.movement_left // cost
        if max_squares <= 0:  # the usual skipped decision: no square entered, so nothing can block
            return table.within_reach(max_squares, ship.can_turn)
        movers = [(ship.x, ship.y)]
        moving = {ship.id}
        for other in towed:
            movers.append((other.x, other.y))
            moving.add(other.id)
        return table.legal(ship.facing, max_squares, ship.can_turn, movers, state.width, state.height,
                           [square for square, other in state.occupancy.items() if other not in moving])

    def ram_target(self, ship: Ship) -> Ship | None:
        """The enemy ship this ship may ram now: directly ahead, with a square of movement left to enter it."""
        if ship.rammed or ship.status is not _AFLOAT:
            return None
        other_id = self.state.occupancy.get(directly_ahead(ship.x, ship.y, ship.facing))
        if other_id is None or other_id not in self._enemy_slot[ship.id]:
            return None
        if ship.movement_left < self.move_cost(ship)[0]:
            return None
        return self.state.ships[other_id]

    def covers(self, ship: Ship, weapon: WeaponState, target: Ship) -> bool:
        """Whether ``target`` is within the weapon's long range and arc."""
        dx, dy = target.x - ship.x, target.y - ship.y
        if max(abs(dx), abs(dy)) * self.rules.square_feet > weapon.long_range_ft:
            return False
        return covers_square(weapon.arc, ship.facing, dx, dy)

    def _attack_mask(self, choices: list[int]) -> np.ndarray:
        mask = bytearray(self._noop_bytes)
        for position in choices:
            mask[position] = True
        return np.frombuffer(mask, _BOOL)

    def _attack_choices(self, ship: Ship) -> list[int]:
        """Positions in the flat mask of the ATTACK values allowed beyond the no-ops."""
        offsets = self.action_spec.offsets
        actions = self.actions
        choices: list[int] = []
        target = self.ram_target(ship)
        if target is not None:
            choices.append(offsets[actions.RAM] + 1 + self._enemy_slot[ship.id][target.id])
        enemies = self._enemies[ship.id]
        n_enemies, n_crew, n_weapons = actions.max_enemies, actions.max_crew, actions.max_weapons
        for j, weapon in enumerate(ship.weapons):
            if weapon.operator is None or weapon.hp <= 0 or weapon.ammo <= 0 or ship.crew[weapon.operator].hp <= 0:
                continue
            base = offsets[actions.WEAPON + j]
            for e, enemy in enumerate(enemies):
                if enemy.status is _SUNK or not self.covers(ship, weapon, enemy):
                    continue
                choices.append(base + 1 + e)
                if weapon.grapples:
                    continue  # a grappling weapon is aimed at ships only
                crew_base = base + 1 + n_enemies + e * n_crew
                choices += [crew_base + m for m, member in enumerate(enemy.crew) if member.hp > 0]
                part_base = base + 1 + n_enemies * (1 + n_crew) + e * n_weapons
                choices += [part_base + k for k, part in enumerate(enemy.weapons) if part.hp > 0]
        return choices

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        self._check_decider(agent)
        state = self.state
        # Plain ints from here on: indexing a numpy array per value costs more than one tolist().
        values = self.action_spec.checked_values(action, self._current_mask(), _CONTEXT[state.phase])
        ship = state.ships[agent]
        events: list[Event] = []
        self._mask = None
        if state.phase is _CREW:
            self._apply_crew(ship, values, events)
        elif state.phase is _MOVE:
            self._apply_move(ship, values[self.actions.MANEUVER], events)
            self._check_end(events)
            if not state.ended and ship.status is not _SUNK and self._enter_attack(ship):
                return events
        else:
            self._apply_attack(ship, values, events)
            self._check_end(events)
        self._advance(events)
        return events

    def _apply_crew(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        codec = self.actions.crew
        actions, handlers = codec.actions, codec.handlers
        dice, rules, state = self.dice, self.rules, self.state
        for member, code in zip(ship.crew, values):
            if code:
                member.action = code
                # Read per member: a Repair may bring the ship back afloat.
                sinking = ship.status is _SINKING
                handlers[code](dice, rules, state, ship, member, actions[code], sinking, events)

    def _apply_move(self, ship: Ship, index: int, events: list[Event]) -> None:
        if index == 0:
            return
        state = self.state
        cost, towed = self.move_cost(ship)
        table = self.actions.table(ship.agile, ship.speed_unit, cost)
        maneuver = self.actions.maneuvers[index]
        cells = table.paths[ship.facing][index]
        start, facing_from = (ship.x, ship.y), ship.facing
        dx, dy = cells[-1] if cells else (0, 0)
        group = [ship, *towed]
        for s in group:
            del state.occupancy[(s.x, s.y)]
        for s in group:
            s.x, s.y = s.x + dx, s.y + dy
            state.occupancy[(s.x, s.y)] = s.id
        ship.facing = int(table.end_facing[facing_from, index])
        feet = maneuver.forward * cost
        ship.movement_left -= feet
        path = (start, *((start[0] + cx, start[1] + cy) for cx, cy in cells))
        events.append(Moved(ship.id, path, facing_from, ship.facing, feet, tuple(s.id for s in towed)))
        if maneuver.forward:
            self._trigger_readied(group, events)

    def _trigger_readied(self, moved: list[Ship], events: list[Event]) -> None:
        """Readied attacks fire at an enemy ship that ends a move within their weapon's range and arc."""
        state = self.state
        for mover in moved:
            for ship_id in state.order:
                ship = state.ships[ship_id]
                if ship.side == mover.side or ship.status is _SUNK:
                    continue
                for weapon in ship.weapons:
                    if mover.status is _SUNK:
                        return
                    if weapon.readied_by is None or not self.covers(ship, weapon, mover):
                        continue
                    operator = ship.crew[weapon.readied_by]
                    weapon.readied_by = None
                    if operator.hp <= 0:
                        events.append(AttackLost(ship.id, weapon.index, "the crew member who readied it is down"))
                    elif weapon.hp <= 0:
                        events.append(AttackLost(ship.id, weapon.index, "the weapon is destroyed"))
                    elif weapon.ammo <= 0:
                        # 'Para Operar un arma ... el personaje debe tener acceso a todos los materiales necesarios
                        # (munición)', and a readied action keeps every usual rule: no ammunition, no shot.
                        events.append(AttackLost(ship.id, weapon.index, "the weapon has no ammunition"))
                    else:
                        weapon_attack(self.dice, self.rules, state, ship, weapon, operator, mover, TargetKind.SHIP,
                                      None, True, events)

    def _apply_attack(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        actions = self.actions
        enemies = self._enemies[ship.id]
        ram_value = values[actions.RAM]
        if ram_value:
            ship.movement_left -= self.move_cost(ship)[0]
            ram(self.dice, self.rules, self.state, ship, enemies[ram_value - 1], events)
        for j, weapon in enumerate(ship.weapons):
            value = values[actions.WEAPON + j]
            if not value:
                continue
            target = actions.targets[value]
            enemy = enemies[target.enemy or 0]
            reason = self._no_longer_possible(ship, weapon, enemy, target.kind, target.index)
            if reason:
                events.append(AttackLost(ship.id, weapon.index, reason))
                continue
            operator = ship.crew[weapon.operator or 0]
            weapon.operator = None  # the attack is spent
            weapon_attack(self.dice, self.rules, self.state, ship, weapon, operator, enemy, target.kind,
                          target.index, False, events)

    def _no_longer_possible(self, ship: Ship, weapon: WeaponState, enemy: Ship, kind: TargetKind,
                            index: int | None) -> str | None:
        """Why an attack chosen at the start of the decision cannot be made any more (the ram or an
        earlier weapon changed things), or None."""
        if ship.status is _SUNK:
            return f"{ship.id} sank"
        if weapon.operator is None or ship.crew[weapon.operator].hp <= 0:
            return "its crew member is down"
        if enemy.status is _SUNK:
            return f"{enemy.id} sank"
        if kind is TargetKind.CREW and enemy.crew[index or 0].hp <= 0:
            return "the target is already down"
        if kind is TargetKind.PART and enemy.weapons[index or 0].hp <= 0:
            return "the target weapon is already destroyed"
        return None

    # ------------------------------------------------------------- turn flow
    def _start_round(self, events: list[Event]) -> None:
        """Begin the Character Phase: last round's crew actions and readied attacks are spent or lost."""
        state = self.state
        for ship in state.ships.values():
            ship.speed_ft = ship.sections_manned = ship.command_successes = 0
            ship.helmsman = None
            ship.steer_ok = ship.cut_lines = ship.rammed = False
            ship.movement_left = 0
            for member in ship.crew:
                member.action = 0
                member.prone = False  # a prone crew member stands up on their next turn
            for weapon in ship.weapons:
                weapon.operator = weapon.readied_by = None
        state.ship_phase = False
        state.phase = _CREW
        state.order = [s for s in state.character_order if state.ships[s].status is not _SUNK]
        state.turn = -1
        events.append(CharacterPhaseStarted(state.round, tuple(state.order)))

    def _start_ship_phase(self, events: list[Event]) -> None:
        """End the Character Phase (a side with no ship afloat after its repairs loses) and order the ships."""
        state = self.state
        self._check_afloat(events)
        if state.ended:
            return
        bonus = self.rules.command_bonus
        ships = [s for s in state.ships.values() if s.status is not _SUNK]
        state.initiative = initiative = {s.id: s.base_initiative + bonus * s.command_successes for s in ships}
        # (-initiative, slot, id) tuples sort as the order asks, highest initiative first and ties by slot (slots
        # differ), without a key function called per ship.
        state.order = [ship_id for _, _, ship_id in sorted([(-initiative[s.id], s.slot, s.id) for s in ships])]
        state.ship_phase = True
        state.turn = -1
        events.append(ShipPhaseStarted(state.round, tuple(state.order),
                                       tuple(state.initiative[s] for s in state.order)))

    def _advance(self, events: list[Event]) -> None:
        """Move on until some captain holds a decision or the game ends."""
        state = self.state
        while not state.ended:
            state.turn += 1
            if state.turn >= len(state.order):
                if not state.ship_phase:
                    self._start_ship_phase(events)
                elif state.round >= self.rules.max_rounds:
                    self._finish(None, "round_limit", events)
                else:
                    state.round += 1
                    self._start_round(events)
                continue
            ship = state.ships[state.order[state.turn]]
            if ship.status is _SUNK:
                continue
            if not state.ship_phase:
                if ship.has_conscious_crew():
                    state.phase = _CREW
                    self._mask = None
                    return
                continue
            if self._begin_ship_turn(ship, events):
                return
            if ship.status is _SUNK:  # of its sinking damage: nothing else in a skipped turn sinks a ship
                self._check_end(events)

    def _begin_ship_turn(self, ship: Ship, events: list[Event]) -> bool:
        """Start a ship's Ship Phase turn; False when it has no decision to make."""
        state = self.state
        events.append(TurnStarted(ship.id, state.round))
        if ship.status is _SINKING:
            damage_hull(state, ship, sinking_damage(ship, self.rules.sinking_damage_divisor), None, "sinking",
                        events)
            if ship.status is _SUNK:
                return False
        if ship.cut_lines:
            end_grapples_of(state, ship.id, "grappling lines cut", events, weapon_only=True)
        ship.movement_left = speed_allowance(ship, held_by_larger(state, ship))
        ship.rammed = False
        state.phase = _MOVE
        # Most Ship Phase decisions allow nothing but the no-ops: skipped, they never need a numpy mask.
        bits = self._maneuver_bits(ship)
        if bits >> 1:  # a maneuver other than hold
            self._mask = self._maneuver_mask(bits)
            return True
        return self._enter_attack(ship)

    def _enter_attack(self, ship: Ship) -> bool:
        """Enter the ship's ATTACK decision; False when it allows nothing but the no-ops (it is skipped)."""
        self.state.phase = _ATTACK
        choices = self._attack_choices(ship)
        self._mask = self._attack_mask(choices) if choices else None
        return bool(choices)

    def _check_end(self, events: list[Event]) -> None:
        """A side with no ship left on the board (all sunk) loses."""
        state = self.state
        if state.ended:
            return
        standing = {s.side for s in state.ships.values() if s.status is not _SUNK}
        if len(standing) == 1:
            self._finish(standing.pop(), "the other side's ships are sunk", events)
        elif not standing:
            self._finish(None, "every ship sunk", events)

    def _check_afloat(self, events: list[Event]) -> None:
        """At the end of a Character Phase a side whose every ship is sinking or sunk (its crews had their
        chance to repair) loses; both at once is a draw."""
        state = self.state
        afloat = {s.side for s in state.ships.values() if s.status is _AFLOAT}
        if len(afloat) == 1:
            self._finish(afloat.pop(), "the other side has no ship afloat", events)
        elif not afloat:
            self._finish(None, "no ship afloat", events)

    # ---------------------------------------------------------- for captains
    def legal_maneuvers(self) -> np.ndarray:
        """Values of the ``maneuver`` component allowed in the decision held now, ascending."""
        base = self.action_spec.offsets[self.actions.MANEUVER]
        return self._current_mask()[base: base + len(self.actions.maneuvers)].nonzero()[0]

    def maneuver_outcomes(self, agent: str) -> ManeuverOutcomes | None:
        """Where each legal maneuver of the current MOVE decision ends (for scripted captains)."""
        if self.state.phase is not _MOVE or agent != self.current_agent:
            return None
        ship = self.state.ships[agent]
        cost, _ = self.move_cost(ship)
        table = self.actions.table(ship.agile, ship.speed_unit, cost)
        index = self.legal_maneuvers()
        f = ship.facing
        forward = table.forward[index]
        return ManeuverOutcomes(index, ship.x + table.end_dx[f, index], ship.y + table.end_dy[f, index],
                                table.end_facing[f, index], forward, ship.movement_left - forward * cost, cost)


@dataclass(frozen=True)
class ManeuverOutcomes(maneuvers.ManeuverOutcomes):
    """The grid's maneuver outcomes and the feet of movement each leaves."""

    feet_left: np.ndarray
    cost: int


def check_invariants(game: CrewPhaseGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (used by fuzz tests)."""
    state = game.state
    on_board = {s.id for s in state.ships.values() if s.status is not Status.SUNK}
    assert set(state.occupancy.values()) == on_board, "occupancy does not match the ships on the board"
    assert len(state.occupancy) == len(on_board), "two ships share a square"
    for (x, y), ship_id in state.occupancy.items():
        ship = state.ships[ship_id]
        assert (ship.x, ship.y) == (x, y), f"{ship_id} is not where the board says"
        assert 0 <= x < state.width and 0 <= y < state.height, f"{ship_id} is off the board"
    holders = {(g.holder, g.weapon) for g in state.grapples if g.weapon is not None}
    for ship in state.ships.values():
        assert ship.floor <= ship.hp <= ship.max_hp, f"{ship.id} hull {ship.hp} out of bounds"
        expected = Status.AFLOAT if ship.hp > 0 else (Status.SUNK if ship.hp <= ship.floor else Status.SINKING)
        assert ship.status is expected, f"{ship.id} is {ship.status.value} at {ship.hp} hull points"
        assert 0 <= ship.hull_dice_left <= ship.hull_dice_max
        assert 0 <= ship.facing < 8
        for member in ship.crew:
            assert 0 <= member.hp <= member.max_hp and member.heals_left >= 0
        for weapon in ship.weapons:
            assert 0 <= weapon.hp <= weapon.max_hp and weapon.ammo >= 0
            assert (weapon.holding is not None) == ((ship.id, weapon.index) in holders)
    for g in state.grapples:
        assert state.ships[g.holder].status is not Status.SUNK and state.ships[g.held].status is not Status.SUNK
    if not state.ended:
        current = state.ships[state.current]
        assert current.status is not Status.SUNK, f"{current.id} holds a decision while sunk"
        if state.phase is Phase.CREW:
            assert current.conscious_crew() > 0, f"{current.id} decides for a crew that is all down"
