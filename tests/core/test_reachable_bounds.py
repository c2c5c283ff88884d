"""Every state the engine can reach is a state a position can hold (issue 43, item 1).

From each ruleset's default scenario, every numeric field of the start position is set, one at a time, to the
lowest and to the highest value its JSON Schema allows. A position the rules refuse is fine (a clean
:class:`PositionError`); one that loads is played to the end by a seeded random captain, and at every decision
``game.position()`` must validate (pydantic would raise past a bound) and, at every few decisions and at the end,
load back to the same game. Before the bounds were made true, 53 of 1,277 such positions played into a state
``position()`` refused (pantheon ``allowance`` 101, flotilla ``crew_hits`` 31, pursuit ``x`` past 100,000,
broadside ``oar_sweeps`` 1001, crew_phase ``command_successes`` 11, ...)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from naval_env.core.position import PositionError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.testing import label_index
from tests.helpers import position_refusal, replaced

RULESETS = ruleset_ids()
SEEDS = (0, 1)        # games played from each boundary position that loads (random captain and dice)
RELOAD_EVERY = 7      # decisions between two checks that the position loads back to the same game
# (about 16 s of one core for the whole file, most of it crew_phase's and pursuit's long games)


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with ``$ref`` followed and ``anyOf [X, null]`` narrowed to X."""
    while True:
        if "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        elif "anyOf" in node:
            node = next(option for option in node["anyOf"] if option.get("type") != "null")
        else:
            return node


