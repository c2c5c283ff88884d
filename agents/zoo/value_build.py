"""Build a ruleset's value network: play games, label positions with their outcome, fit an MLP.

The search's leaf (``agents/captains/search/value_net.py``) needs the expected result of a position for each
side. Here that is learned the plain Monte Carlo way AlphaZero's value head is trained: positions
from played games, each labelled with how its game ended for the captain who observed it (1 a
win, -1 a loss, 0 a draw), fitted by least squares.

Games are played in every scenario of the ruleset by a mix of captains, each side drawn per game
from the zoo captain and the scripted ones (so the network has seen the positions both the
``expert`` search, whose rollouts the zoo plays, and ``search:N`` over a scripted prior reach), and
with a small share of uniform random decisions for breadth. Every ``stride``-th decision (from a
random offset) records every ship still fighting, so positions of one game are not all kept.
The last ``holdout`` share of games is kept out of the fit; the card reports the held-out mean
squared error beside two baselines on the same positions: a constant and the hull-fraction proxy
the search used before.

Deterministic: the same seeds give the same data and, with torch's single-threaded CPU kernels
seeded, the same network. Runs on one core in minutes (the card records how many).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from naval_agents.captains.base import Captain
from naval_agents.captains.scripted import make_scripted_captain, scripted_captains
from naval_agents.captains.search.evaluators import hull_values
from naval_agents.captains.search.fast_policy import fast_copy
from naval_agents.captains.search.value_net import ValueNet
from naval_agents.captains.zoo.catalogue import (
    CAPTAINS_DIR,
    has_zoo_captain,
    load_zoo_captain,
    zoo_value_path,
)
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.match import Match

#: Seeds no evaluation or report uses (reports start at 20,000,000; evaluate's default at 0).
DEFAULT_FIRST_SEED = 31_000_000


@dataclass(frozen=True)
class ValueData:
    observations: np.ndarray   # [n, observation_size] float32
    targets: np.ndarray        # [n] float32: the game's result for the observer's side
    hull: np.ndarray           # [n] float32: the hull proxy's value for the observer's side then
    games: np.ndarray          # [n] int: which game (for the held-out split)


def _captain_pool(ruleset_id: str, match: Match) -> list[Captain]:
    pool: list[Captain] = []
    if has_zoo_captain(ruleset_id):
        zoo = fast_copy(load_zoo_captain(ruleset_id, match.config))
        pool += [zoo, zoo]   # the zoo sits twice: the expert's rollouts are its positions
    pool += [make_scripted_captain(name, ruleset_id, match.action_spec)
             for name in scripted_captains(ruleset_id) if name != "random"]
    return pool


def play_and_record(ruleset_id: str, games: int, first_seed: int = DEFAULT_FIRST_SEED, stride: int = 4,
                    random_share: float = 0.05) -> ValueData:
    """``games`` games over the ruleset's scenarios in turn, positions every ``stride`` decisions."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    scenarios = ruleset.scenarios(config)
    matches = [Match(ruleset_id, config, scenario) for scenario in scenarios]
    pools = [_captain_pool(ruleset_id, match) for match in matches]
    observations: list[np.ndarray] = []
    targets: list[float] = []
    hull: list[float] = []
    game_ids: list[int] = []
    for index in range(games):
        seed = first_seed + index
        rng = np.random.default_rng(seed)
        match, pool = matches[index % len(matches)], pools[index % len(matches)]
        match.reset(seed)
        game = match.game
        seated = {side: pool[int(rng.integers(len(pool)))] for side in game.sides}
        for i, side in enumerate(game.sides):
            seated[side].reset(seed * 2 + i)
        start = len(targets)
        sides_then: list[str] = []
        decision = int(rng.integers(stride))
        while not game.is_over:
            agent = game.current_agent
            assert agent is not None
            if decision % stride == 0:
                proxy = hull_values(game)
                for other in game.agents:
                    if game.is_active(other):
                        side = game.side_of(other)
                        observations.append(game.observe(other))
                        sides_then.append(side)
                        hull.append(proxy[side])
            decision += 1
            mask = game.legal_mask(agent)
            if rng.random() < random_share:
                action = _uniform_legal(match, mask, rng)
            else:
                captain = seated[game.side_of(agent)]
                action = np.asarray(captain.act(match.decision(agent, captain)))
            game.apply(agent, action)
        winner = game.winner
        targets += [0.0 if winner is None else (1.0 if side == winner else -1.0) for side in sides_then]
        game_ids += [index] * (len(targets) - start)
    return ValueData(np.asarray(observations, dtype=np.float32), np.asarray(targets, dtype=np.float32),
                     np.asarray(hull, dtype=np.float32), np.asarray(game_ids))


