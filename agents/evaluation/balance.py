"""Balance a scenario: search numeric parameters of its config for the values that bring its seat balance
nearest 0.50 while the captains still decide games.

A *variation* is ``PATH=LOW..HIGH``. ``PATH`` is dotted and read inside the scenario's block
(``escape.distance``, ``sides.1.ships.0.captain.wits``; list items by index), or from the config's root
with a leading ``/`` (``/vessels.warship.health``: then every scenario using it changes). A number is
searched between ``LOW`` and ``HIGH`` (whole numbers where the config holds a whole number); a list of
numbers (a start zone's ``x: [110, 140]``) is shifted by an offset from ``LOW`` to ``HIGH``.

Every point plays the same block of paired games as the scenario check
(:func:`naval_agents.evaluation.scenario_check.play_block`, without ``random``) on the same seeds, so two
points differ by the parameters and not by the dice (common random numbers). A point's *seat balance* is
the check's: the value of the seat meta-game over the block's captains (the first side's score when each
side fields its best captain, :mod:`naval_agents.evaluation.meta_game`), with its seed-bootstrap interval;
its *mirror* the first side's score when the ``--captain`` plays both sides (shown, not searched on); its
*decisiveness* the share of seeds whose result changes among the block's ordered pairings. With one
captain the two are the same.

The search: for one parameter, a bisection on the sign of ``balance - 0.5`` between the two ends
(assumed monotone in expectation), down to a whole number or :data:`DEFAULT_STEPS` halvings, which
leaves the final bracket as the parameter's interval; for several, coordinate search: each in turn,
the others held, for ``rounds`` rounds or until a round moves nothing. The answer is the evaluated
point nearest 0.50 among those inside the check's side-balance band with decisiveness at least the
threshold; failing that, the nearest inside the band (its decisiveness reported as short); failing
that, the nearest of all. Each point is stored in a JSON cache as it is played, so an interrupted search resumes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from naval_agents.evaluation.scenario_check import (
    MIN_DECISIVENESS,
    SIDE_BALANCE,
    CheckCaptains,
    Rate,
    decisiveness,
    first_side_score,
    play_block,
    seat_meta_game,
    sound_cells,
)
from naval_agents.evaluation.schedule import EvaluationInputError
from naval_env.core.config import BUNDLED_CONFIGS
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset

#: Halvings of a real parameter's range (a whole-number one stops at a bracket one wide).
DEFAULT_STEPS = 6
DEFAULT_ROUNDS = 2
DEFAULT_SEEDS = 100
TARGET = 0.5
#: What a point is searched on, in the cache's key: a cache of mirror points (before the seat meta-game) is refused.
OBJECTIVE = "seat meta-game"
_VARY = re.compile(r"^(?P<path>[^=]+)=(?P<low>-?[0-9.]+)\.\.(?P<high>-?[0-9.]+)$")


class BalanceError(EvaluationInputError):
    """A bad variation, config or cache; the message names what was wrong and what is allowed."""


# ------------------------------------------------------------------ variations
@dataclass(frozen=True)
class Variation:
    """One searched parameter: where it is, its range, and whether it is a whole number or a list's offset."""

    path: str
    low: float
    high: float
    integer: bool
    offset: bool = False     # a list of numbers shifted by the value, rather than a number set to it

    @property
    def resolution(self) -> float:
        return 1.0 if self.integer else (self.high - self.low) / 2 ** DEFAULT_STEPS

    def value(self, x: float) -> float:
        return float(round(x)) if self.integer else round(x, 4)


def _parts(path: str, scenario: str) -> list[str]:
    """The keys from the config's root: ``/a.b`` is ``a.b`` from the root, else inside ``scenarios.<scenario>``."""
    if path.startswith("/"):
        return path[1:].split(".")
    return ["scenarios", scenario, *path.split(".")]


