"""Make the conformance vectors of an export from seeded games (format: :mod:`naval_agents.export.conformance`).

Every scenario of the ruleset gets an equal share of the vectors, half from games of random legal
play on both sides, half from games the captain plays (one side, changing each game) against random
legal play. From each game up to ``PER_GAME`` decisions are drawn uniformly (seeded), so openings,
middles and endings (sunk ships, empty slots) all appear. Each vector holds
the decider's view and the captain's choice there. Game seeds come from one generator seeded with
``seed``, so the same export, count and seed give the same file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_agents.export.conformance import (
    DEFAULT_COUNT,
    ENCODING,
    FORMAT,
    FORMAT_VERSION,
    float_list,
)
from naval_env.core.game import Game
from naval_env.core.moves import decode, options
from naval_env.core.ruleset import Ruleset, get_ruleset

PER_GAME = 8
SOURCES = ("random", "captain")
CHECK_COMMAND = "python -m naval_agents.export.conformance check {file}"


def has_positions(ruleset: Ruleset) -> bool:
    """Whether the ruleset can dump and load positions yet (vectors need them)."""
    return getattr(ruleset, "positions", None) is not None


@dataclass(frozen=True)
class _Seen:
    decision: int
    seat: str
    position: dict[str, Any]
    observation: np.ndarray
    mask: np.ndarray
    action: np.ndarray      # the captain's choice for the seat


def _play(ruleset: Ruleset, config: Any, scenario: str, game_seed: int, captain: Captain,
          captain_side: int | None, keep: int) -> list[_Seen]:
    """``keep`` decisions of one game, drawn uniformly (reservoir sampling), in game order. Random legal
    play, the captain playing side number ``captain_side`` (counted modulo the sides; None: nobody).
    Only a decision that enters the sample is dumped: a position costs more than the decision itself."""
    game: Game = ruleset.new_game(config, scenario, seed=game_seed)
    side = None if captain_side is None else game.sides[captain_side % len(game.sides)]
    play_rng, pick_rng = np.random.default_rng(game_seed), np.random.default_rng([game_seed, 1])
    captain.reset(game_seed)
    sample: list[_Seen] = []
    decision = 0
    while not game.is_over:
        seat = game.current_agent
        assert seat is not None
        mask = game.legal_mask(seat)
        slot = decision if decision < keep else int(pick_rng.integers(decision + 1))
        mine = side is not None and game.side_of(seat) == side
        choice: np.ndarray | None = None
        if slot < keep or mine:
            observation = game.observe(seat)
            choice = np.asarray(captain.act(Decision(seat, observation, mask, game)), dtype=np.int64)
            if slot < keep:
                seen = _Seen(decision, seat, game.position(), observation, mask, choice)
                if slot == len(sample):
                    sample.append(seen)
                else:
                    sample[slot] = seen
        game.apply(seat, choice if mine and choice is not None else game.action_spec.sample(mask, play_rng))
        decision += 1
    return sorted(sample, key=lambda seen: seen.decision)


def make_vectors(ruleset_id: str, config: Any, captain: Captain, *, count: int = DEFAULT_COUNT, seed: int = 0,
                 config_path: str | None = None, file_name: str = "<name>.conformance.json") -> dict[str, Any]:
    """The conformance document: ``count`` vectors from seeded games of every scenario."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    ruleset = get_ruleset(ruleset_id)
    if not has_positions(ruleset):
        raise ValueError(f"ruleset {ruleset_id!r} has no position model yet; conformance vectors need one")
    spec = ruleset.action_spec(config)
    obs_size = ruleset.observation_spec(config).size
    scenarios = ruleset.scenarios(config)
    plan = [(scenario, source) for scenario in scenarios for source in SOURCES]
    rng = np.random.default_rng(seed)
    vectors: list[dict[str, Any]] = []
    for k, (scenario, source) in enumerate(plan):
        quota = count // len(plan) + (1 if k < count % len(plan) else 0)
        games = 0
        while quota > 0:
            if games > 50 + quota * 10:
                raise RuntimeError(f"{ruleset_id} {scenario}: games end before any decision; cannot fill {quota}")
            game_seed = int(rng.integers(2**31 - 1))
            picked = _play(ruleset, config, scenario, game_seed, captain,
                           games if source == "captain" else None, min(PER_GAME, quota))
            for seen in picked:
                vectors.append(_vector(len(vectors), source, scenario, game_seed, seen, spec, obs_size))
            quota -= len(picked)
            games += 1
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ruleset": {"id": ruleset.id, "version": ruleset.version},
        "ruleset_config": config_path,
        "observation_size": obs_size,
        "flat_mask_size": spec.flat_size,
        "components": [c.name for c in spec.components],
        "encoding": ENCODING,
        "captain": captain.name,
        "generator": {"seed": seed, "count": count, "scenarios": scenarios, "sources": list(SOURCES),
                      "per_game": PER_GAME},
        "check": CHECK_COMMAND.format(file=file_name),
        "vectors": vectors,
    }


def _vector(index: int, source: str, scenario: str, game_seed: int, seen: _Seen, spec: Any,
            obs_size: int) -> dict[str, Any]:
    assert seen.observation.shape == (obs_size,)
    return {
        "id": index,
        "source": source,
        "scenario": scenario,
        "game_seed": game_seed,
        "decision": seen.decision,
        "seat": seen.seat,
        "position": seen.position,
        "observation": float_list(seen.observation),
        "mask": [int(x) for x in seen.mask],
        "legal": options(spec, seen.mask),
        "action": decode(spec, seen.action),
        "action_index": [int(v) for v in seen.action],
    }