def _uniform_legal(match: Match, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal value in each component (the mask is per component, as the envs give it)."""
    values = []
    offset = 0
    for size in match.action_spec.nvec:
        allowed = np.flatnonzero(mask[offset:offset + size])
        values.append(int(rng.choice(allowed)) if allowed.size else 0)
        offset += size
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True)
class FitReport:
    train_positions: int
    holdout_positions: int
    holdout_mse: float
    constant_mse: float
    hull_mse: float
    epochs: int


def fit(data: ValueData, hidden: Sequence[int] = (128, 128), epochs: int = 30, holdout: float = 0.1,
        seed: int = 0, batch_size: int = 512, learning_rate: float = 1e-3) -> tuple[ValueNet, FitReport]:
    """Least squares on the outcomes (torch, CPU); the net with the best held-out error over the epochs."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    last_game = int(data.games.max()) + 1
    split = data.games >= int(last_game * (1 - holdout))
    x_train, y_train = torch.from_numpy(data.observations[~split]), torch.from_numpy(data.targets[~split])
    x_test, y_test = torch.from_numpy(data.observations[split]), torch.from_numpy(data.targets[split])
    sizes = [data.observations.shape[1], *hidden, 1]
    layers: list[torch.nn.Module] = []
    for n_in, n_out in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(n_in, n_out), torch.nn.Tanh()]
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate, weight_decay=1e-5)
    generator = torch.Generator().manual_seed(seed)
    best: tuple[float, list[np.ndarray]] | None = None
    for _ in range(epochs):
        order = torch.randperm(len(x_train), generator=generator)
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            loss = torch.mean((model(x_train[batch])[:, 0] - y_train[batch]) ** 2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            error = float(torch.mean((model(x_test)[:, 0] - y_test) ** 2))
        if best is None or error < best[0]:
            best = (error, [p.detach().numpy().copy() for p in model.parameters()])
    assert best is not None
    params = best[1]
    net = ValueNet(tuple(w.T.copy() for w in params[0::2]), tuple(params[1::2]), "tanh")
    targets = data.targets[split]
    report = FitReport(int((~split).sum()), int(split.sum()), round(best[0], 4),
                       round(float(np.mean((targets - data.targets[~split].mean()) ** 2)), 4),
                       round(float(np.mean((targets - data.hull[split]) ** 2)), 4), epochs)
    return net, report


def build(ruleset_id: str, games: int, first_seed: int = DEFAULT_FIRST_SEED, directory: Path = CAPTAINS_DIR,
          epochs: int = 30) -> dict[str, object]:
    """Play, fit and write ``<ruleset>.value.npz`` and its card; returns the card."""
    started = time.time()
    ruleset = get_ruleset(ruleset_id)
    data = play_and_record(ruleset_id, games, first_seed)
    played = time.time() - started
    net, report = fit(data, epochs=epochs)
    card: dict[str, object] = {
        "format": "naval-tactics-value", "ruleset": ruleset_id, "ruleset_version": ruleset.version,
        "games": games, "seeds": [first_seed, first_seed + games - 1], "positions": len(data.targets),
        "holdout_mse": report.holdout_mse, "constant_mse": report.constant_mse, "hull_mse": report.hull_mse,
        "train_positions": report.train_positions, "holdout_positions": report.holdout_positions,
        "epochs": report.epochs, "seconds_playing": round(played), "seconds": round(time.time() - started),
        "command": f"naval-tactics zoo value --ruleset {ruleset_id} --games {games} --first-seed {first_seed} "
                   f"--epochs {epochs}",
    }
    net.save(zoo_value_path(ruleset_id, directory), card)
    return card