def _walk(raw: Any, keys: Sequence[str], path: str) -> Any:
    node = raw
    for key in keys:
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            have = (f"list items 0..{len(node) - 1}" if isinstance(node, list)
                    else f"keys {', '.join(map(str, node))}" if isinstance(node, dict) else "a plain value")
            raise BalanceError(f"--vary {path}: no {key!r} there (it has {have})")
    return node


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_variation(text: str, raw: dict[str, Any], scenario: str) -> Variation:
    """``PATH=LOW..HIGH`` checked against the config: the path must hold a number or a list of numbers."""
    found = _VARY.match(text)
    if found is None:
        raise BalanceError(f"--vary {text!r}: write PATH=LOW..HIGH, e.g. escape.distance=100..200 or "
                           "sides.0.zone.x=-20..20")
    path = found["path"]
    try:
        low, high = float(found["low"]), float(found["high"])
    except ValueError:
        raise BalanceError(f"--vary {text!r}: LOW and HIGH must be numbers") from None
    if not low < high:
        raise BalanceError(f"--vary {text!r}: LOW must be below HIGH")
    current = _walk(raw, _parts(path, scenario), path)
    whole = low.is_integer() and high.is_integer()
    if isinstance(current, list) and current and all(_is_number(v) for v in current):
        integer = all(isinstance(v, int) for v in current)
        if integer and not whole:
            raise BalanceError(f"--vary {text!r}: {path} holds whole numbers {current}; give a whole-number offset "
                               "range")
        return Variation(path, low, high, integer, offset=True)
    if not _is_number(current):
        raise BalanceError(f"--vary {text!r}: {path} holds {current!r}, not a number or a list of numbers")
    if isinstance(current, int) and not whole:
        raise BalanceError(f"--vary {text!r}: {path} holds a whole number ({current}); give whole-number bounds")
    return Variation(path, low, high, isinstance(current, int))


def current_value(raw: dict[str, Any], scenario: str, variation: Variation) -> float:
    """The parameter's value in ``raw`` (an offset's is 0: the list as it stands)."""
    if variation.offset:
        return 0.0
    return float(_walk(raw, _parts(variation.path, scenario), variation.path))


def apply_values(raw: dict[str, Any], scenario: str, variations: Sequence[Variation],
                 values: Sequence[float]) -> dict[str, Any]:
    """A copy of ``raw`` with every variation set to its value."""
    changed = copy.deepcopy(raw)
    for variation, value in zip(variations, values, strict=True):
        keys = _parts(variation.path, scenario)
        parent = _walk(changed, keys[:-1], variation.path)
        key: Any = int(keys[-1]) if isinstance(parent, list) else keys[-1]
        if variation.offset:
            parent[key] = [_number(v + value, variation.integer) for v in parent[key]]
        else:
            parent[key] = _number(value, variation.integer)
    return changed


def _number(value: float, integer: bool) -> int | float:
    return round(value) if integer else round(value, 4)


# ------------------------------------------------------------------ points and their cache
@dataclass(frozen=True)
class Point:
    """One evaluated set of values: the seat balance (searched on), the mirror, and the block's decisiveness."""

    values: tuple[float, ...]
    balance: Rate                # the seat balance: score, seeds, bootstrap interval
    mirror: Rate
    decisiveness: float
    games: int

    @property
    def gap(self) -> float:
        return abs(self.balance.score - TARGET)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Point:
        return cls(tuple(float(v) for v in data["values"]), Rate(**data["balance"]), Rate(**data["mirror"]),
                   float(data["decisiveness"]), int(data["games"]))


