"""Expert iteration before PPO: the search plays the learner's seat, the network is distilled from it.

Imitation of a scripted captain ends where its teacher is (issue 20: in ``flotilla`` no clone
beats ``tactician``). Expert iteration (Anthony, Tian and Barber, 2017; AlphaZero's training
loop without self-play) puts a stronger teacher in its place: the search captain
(``agents/search``), which looks further than any scripted captain and, guided by the network
(its most likely action is what a wide node tries first), improves on the network's own play.
Each round:

1. **Play.** The search plays the learner's seat of the training env (the opponents are the
   run's pool) until ``decisions_per_round`` decisions are recorded; every decision keeps the
   observation, the mask, the search's action and its *visit distribution* at the root, as
   one distribution per action component (the marginal of the root children's visits: the
   contract makes a decision's components independent).
2. **Distil.** The policy is fitted on every round's decisions so far (dataset aggregation):
   cross-entropy from each component's visit distribution to the masked policy's, plus
   ``vf_coef`` times the value head's squared error on the games' discounted returns.

The network that comes out is an ordinary MaskablePPO policy (PPO then goes on as configured)
and exports to ONNX without search. Everything is seeded: with a budget in simulations, the
same config gives the same network.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from naval_agents.captains.base import Captain
from naval_agents.captains.numpy_policy import NumpyPolicy, NumpyPolicyCaptain
from naval_agents.captains.search import SearchCaptain, SearchResult, parse_search_name
from naval_agents.captains.search.evaluators import Evaluator, netted_side_values, result_values
from naval_agents.training.config import ExpertIterationSettings
from naval_agents.training.imitation import Demonstrations, agreement, fit_in_batches, record_games
from naval_env.core.game import Game
from naval_env.core.spaces import ActionSpec
from naval_env.envs.gym_env import NavalEnv


@dataclass(frozen=True)
class SearchGames:
    """The learner's decisions as the search played them, with its visit distributions."""

    demos: Demonstrations        # observations, masks, the search's actions, returns
    targets: np.ndarray          # (n, flat mask size) float32: each component's visit distribution, concatenated
    simulations: float           # mean simulations a decision (0 where only one action was legal)


def visit_targets(spec: ActionSpec, result: SearchResult) -> np.ndarray:
    """Each component's share of the root's visits by value, concatenated (flat, like a mask); for the root
    search, the move it played, one-hot.

    A decision searched with no simulation (one legal action) gives the chosen action, one-hot.
    """
    target = np.zeros(int(sum(spec.nvec)), dtype=np.float32)
    # The root search's visits are its tests of challengers, not a policy: its target is the move it played.
    if result.method == "tree" and result.children and sum(c.visits for c in result.children) > 0:
        weighted = [(c.action, c.visits) for c in result.children]
    else:
        weighted = [(tuple(int(v) for v in result.action), 1)]
    total = float(sum(visits for _, visits in weighted))
    for action, visits in weighted:
        for offset, value in zip(spec.offsets, action):
            target[offset + value] += visits / total
    return target


class PolicyValue:
    """A leaf value from the network's value head: each side's mean value over its ships still in the
    game, clipped to [-1, 1], then made zero-sum (own minus the mean of the others, halved).

    It reads a numpy copy of the value head made here: a snapshot of the weights, as a round's search needs.
    """

    def __init__(self, policy: Any) -> None:
        self.network = policy if isinstance(policy, NumpyPolicy) else NumpyPolicy(policy)

    def __call__(self, game: Game) -> dict[str, float]:
        if game.is_over:
            return result_values(game)
        agents = [a for a in game.agents if game.health(a)[0] > 0] or list(game.agents)
        values = np.clip(self.network.values(np.stack([game.observe(a) for a in agents])), -1.0, 1.0)
        return netted_side_values(game, agents, values)


def make_teacher(settings: ExpertIterationSettings, policy: Any, seed: int) -> SearchCaptain:
    """The round's search captain, guided by ``policy`` as the settings ask."""
    budget = parse_search_name(settings.search)
    # The numpy copy plays policy.predict's deterministic moves without its per-call torch overhead
    # (bench/decision_costs.py --search: about 10x the simulations per second of predict rollouts).
    copy = NumpyPolicy(policy)
    network: Captain = NumpyPolicyCaptain(copy, name="network")
    leaf: dict[str, Any] = {}
    if settings.leaf == "policy":
        value: Evaluator = PolicyValue(copy)
        leaf = {"leaf": value, "rollout_depth": 0}
    return SearchCaptain(budget.simulations, budget.time_budget_ms, seed=seed, name=settings.search, method=settings.method,
                         proposer=network if settings.proposer == "policy" else None,
                         rollout=network if settings.rollout == "policy" else None, **leaf)


