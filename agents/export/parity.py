"""Check that an ONNX export decides like the torch model it came from, on decisions from real games.

The torch captain (deterministic) plays whole games against every scripted captain of
the ruleset and ``random``, on every scenario, from both sides; each of its decisions
(observation, mask, action it took) is recorded. On those decisions the ONNX captain must
take the same action (one decision at a time, as in play) and its masked logits must
agree with the torch distribution's ``logits`` within ``tolerance`` (absolute).

Logits are compared on the allowed entries only: forbidden ones are about -1e8 on both
sides, where one float32 step is 8, so they carry no information; instead every
forbidden ONNX logit must be below ``HUGE_NEG / 2`` (counted as ``masked_leaks``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.learned import MaskablePPOCaptain
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.registry import make_captain, scripted_names
from naval_agents.captains.sidecar import HUGE_NEG
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.match import Match

DEFAULT_TOLERANCE = 1e-5


@dataclass(frozen=True)
class DecisionSet:
    """Decisions a captain took in real games: ``observations[i]``, ``masks[i]`` -> ``actions[i]``."""

    observations: np.ndarray   # float32 [n, observation size]
    masks: np.ndarray          # bool [n, flat mask size]
    actions: np.ndarray        # int64 [n, components]
    games: int
    scenarios: tuple[str, ...]
    opponents: tuple[str, ...]


@dataclass(frozen=True)
class ParityReport:
    n: int
    max_abs_diff: float        # largest |torch - onnx| over allowed logits
    mismatches: int            # decisions where the ONNX action differs from the torch one
    masked_leaks: int          # forbidden ONNX logits above HUGE_NEG / 2 (must be 0)
    tolerance: float
    worst_component: str
    games: int
    scenarios: tuple[str, ...]
    opponents: tuple[str, ...]
    mismatch_examples: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return (self.n > 0 and self.mismatches == 0 and self.masked_leaks == 0
                and self.max_abs_diff <= self.tolerance)

    def summary(self) -> str:
        verdict = "PASS" if self.ok else "FAIL"
        lines = [
            (f"parity {verdict}: {self.n} decisions from {self.games} games "
             f"(scenarios {', '.join(self.scenarios)}; opponents {', '.join(self.opponents)})"),
            f"  action mismatches: {self.mismatches}",
            (f"  max |logit diff| on allowed values: {self.max_abs_diff:.3g} "
             f"(tolerance {self.tolerance:g}, worst component {self.worst_component})"),
            f"  forbidden logits not masked: {self.masked_leaks}",
        ]
        lines += [f"  mismatch: {example}" for example in self.mismatch_examples]
        return "\n".join(lines)


class _Recorder(Captain):
    def __init__(self, inner: Captain, sink: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        self.inner, self.sink, self.name = inner, sink, inner.name

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, decision: Decision) -> np.ndarray:
        action = np.asarray(self.inner.act(decision), dtype=np.int64)
        self.sink.append((decision.observation.copy(), decision.action_mask.copy(), action.copy()))
        return action


def collect_decisions(captain: Captain, ruleset_id: str, n: int, seed: int = 0,
                      scenarios: list[str] | None = None, opponents: list[str] | None = None,
                      config_path: str | None = None) -> DecisionSet:
    """Play games until ``captain`` has made at least ``n`` decisions; rotate scenario, opponent, side."""
    from naval_agents.captains.arena import play_game

    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config(config_path)
    scenarios = scenarios or ruleset.scenarios(config)
    opponents = opponents or scripted_names(ruleset_id)
    matches = {s: Match(ruleset, config, s) for s in scenarios}
    action_spec = ruleset.action_spec(config)
    rng = np.random.default_rng(seed)
    sink: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    recorder = _Recorder(captain, sink)
    games = 0
    while len(sink) < n:
        if games > 50 + 10 * n:
            raise RuntimeError(f"only {len(sink)} decisions after {games} games; the captain never decides?")
        scenario = scenarios[games % len(scenarios)]
        opponent_name = opponents[(games // len(scenarios)) % len(opponents)]
        match = matches[scenario]
        game_seed = int(rng.integers(2**31 - 1))
        sides = list(match.game.sides)
        learner_side = sides[(games // (len(scenarios) * len(opponents))) % len(sides)]
        opponent = make_captain(opponent_name, ruleset_id, action_spec, seed=game_seed)
        captains = {side: recorder if side == learner_side else opponent for side in sides}
        play_game(match, captains, game_seed, keep_events=False)
        games += 1
    observations, masks, actions = (np.stack(column) for column in zip(*sink[:n]))
    return DecisionSet(observations.astype(np.float32), masks.astype(bool), actions.astype(np.int64),
                       games, tuple(scenarios), tuple(opponents))


def torch_logits(captain: MaskablePPOCaptain, observations: np.ndarray, masks: np.ndarray) -> list[np.ndarray]:
    """sb3-contrib's masked logits per component (``distribution.distributions[i].logits``)."""
    policy = captain.model.policy
    policy.set_training_mode(False)
    with torch.no_grad():
        obs_tensor, _ = policy.obs_to_tensor(observations)
        distribution = policy.get_distribution(obs_tensor, action_masks=masks)
        return [d.logits.cpu().numpy() for d in distribution.distributions]