class PointCache:
    """Evaluated points in a JSON file, written after each one (atomically), keyed by what they depend on."""

    def __init__(self, path: Path, key: dict[str, Any], *, resume: bool) -> None:
        self.path, self.key = path, key
        self.points: dict[tuple[float, ...], Point] = {}
        if path.exists():
            if not resume:
                raise BalanceError(f"{path} holds the points of an earlier search; pass --resume to go on from it, "
                                   "or give another --cache (or delete it)")
            data = json.loads(path.read_text())
            if data.get("key") != key:
                differ = sorted(k for k in {*key, *data.get("key", {})} if key.get(k) != data.get("key", {}).get(k))
                raise BalanceError(f"{path} was made by another search (it differs in {', '.join(differ)}); "
                                   "resume with the same settings, or give another --cache")
            for item in data["points"]:
                point = Point.from_dict(item)
                self.points[point.values] = point

    def get(self, values: tuple[float, ...]) -> Point | None:
        return self.points.get(values)

    def add(self, point: Point) -> None:
        self.points[point.values] = point
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": self.key, "points": [p.to_dict() for p in self.points.values()]}, indent=1)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name, suffix=".tmp")
        with os.fdopen(handle, "w") as stream:
            stream.write(text + "\n")
        os.replace(temporary, self.path)


