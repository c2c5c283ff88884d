"""Fingerprints of seeded random games, pinned so that a speed-up that changes any behaviour fails a test.

Each fingerprint plays one seeded game with random legal moves and hashes what a player or a learner can
see: every captain's observation at every decision, the deciding captain's mask, the actions, the events,
the recorded dice, and the result. ``engine`` games drive the rules engine directly (every scenario);
``env`` games drive the Gymnasium env against the ruleset's default scripted opponent, so the captains'
reading of the engine is pinned too.

The expected values in ``pins.json`` were computed from the code before the engine speed-ups (main at
cec42ac), with this script run against that tree::

    PYTHONPATH=/path/to/old/tree python tests/trajectories/pins.py --write

Run it without ``--write`` to print the fingerprints of the tree on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

PINS = Path(__file__).with_name("pins.json")
SEEDS = (0, 1, 2, 3)
ENV_SEEDS = (0, 1)
ENV_STEPS = 400


def _digest() -> Any:
    return hashlib.sha256()


def engine_fingerprint(ruleset_id: str, scenario: str, seed: int) -> dict[str, Any]:
    """One random-legal game of the engine alone, every captain observed at every decision."""
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), scenario, seed=seed)
    rng = np.random.default_rng(seed)
    observations, events, actions = _digest(), _digest(), _digest()
    for event in getattr(game, "opening_events", []):
        events.update(repr(event).encode())
    decisions = 0
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        for other in game.agents:
            observations.update(other.encode())
            observations.update(np.ascontiguousarray(game.observe(other), dtype=np.float32).tobytes())
        mask = game.legal_mask(agent)
        action = game.action_spec.sample(mask, rng)
        actions.update(agent.encode())
        actions.update(np.asarray(mask, dtype=bool).tobytes())
        actions.update(np.asarray(action, dtype=np.int64).tobytes())
        for event in game.apply(agent, action):
            events.update(repr(event).encode())
        decisions += 1
    for other in game.agents:  # the final view too
        observations.update(np.ascontiguousarray(game.observe(other), dtype=np.float32).tobytes())
    return {
        "observations": observations.hexdigest(),
        "events": events.hexdigest(),
        "actions": actions.hexdigest(),
        "dice": hashlib.sha256(repr(list(game.dice.history)).encode()).hexdigest(),
        "decisions": decisions,
        "rounds": game.round,
        "winner": game.winner,
        "truncated": game.truncated,
    }


def env_fingerprint(ruleset_id: str, seed: int) -> dict[str, Any]:
    """``ENV_STEPS`` steps of the Gymnasium env (default scenario, the ruleset's default opponent, a random
    learner), reset whenever an episode ends."""
    import gymnasium as gym

    import naval_env  # noqa: F401  - registers naval/*-v0
    from naval_agents.captains.registry import default_opponent
    from naval_env.core.ruleset import get_ruleset

    env = gym.make(get_ruleset(ruleset_id).gym_id, opponent=default_opponent(ruleset_id))
    naval: Any = env.unwrapped  # the NavalEnv: its events and game
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    observations, events, dice = _digest(), _digest(), _digest()
    rewards: list[float] = []
    results: list[tuple[str | None, bool]] = []
    for _ in range(ENV_STEPS):
        observations.update(np.asarray(observation, dtype=np.float32).tobytes())
        observations.update(np.asarray(info["action_mask"], dtype=bool).tobytes())
        for event in naval.events:
            events.update(repr(event).encode())
        observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        rewards.append(float(reward))
        if terminated or truncated:
            for event in naval.events:
                events.update(repr(event).encode())
            dice.update(repr(list(naval.game.dice.history)).encode())
            # info's winner is "" on a draw since infos became stable (None when the pins were made): same result
            results.append((info["winner"] or None, bool(info["learner_won"])))
            observation, info = env.reset()
    return {
        "observations": observations.hexdigest(),
        "events": events.hexdigest(),
        "rewards": hashlib.sha256(repr(rewards).encode()).hexdigest(),
        "dice": dice.hexdigest(),
        "episodes": len(results),
        "winners": hashlib.sha256(repr(results).encode()).hexdigest(),
        "learner_wins": sum(won for _, won in results),
    }


def cases() -> list[tuple[str, str, str, int]]:
    """(kind, ruleset, scenario, seed) of every pinned game."""
    from naval_env.core.ruleset import get_ruleset, ruleset_ids

    found: list[tuple[str, str, str, int]] = []
    for ruleset_id in ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        config = ruleset.load_config()
        found += [("engine", ruleset_id, s, seed) for s in ruleset.scenarios(config) for seed in SEEDS]
        found += [("env", ruleset_id, config.default_scenario, seed) for seed in ENV_SEEDS]
    return found


def case_key(kind: str, ruleset_id: str, scenario: str, seed: int) -> str:
    return f"{kind}/{ruleset_id}/{scenario}/{seed}"


def fingerprint(kind: str, ruleset_id: str, scenario: str, seed: int) -> dict[str, Any]:
    if kind == "engine":
        return engine_fingerprint(ruleset_id, scenario, seed)
    return env_fingerprint(ruleset_id, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write the fingerprints to {PINS.name}")
    args = parser.parse_args()
    pins = {case_key(*case): fingerprint(*case) for case in cases()}
    text = json.dumps(pins, indent=1, sort_keys=True) + "\n"
    if args.write:
        PINS.write_text(text)
        print(f"wrote {len(pins)} fingerprints to {PINS}")
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
