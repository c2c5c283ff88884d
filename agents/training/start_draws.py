"""The per-game draws of :mod:`naval_agents.training.starts`: the mid-game position pool, the env wrapper that draws
each game's start and the callback that gathers results by (scenario, opponent) cell, writes the per-scenario learning curve and feeds
prioritized draws."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from naval_agents.captains.registry import scripted_names
from naval_agents.evaluation.midgame import sample_positions
from naval_agents.training.selfplay import SelfPlayEnv
from naval_agents.training.starts import MidgameSettings, PrioritySettings
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.gym_env import NavalEnv, learner_points

SNAPSHOT = "snapshot"
STARTS_HISTORY = "starts_history.json"


def source_captains(ruleset: str, settings: MidgameSettings) -> list[str]:
    scripted = [name for name in scripted_names(ruleset) if name != "random"] or ["random"]
    return list(settings.captains) if settings.captains is not None else scripted


def position_pool(ruleset: str, ruleset_config: Any, scenarios: Sequence[str | None],
                  settings: MidgameSettings) -> dict[str | None, list[dict[str, Any]]]:
    """Mid-game positions per scenario (empty when ``settings.share`` is 0); the same settings give the same pool."""
    if settings.share == 0:
        return {}
    rules = get_ruleset(ruleset)
    config = rules.load_config(ruleset_config)
    captains = source_captains(ruleset, settings)
    pool: dict[str | None, list[dict[str, Any]]] = {}
    for scenario in scenarios:
        name = scenario or config.default_scenario
        found = sample_positions(ruleset, name, captains, settings.games, settings.seed,
                                                      config=config)
        pool[scenario] = [start.position for start in found]
    return pool


class CellTable:
    """Recent results per (scenario, opponent) cell and the draw weights they give."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.results: dict[tuple[str, str], deque[float]] = {}

    def add(self, scenario: str, opponent: str, points: float) -> None:
        self.results.setdefault((scenario, opponent), deque(maxlen=self.window)).append(points)

    def scores(self) -> dict[tuple[str, str], float]:
        return {cell: float(np.mean(points)) for cell, points in self.results.items() if points}


def priority(score: float | None, settings: PrioritySettings) -> float:
    """A cell's draw factor: an unplayed cell counts as lost (it is tried first)."""
    return (settings.floor + 1.0 - (0.0 if score is None else score)) ** settings.power