def play(build_env: Callable[[], gym.Env], teacher: SearchCaptain, decisions: int, gamma: float,
         seed: int) -> SearchGames:
    """Whole games with the search on the learner's seat until at least ``decisions`` were recorded."""
    targets: list[np.ndarray] = []
    simulations = 0

    def record_search(naval: NavalEnv, captain: Captain) -> None:
        nonlocal simulations
        assert teacher.last_result is not None
        simulations += teacher.last_result.simulations
        targets.append(visit_targets(naval.action_spec, teacher.last_result))

    demos = record_games(build_env, lambda naval: teacher, decisions, gamma, seed, purpose="expert iteration",
                         on_decision=record_search)
    return SearchGames(demos, np.asarray(targets, dtype=np.float32), simulations / len(demos.actions))


def join(parts: list[SearchGames]) -> SearchGames:
    """Every round's decisions as one data set."""
    def stacked(name: str) -> np.ndarray:
        return np.concatenate([getattr(p.demos, name) for p in parts])

    games = sum(p.demos.games for p in parts)
    score = sum(p.demos.teacher_win_rate * p.demos.games for p in parts) / games
    demos = Demonstrations(stacked("observations"), stacked("masks"), stacked("actions"), stacked("returns"),
                           games, score)
    return SearchGames(demos, np.concatenate([p.targets for p in parts]),
                       float(np.mean([p.simulations for p in parts])))


def distil(policy: Any, data: SearchGames, train_rows: np.ndarray, settings: ExpertIterationSettings,
           vf_coef: float, max_grad_norm: float, seed: int) -> float:
    """Fit ``policy`` to the visit distributions and returns of ``train_rows``; returns the last batch's loss."""
    sizes = [int(n) for n in policy.action_space.nvec]
    device = policy.device
    obs, masks, targets, returns = (torch.as_tensor(a, device=device) for a in
                                    (data.demos.observations, data.demos.masks, data.targets, data.demos.returns))

    def batch_loss(batch: torch.Tensor) -> torch.Tensor:
        distribution = policy.get_distribution(obs[batch], action_masks=masks[batch])
        parts = torch.split(targets[batch], sizes, dim=1)
        # Cross-entropy to each component's visit distribution. Masked logits are about -1e8 where the
        # target is 0; the product is 0, so a masked value adds nothing.
        policy_loss = -sum((part * d.logits).sum(dim=1).mean()
                           for part, d in zip(parts, _components(distribution)))
        values = policy.predict_values(obs[batch]).flatten()
        return policy_loss + vf_coef * torch.nn.functional.mse_loss(values, returns[batch])

    return fit_in_batches(policy, train_rows, batch_loss, settings.epochs, settings.batch_size,
                          settings.learning_rate, max_grad_norm, seed)


def _components(distribution: Any) -> list[Any]:
    """The per-component categorical distributions of sb3-contrib's masked MultiDiscrete distribution."""
    return list(distribution.distributions)


def expert_iteration(policy: Any, build_env: Callable[[], gym.Env], settings: ExpertIterationSettings,
                     gamma: float, vf_coef: float, max_grad_norm: float, seed: int,
                     on_round: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run ``settings.rounds`` rounds on ``policy`` (a MaskableActorCriticPolicy); what each round measured.
    ``on_round`` gets each round's measurements as soon as the round ends (a round can take minutes).

    Per round: the search's score on the learner's seat, the mean simulations a decision, the
    network's agreement with the search on the round's new decisions before it is fitted to them
    (how much the search still changes), and its held-out agreement after.
    """
    if settings.rounds == 0:
        return {}
    started = time.perf_counter()
    parts: list[SearchGames] = []
    held: list[np.ndarray] = []
    rounds = []
    for index in range(settings.rounds):
        round_started = time.perf_counter()
        round_seed = seed + 1_000 * index
        teacher = make_teacher(settings, policy, round_seed)
        part = play(build_env, teacher, settings.decisions_per_round, gamma, round_seed)
        offset = sum(len(p.demos.actions) for p in parts)
        n = len(part.demos.actions)
        order = np.random.default_rng(round_seed).permutation(n)
        n_test = int(n * settings.held_out)
        before = agreement(policy, part.demos, np.arange(n))
        parts.append(part)
        held.append(offset + order[:n_test])
        data = join(parts)
        test = np.concatenate(held)
        train = np.setdiff1d(np.arange(len(data.demos.actions)), test)
        loss = distil(policy, data, train, settings, vf_coef, max_grad_norm, round_seed)
        after = agreement(policy, data.demos, test)
        rounds.append({
            "round": index + 1, "games": part.demos.games, "decisions": n,
            "search_score": round(part.demos.teacher_win_rate, 4),
            "simulations_per_decision": round(part.simulations, 1),
            "agreement_before_fit": before.get("held_out_agreement"),
            "loss": round(loss, 4), **after,
            "seconds": round(time.perf_counter() - round_started, 1),
        })
        if on_round is not None:
            on_round(rounds[-1])
    return {"search": settings.search, "proposer": settings.proposer, "rollout": settings.rollout,
            "leaf": settings.leaf,
            "rounds": rounds, "seconds": round(time.perf_counter() - started, 1)}