# ------------------------------------------------------------------ the search
@dataclass(frozen=True)
class BalanceResult:
    """The chosen point, the interval each parameter's crossing of 0.50 was bracketed to, and every point."""

    ruleset: str
    scenario: str
    variations: tuple[Variation, ...]
    start: Point
    best: Point
    decisive: bool                                   # the best point meets the decisiveness threshold
    brackets: tuple[tuple[float, float] | None, ...]  # per variation; None: 0.50 not bracketed in its range
    points: tuple[Point, ...]
    seeds: int
    seed: int
    games_per_point: int
    captains: CheckCaptains
    min_decisiveness: float
    evaluated: int                                   # points played now (the others came from the cache)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Balancer:
    """Plays points (through :class:`PointCache`) and runs the bisection or coordinate search."""

    ruleset: str
    scenario: str
    raw: dict[str, Any]
    variations: tuple[Variation, ...]
    captains: CheckCaptains
    seeds: int
    seed: int
    cache: PointCache
    min_decisiveness: float = MIN_DECISIVENESS
    side_band: tuple[float, float] = SIDE_BALANCE
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    on_point: Callable[[Point, bool], Any] | None = None    # (point, played now) as each one is known
    evaluated: int = 0

    def point(self, values: Sequence[float]) -> Point:
        key = tuple(v.value(x) for v, x in zip(self.variations, values, strict=True))
        cached = self.cache.get(key)
        if cached is not None:
            if self.on_point:
                self.on_point(cached, False)
            return cached
        # The point's config lives while its games are played (a Ray cluster's nodes need it at the same path).
        with tempfile.TemporaryDirectory(prefix="naval-balance-") as folder:
            config = self.write(key, Path(folder) / "point.yaml")
            block = play_block(self.ruleset, self.scenario, str(config), self.captains, self.seeds, self.seed,
                               with_random=False, workers=self.workers, backend=self.backend, address=self.address)
            rules = get_ruleset(self.ruleset)
            first = rules.new_game(rules.load_config(config), self.scenario, seed=0).sides[0]
        mirror_label = block.labels[self.captains.strongest]
        mirror = [first_side_score(r, first) for r in block.results if r.a == r.b == mirror_label]
        cells = sound_cells(block, self.captains.sound)
        decisive = decisiveness(cells) if len(self.captains.sound) > 1 else 0.0
        seats = seat_meta_game(cells, [block.labels[spec] for spec in self.captains.sound], first)
        point = Point(key, Rate(seats.score, seats.seeds, seats.low, seats.high), Rate.of(mirror), decisive,
                      len(block.results))
        self.evaluated += 1
        self.cache.add(point)
        if self.on_point:
            self.on_point(point, True)
        return point

    def write(self, values: Sequence[float], path: Path, header: str = "") -> Path:
        """The config with ``values`` as YAML at ``path``, checked by the ruleset's own loader."""
        changed = apply_values(self.raw, self.scenario, self.variations, values)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + yaml.safe_dump(changed, sort_keys=False, allow_unicode=True))
        try:
            get_ruleset(self.ruleset).load_config(path)
        except (NavalError, ValueError) as exc:
            shown = ", ".join(f"{v.path}={x:g}" for v, x in zip(self.variations, values, strict=True))
            raise BalanceError(" ".join(f"the config with {shown} is not valid: {exc}".split())
                               + "; narrow the --vary range") from None
        return path

    def better(self, a: Point, b: Point) -> Point:
        """The point to keep: one inside the side-balance band over one outside it, then a decisive one over
        one that is not, then the one nearer 0.50; outside the band, the nearer. (A decisive point outside the
        band is still lopsided: it never wins over a balanced one, whose shortfall the result reports.)"""
        def rank(point: Point) -> tuple[bool, bool, float]:
            if not self.side_band[0] <= point.balance.score <= self.side_band[1]:
                return True, False, point.gap      # lopsided either way: only the nearer counts
            return False, point.decisiveness < self.min_decisiveness, point.gap

        return a if rank(a) <= rank(b) else b

    def bisect(self, index: int, values: list[float]) -> tuple[list[float], tuple[float, float] | None]:
        """Parameter ``index`` by bisection with the others at ``values``: new values and the final bracket."""
        variation = self.variations[index]

        def at(x: float) -> Point:
            return self.point([*values[:index], variation.value(x), *values[index + 1:]])

        lo, hi = variation.low, variation.high
        f_lo, f_hi = at(lo), at(hi)
        best = self.better(self.better(f_lo, f_hi), at(values[index]))
        if (f_lo.balance.score - TARGET) * (f_hi.balance.score - TARGET) > 0:
            return list(best.values), None    # 0.50 is not between the ends: keep the nearer
        for _ in range(DEFAULT_STEPS + 64):
            mid = variation.value((lo + hi) / 2)
            if hi - lo <= variation.resolution or mid in (lo, hi):
                break
            f_mid = at(mid)
            best = self.better(best, f_mid)
            if f_mid.balance.score == TARGET:
                lo = hi = mid
                break
            if (f_mid.balance.score - TARGET) * (f_lo.balance.score - TARGET) > 0:
                lo, f_lo = mid, f_mid
            else:
                hi = mid
        return list(best.values), (lo, hi)

    def run(self, rounds: int = DEFAULT_ROUNDS) -> BalanceResult:
        values = [current_value(self.raw, self.scenario, v) for v in self.variations]
        start = self.point(values)
        brackets: list[tuple[float, float] | None] = [None] * len(self.variations)
        for _ in range(rounds):
            before = list(values)
            for index in range(len(self.variations)):
                values, brackets[index] = self.bisect(index, values)
            if values == before or len(self.variations) == 1:
                break
        best = start
        for point in self.cache.points.values():
            best = self.better(best, point)
        return BalanceResult(self.ruleset, self.scenario, self.variations, start, best,
                             best.decisiveness >= self.min_decisiveness, tuple(brackets),
                             tuple(self.cache.points.values()), self.seeds, self.seed, start.games,
                             self.captains, self.min_decisiveness, self.evaluated)


def config_path(ruleset: str, config: str | None) -> Path:
    return Path(config) if config is not None else BUNDLED_CONFIGS / "rulesets" / f"{ruleset}.yaml"


def cache_key(ruleset: str, scenario: str, source: Path, variations: Sequence[Variation], captains: CheckCaptains,
              seeds: int, seed: int) -> dict[str, Any]:
    """What a point's numbers depend on; a cache made with another key is refused."""
    return {"ruleset": ruleset, "scenario": scenario, "config_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
            "paths": [v.path for v in variations], "captains": list(captains.sound), "seeds": seeds, "seed": seed,
            "objective": OBJECTIVE}