def compare(torch_captain: MaskablePPOCaptain, onnx_captain: OnnxCaptain, decisions: DecisionSet,
            tolerance: float = DEFAULT_TOLERANCE, chunk: int = 512) -> ParityReport:
    """Compare the ONNX captain with the torch one on recorded decisions."""
    n = len(decisions.actions)
    names = onnx_captain.component_names
    mismatch_rows: list[int] = []
    for i in range(n):
        action = onnx_captain.act(Decision("parity", decisions.observations[i], decisions.masks[i]))
        if not np.array_equal(action, decisions.actions[i]):
            mismatch_rows.append(i)
    max_diff = np.zeros(len(names))
    leaks = 0
    offsets = np.cumsum([0, *[c["size"] for c in onnx_captain.sidecar["action"]["components"]]])
    for start in range(0, n, chunk):
        obs = decisions.observations[start:start + chunk]
        masks = decisions.masks[start:start + chunk]
        reference = torch_logits(torch_captain, obs, masks)
        _, exported = onnx_captain.evaluate(obs, masks)
        for k, (ref, got) in enumerate(zip(reference, exported)):
            allowed = masks[:, offsets[k]:offsets[k + 1]]
            if allowed.any():
                max_diff[k] = max(max_diff[k], float(np.abs(ref - got)[allowed].max()))
            leaks += int((got[~allowed] > HUGE_NEG / 2).sum())
    examples = tuple(
        f"decision {i}: torch {decisions.actions[i].tolist()}, onnx "
        f"{onnx_captain.act(Decision('parity', decisions.observations[i], decisions.masks[i])).tolist()}"
        for i in mismatch_rows[:5]
    )
    worst = int(np.argmax(max_diff)) if len(names) else 0
    return ParityReport(
        n=n, max_abs_diff=float(max_diff.max(initial=0.0)), mismatches=len(mismatch_rows), masked_leaks=leaks,
        tolerance=tolerance, worst_component=names[worst] if names else "-", games=decisions.games,
        scenarios=decisions.scenarios, opponents=decisions.opponents, mismatch_examples=examples,
    )


def check_parity(torch_captain: MaskablePPOCaptain, onnx_captain: OnnxCaptain, n: int = 2000, seed: int = 0,
                 tolerance: float = DEFAULT_TOLERANCE, scenarios: list[str] | None = None,
                 opponents: list[str] | None = None, config_path: str | None = None) -> ParityReport:
    """Play games with the torch captain, then compare the ONNX captain on ``n`` of its decisions."""
    # torch's own most likely actions are the reference, not a numpy copy's (load_run_captain plays through one)
    torch_captain = MaskablePPOCaptain(torch_captain.model, name=torch_captain.name, deterministic=True)
    decisions = collect_decisions(torch_captain, onnx_captain.ruleset_id, n, seed, scenarios, opponents,
                                  config_path)
    return compare(torch_captain, onnx_captain, decisions, tolerance)