def schema_at(schema: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    """The schema of the value at ``path`` (keys, list indices) in a position."""
    node = schema
    for key in path:
        node = resolve(schema, node)
        if isinstance(key, int):
            node = node["prefixItems"][key] if "prefixItems" in node else node["items"]
        elif key in node.get("properties", {}):
            node = node["properties"][key]
        else:
            node = node["additionalProperties"]
    return resolve(schema, node)


def extremes(node: dict[str, Any]) -> list[int | float]:
    """The lowest and highest values a number's schema allows (inside an exclusive bound)."""
    whole = node.get("type") == "integer"
    found: list[int | float] = []
    for key, inward in (("minimum", 0), ("exclusiveMinimum", 1), ("maximum", 0), ("exclusiveMaximum", -1)):
        if key in node:
            bound = node[key]
            found.append(int(bound) + inward if whole else
                         math.nextafter(float(bound), inward * math.inf) if inward else float(bound))
    return found


def numbers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every number in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from numbers(item, (*path, i))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, value


def boundary_positions(ruleset_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(label, position): the default scenario's start with one number at one end of its schema's range."""
    ruleset = get_ruleset(ruleset_id)
    schema = ruleset.position_schema()
    start = ruleset.new_game(ruleset.load_config(), seed=0).position()
    found = []
    for path, _ in numbers(start):
        for value in extremes(schema_at(schema, path)):
            found.append((f"{'.'.join(map(str, path))}={value}", replaced(start, path, value)))
    return found


def play_out(ruleset_id: str, game: Any, config: Any, seed: int) -> int:
    """Play ``game`` to its end with random legal moves; ``position()`` at every decision (it validates against
    the model), a reload every :data:`RELOAD_EVERY` decisions and at the end. Returns the decisions played."""
    ruleset = get_ruleset(ruleset_id)
    rng = np.random.default_rng(seed)
    step = 0
    while True:
        position = game.position()
        if step % RELOAD_EVERY == 0 or game.is_over:
            again = ruleset.load_position(position, config, seed=seed)
            assert again.position() == position
        if game.is_over:
            return step
        agent = game.current_agent
        assert agent is not None
        game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
        step += 1


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.slow
def test_boundary_positions_play_to_the_end_within_the_position_bounds(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    cases = boundary_positions(ruleset_id)
    loaded = refused = decisions = 0
    for label, data in cases:
        try:
            ruleset.load_position(data, config, seed=0)
        except PositionError:
            refused += 1
            continue
        loaded += 1
        for seed in SEEDS:
            try:
                decisions += play_out(ruleset_id, ruleset.load_position(data, config, seed=seed), config, seed)
            except Exception as error:  # name the boundary position that broke, then fail
                raise AssertionError(f"{ruleset_id} from {label} (seed {seed}): {error}") from error
    # Both ends of most ranges are positions the rules allow, and the games are played, not skipped.
    assert len(cases) >= 40 and loaded >= len(cases) // 2 and refused >= 1, (len(cases), loaded, refused)
    assert decisions >= 20 * loaded, decisions


MIXED_CASES = 150     # positions a ruleset with several numbers at once at their bounds


def mid_game_positions(ruleset_id: str) -> list[dict[str, Any]]:
    """Positions along one random game in every scenario (its start included)."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    found = []
    for scenario in ruleset.scenarios(config):
        game = ruleset.new_game(config, scenario, seed=3)
        rng = np.random.default_rng(3)
        for step in range(300):
            if step % 25 == 0:
                found.append(game.position())
            if game.is_over:
                break
            agent = game.current_agent
            assert agent is not None
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
    return found


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.slow
def test_several_numbers_at_their_bounds_at_once_play_to_the_end(ruleset_id: str) -> None:
    """Bounds can meet: two to four numbers of a position in any scenario, start or mid-game, each at an end of its
    range or beside its value (how a heading of 360 and 61 pursuit casualties were found)."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    schema = ruleset.position_schema()
    bases = mid_game_positions(ruleset_id)
    rng = random.Random(f"bounds:{ruleset_id}")
    loaded = 0
    for case in range(MIXED_CASES):
        data = rng.choice(bases)
        fields = list(numbers(data))
        for path, value in rng.sample(fields, min(len(fields), rng.choice([2, 3, 4]))):
            ends = extremes(schema_at(schema, path))
            if ends:
                data = replaced(data, path, rng.choice([*ends, min(max(value + rng.choice([-1, 1]), min(ends)),
                                                                  max(ends))]))
        try:
            game = ruleset.load_position(data, config, seed=case)
        except PositionError:
            continue
        loaded += 1
        play_out(ruleset_id, game, config, case)
    assert loaded >= MIXED_CASES // 5, loaded


# ------------------------------------------------------------------ the probes' reproductions, exactly
def start(ruleset_id: str, scenario: str | None = None) -> dict[str, Any]:
    ruleset = get_ruleset(ruleset_id)
    return ruleset.new_game(ruleset.load_config(), scenario, seed=0).position()


def with_ship(position: dict[str, Any], k: int, **fields: Any) -> dict[str, Any]:
    ships = [dict(s) for s in position["ships"]]
    ships[k].update(fields)
    return {**position, "ships": ships}


def refused(ruleset_id: str, data: dict[str, Any]) -> dict[str, str]:
    return dict(position_refusal(get_ruleset(ruleset_id), data, seed=0))


def test_pantheon_speed_100_sailing_with_the_wind_moves_102_and_says_so() -> None:
    """The issue's reproduction: speed 100 (the most a position allows) with the wind astern is an allowance of
    102 (+2 sailing with the wind), which the position holds."""
    ruleset = get_ruleset("pantheon")
    position = start("pantheon")
    ship = next(s for s in position["ships"] if s["id"] == position["to_move"])
    wind = ship["facing"]  # the wind blowing the way the bow points: +2
    data = {**with_ship(position, position["ships"].index(ship), speed=100, allowance=None), "wind": wind,
            "phase": "move"}
    game = ruleset.load_position(data, seed=0)
    dumped = game.position()
    assert next(s for s in dumped["ships"] if s["id"] == ship["id"])["allowance"] == 102
    assert ruleset.load_position(dumped, seed=0).position() == dumped


def test_flotilla_lasting_hits_are_never_more_than_the_cohesion_lost() -> None:
    position = start("flotilla")
    top = position["ships"][0]["max_cohesion"]
    problems = refused("flotilla", with_ship(position, 0, crew_hits=2, propulsion_hits=1, cohesion=top - 2))
    assert "ships.0.crew_hits" in problems and "2 cohesion lost" in problems["ships.0.crew_hits"]
    get_ruleset("flotilla").load_position(with_ship(position, 0, crew_hits=2, propulsion_hits=1, cohesion=top - 3),
                                          seed=0)


@pytest.mark.parametrize(("field", "value"), [("x", 100_000.0), ("y", -100_000.0), ("rowed_rounds", 10_000)])
def test_pursuit_counters_and_places_keep_room_for_the_rounds_left(field: str, value: float) -> None:
    problems = refused("pursuit", with_ship(start("pursuit"), 0, **{field: value}))
    assert f"ships.0.{field}" in problems and "round(s) still to play" in problems[f"ships.0.{field}"]


def test_pursuit_shots_keep_room_for_every_machine_firing_each_round_left() -> None:
    problems = refused("pursuit", {**start("pursuit"), "shots": 640_000})
    assert "shots" in problems and "round(s) still to play" in problems["shots"]


def test_pursuit_an_aim_order_may_hold_up_to_aim_minus_one_plus_gunners() -> None:
    """An aim order spends every gunner's action: a catapult (aim 2) one action into its aim, ordered to aim by six
    gunners, holds 7 (the old bound was 6); an aim still below its number has no point, and one at it is refused."""
    ruleset = get_ruleset("pursuit")
    position = start("pursuit")
    machine = {**position["ships"][0]["machines"][0], "kind": "catapult", "gunners": 6, "aim_target": "blue_0"}
    aiming = {**position, "phase": "guns", "to_move": "red_0"}
    problems = refused("pursuit", with_ship(aiming, 0, machines=[{**machine, "aim_progress": 2}]))
    assert "no aim_point" in problems["ships.0.machines.0.aim_progress"]
    game = ruleset.load_position(with_ship(aiming, 0, machines=[{**machine, "aim_progress": 1}]), seed=0)
    action = game.action_spec.noop()
    action[game.action_spec.index("machine_0")] = label_index(game, "machine_0", "aim@enemy0")
    game.apply("red_0", action)
    dumped = game.position()["ships"][0]["machines"][0]
    assert (dumped["aim_progress"], dumped["aim_point"]) == (7, [148.0, 10.0])


def test_pursuit_casualties_are_never_more_than_the_crew_lost() -> None:
    """The dead are counted as they leave the crew: a ship's casualties plus its crew aboard are at most its crew at
    the start (a position with 60 dead and the whole crew aboard played on to 61)."""
    position = start("pursuit")
    ship = position["ships"][0]
    crew = ship["crew"]
    problems = refused("pursuit", {**position, "casualties": {ship["id"]: 1}})
    assert f"casualties.{ship['id']}" in problems
    lost = {**crew, "aboard": crew["at_start"] - 1}
    game = get_ruleset("pursuit").load_position({**with_ship(position, 0, crew=lost), "casualties": {ship["id"]: 1}},
                                                seed=0)
    assert game.position()["casualties"] == {ship["id"]: 1}


def test_broadside_a_heading_of_exactly_360_is_held() -> None:
    """Turning a hull a hair's breadth west of north lands on 360.0 in floating point; a position holds it."""
    from naval_env.rulesets.broadside.geometry import compass

    assert compass(-1e-15) == 360.0
    ruleset = get_ruleset("broadside")
    game = ruleset.load_position(with_ship(start("broadside"), 0, heading=360.0), seed=0)
    dumped = game.position()
    assert dumped["ships"][0]["heading"] == 360.0
    assert ruleset.load_position(dumped, seed=0).position() == dumped


def test_broadside_marines_are_bounded_by_their_sides_total_not_by_one_ship() -> None:
    """A side's marines move between its ships (reinforcements, boarders coming home), so one ship may hold more
    than its complement, but never more than the side's ships hold together."""
    position = start("broadside")
    side = position["ships"][0]["id"].split("_")[0]
    friends = [k for k, s in enumerate(position["ships"]) if s["id"].startswith(side + "_")]
    data = position
    for k in friends:
        data = with_ship(data, k, marines=300 if k == friends[0] else 0)
    get_ruleset("broadside").load_position(data, seed=0)
    problems = refused("broadside", with_ship(data, friends[-1], marines=1) if len(friends) > 1 else
                       with_ship(data, friends[0], marines=301))
    assert any(path.endswith("marines") for path in problems), problems


def test_broadside_oar_sweeps_keep_room_for_the_rounds_left() -> None:
    """Nothing in the rules stops the sweeps counting, so a position leaves room for what the rounds still to play
    can add (collisions and rams each round, collateral hits while the hull lasts)."""
    from naval_env.rulesets.broadside.position import MAX_OAR_SWEEPS

    position = start("broadside")
    problems = refused("broadside", with_ship(position, 0, oar_sweeps=MAX_OAR_SWEEPS))
    assert "round(s) still to play" in problems["ships.0.oar_sweeps"]
    get_ruleset("broadside").load_position(with_ship(position, 0, oar_sweeps=MAX_OAR_SWEEPS // 2), seed=0)
    ended = {**with_ship(position, 0, oar_sweeps=MAX_OAR_SWEEPS), "ended": True, "winner": None,
             "end_reason": "round_limit"}
    assert "ships.0.oar_sweeps" not in refused_or_none("broadside", ended)


def refused_or_none(ruleset_id: str, data: dict[str, Any]) -> dict[str, str]:
    try:
        get_ruleset(ruleset_id).load_position(data, seed=0)
    except PositionError as error:
        return {p.path: p.message for p in error.problems}
    return {}


def test_crew_phase_command_successes_need_the_crew_to_have_acted() -> None:
    position = start("crew_phase")
    k = next(i for i, s in enumerate(position["ships"]) if s["id"] == position["to_move"])
    problems = refused("crew_phase", {**with_ship(position, k, command_successes=1), "phase": "crew"})
    assert f"ships.{k}.command_successes" in problems


@pytest.mark.parametrize("slot", ["operator", "readied_by"])
def test_crew_phase_a_weapon_with_no_ammunition_is_neither_operated_nor_readied(slot: str) -> None:
    """'Para Operar un arma ... el personaje debe tener acceso a todos los materiales necesarios (munición)': a
    position with an empty weapon manned is refused (played on, its shot took ``ammo`` to -1)."""
    position = start("crew_phase")
    weapons = [dict(w) for w in position["ships"][0]["weapons"]]
    weapons[0].update({"ammo": 0, "operator": None, "readied_by": None, slot: 0})
    problems = refused("crew_phase", with_ship(position, 0, weapons=weapons))
    assert f"ships.0.weapons.0.{slot}" in problems and "ammunition" in problems[f"ships.0.weapons.0.{slot}"]