def header(result: BalanceResult, source: Path) -> str:
    """The comment the balanced YAML starts with: what changed, what was measured, how."""
    shown = ", ".join(f"{v.path}{' +' if v.offset else ' = '}{x:g}" for v, x in zip(result.variations,
                                                                                       result.best.values))
    return "\n".join([
        f"# Balanced by naval-tactics scenario balance from {source.name}: {result.ruleset} / {result.scenario}",
        f"# changed: {shown} (paths inside scenarios.{result.scenario} unless they start with /)",
        (f"# seat balance among {', '.join(result.captains.sound)}: first side {result.best.balance.text()} over "
         f"{result.seeds} seeds from {result.seed} (was {result.start.balance.text()}); mirror of "
         f"{result.captains.strongest} {result.best.mirror.text()}; decisiveness "
         f"{result.best.decisiveness:.2f} among {', '.join(result.captains.sound)} (threshold "
         f"{result.min_decisiveness:.2f})"),
        "# the source's comments are not carried over; diff the two files to see every change",
        "",
    ])


def balance_scenario(ruleset: str, scenario: str | None, variations: Sequence[str], out: Path, *,
                     config: str | None = None, captains: CheckCaptains | None = None,
                     seeds: int = DEFAULT_SEEDS, seed: int = 0, rounds: int = DEFAULT_ROUNDS,
                     cache: Path | None = None, resume: bool = False,
                     min_decisiveness: float = MIN_DECISIVENESS, workers: int = 1, backend: str = "local",
                     address: str | None = None,
                     on_point: Callable[[Point, bool], Any] | None = None) -> BalanceResult:
    """Search the variations and write the balanced config to ``out`` (YAML); the points go to ``cache``
    (default: ``out`` with ``.points.json``)."""
    rules = get_ruleset(ruleset)
    source = config_path(ruleset, config)
    try:
        loaded = rules.load_config(config)
        raw = yaml.safe_load(source.read_text())
    except (OSError, NavalError, yaml.YAMLError) as exc:
        raise BalanceError(" ".join(f"bad config {str(source)!r}: {exc}".split())) from None
    scenario = scenario or loaded.default_scenario
    if scenario not in rules.scenarios(loaded):
        raise BalanceError(f"unknown {ruleset} scenario {scenario!r}; choose one of {rules.scenarios(loaded)}")
    if not variations:
        raise BalanceError("give at least one --vary PATH=LOW..HIGH")
    if seeds < 1 or rounds < 1:
        raise BalanceError(f"seeds and rounds must be at least 1, got {seeds} and {rounds}")
    parsed = tuple(parse_variation(text, raw, scenario) for text in variations)
    if len({v.path for v in parsed}) != len(parsed):
        raise BalanceError("each --vary PATH once")
    captains = captains or CheckCaptains.default(ruleset)
    cache_file = cache or out.with_name(out.name + ".points.json")
    balancer = Balancer(ruleset, scenario, raw, parsed, captains, seeds, seed,
                        PointCache(cache_file, cache_key(ruleset, scenario, source, parsed, captains, seeds, seed),
                                   resume=resume),
                        min_decisiveness, SIDE_BALANCE, workers, backend, address, on_point)
    result = balancer.run(rounds)
    balancer.write(result.best.values, out, header(result, source))
    return result


def points_table(result: BalanceResult) -> str:
    """Every evaluated point as a markdown table, the chosen one marked."""
    paths = [f"{v.path} (+)" if v.offset else v.path for v in result.variations]
    lines = [f"| {' | '.join(paths)} | seat balance | mirror | decisiveness | games |",
             "|" + "---|" * (len(paths) + 4)]
    for point in sorted(result.points, key=lambda p: p.values):
        mark = " ←" if point is result.best or point.values == result.best.values else ""
        lines.append(f"| {' | '.join(f'{x:g}' for x in point.values)} | {point.balance.text()} | "
                     f"{point.mirror.text()} | {point.decisiveness:.2f} | {point.games} |{mark}")
    return "\n".join(lines) + "\n"