class StartsEnv(SelfPlayEnv):
    """Self-play's wrapper that also draws, per game, the scenario, the opponent and whether to start mid-game.

    Cells are (scenario, opponent) where the opponent is an anchor's name or ``snapshot``; without
    priorities a game draws its scenario by weight, then a snapshot with ``snapshot_share`` (once
    there are snapshots) or an anchor uniformly, as self-play alone does. The finished game's cell
    travels in ``info["start"]`` for :class:`StartsCallback`.
    """

    def __init__(self, env: NavalEnv, anchors: list[str], snapshot_share: float, max_snapshots: int, *,
                 weights: Mapping[str | None, float], positions: Mapping[str | None, list[dict[str, Any]]],
                 midgame_share: float, prioritized: PrioritySettings, allies_are_snapshots: bool = False) -> None:
        super().__init__(env, anchors, snapshot_share, max_snapshots, allies_are_snapshots=allies_are_snapshots)
        self.weights = dict(weights)
        self.positions = {scenario: list(found) for scenario, found in positions.items()}
        self.midgame_share = midgame_share
        self.prioritized = prioritized
        self.cell_scores: dict[tuple[str, str], float] = {}
        self._start: dict[str, Any] = {}

    def snapshot_states(self) -> list[tuple[str, dict[str, Any]]]:
        """The self-play pool as (name, weights), oldest first, for a checkpoint."""
        return [(snapshot.name, {k: v.detach().cpu().clone() for k, v in snapshot.policy.state_dict().items()})
                for snapshot in self.snapshots]

    def set_cell_scores(self, scores: Mapping[tuple[str, str], float]) -> None:
        """Recent scores per cell (from every env, gathered by :class:`StartsCallback`) for prioritized draws."""
        self.cell_scores = dict(scores)

    def cells(self) -> list[tuple[str | None, str, float]]:
        """Every (scenario, opponent, base weight) the next game may be drawn from."""
        opponents: list[tuple[str, float]] = [(name, 1.0 / len(self.anchors)) for name in self.anchors]
        if self.snapshots and self.snapshot_share > 0:
            opponents = [(name, share * (1 - self.snapshot_share)) for name, share in opponents]
            opponents.append((SNAPSHOT, self.snapshot_share))
        return [(scenario, name, weight * share) for scenario, weight in self.weights.items()
                for name, share in opponents]

    def draw_cell(self) -> tuple[str | None, str]:
        cells = self.cells()
        weights = np.array([weight for _, _, weight in cells])
        if self.prioritized.enabled:
            weights = weights * np.array([priority(self.cell_scores.get((label(s), o)), self.prioritized)
                                          for s, o, _ in cells])
        scenario, opponent, _ = cells[int(self._rng.choice(len(cells), p=weights / weights.sum()))]
        return scenario, opponent

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        scenario, opponent = self.draw_cell()
        pool = self.positions.get(scenario, [])
        position = None
        if pool and self._rng.random() < self.midgame_share:
            position = pool[int(self._rng.integers(len(pool)))]
        base = self._naval_env()
        base.set_start(scenario, position)
        if opponent == SNAPSHOT:
            base.set_opponents([self.snapshots[int(self._rng.integers(len(self.snapshots)))]])
        else:
            base.set_opponents([opponent])
        self._start = {"scenario": label(scenario), "opponent": opponent, "midgame": position is not None}
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info["start"] = dict(self._start)
        return observation, reward, terminated, truncated, info


def label(scenario: str | None) -> str:
    return scenario or "default"


class StartsCallback(BaseCallback):
    """Gathers every env's finished games by cell; per rollout it writes ``starts_history.json`` (the learner's
    recent score per scenario and per cell, the per-scenario learning curve) and, when prioritized, hands the
    cell scores to every env."""

    def __init__(self, run_folder: Path, window: int, prioritized: bool) -> None:
        super().__init__()
        self.run_folder = run_folder
        self.table = CellTable(window)
        self.prioritized = prioritized
        self.history: list[dict[str, Any]] = []
        self._since: dict[str, list[float]] = {}

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "start" in info and "learner_won" in info:
                start, points = info["start"], learner_points(info)
                self.table.add(start["scenario"], start["opponent"], points)
                key = f"{start['scenario']}{' (mid-game)' if start['midgame'] else ''} vs {start['opponent']}"
                self._since.setdefault(key, []).append(points)
        return True

    def checkpoint_state(self) -> dict[str, Any]:
        return {"history": self.history,
                "results": [[s, o, list(points)] for (s, o), points in self.table.results.items()]}

    def restore_state(self, state: dict[str, Any]) -> None:
        self.history = list(state["history"])
        for scenario, opponent, points in state["results"]:
            for value in points:
                self.table.add(scenario, opponent, float(value))

    def _on_rollout_end(self) -> None:
        scores = self.table.scores()
        if self.prioritized:
            self.training_env.env_method("set_cell_scores", scores)
        by_scenario: dict[str, list[float]] = {}
        for (scenario, _), results in self.table.results.items():
            by_scenario.setdefault(scenario, []).extend(results)
        for scenario, points in by_scenario.items():
            self.logger.record(f"starts/score_{scenario}", float(np.mean(points)))
        self.history.append({
            "timesteps": self.num_timesteps,
            "window": self.table.window,
            "scenarios": {s: {"score": round(float(np.mean(p)), 4), "games": len(p)} for s, p in by_scenario.items()},
            "cells": {f"{s} vs {o}": round(score, 4) for (s, o), score in scores.items()},
            "since_last": {key: {"games": len(points), "score": round(float(np.mean(points)), 4)}
                           for key, points in sorted(self._since.items())},
        })
        self._since = {}
        (self.run_folder / STARTS_HISTORY).write_text(json.dumps(self.history, indent=1))

