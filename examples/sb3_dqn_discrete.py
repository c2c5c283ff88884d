"""Stock SB3 DQN on the flat Discrete action space, with no glue: the env is made and handed to ``DQN``.

    python examples/sb3_dqn_discrete.py --ruleset flotilla --total-timesteps 20000

What it shows: ``gym.make("naval/Flotilla-v0", action_space="discrete")`` gives ``Discrete(n)``, one index per
legal joint action of the current decision (docs/environments.md, "The flat Discrete action space"), and a
flat float32 observation, the two spaces DQN takes as they are. DQN does not mask, so it can pick an index
past the decision's legal ones; the env's illegal-action policy (``illegal_action="noop"``, the default)
then plays index 0 (the no-op where the rules allow it), charges the config's ``rewards.illegal_action``
(-0.05) and says why in ``info["illegal_action"]``, and the game goes on. The script counts those choices
(a callback that only reads infos) and reports them with the greedy policy's score against the opponent.
Needs the training extra (torch, stable-baselines3): ``pip install "naval-tactics[train]"``.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from stable_baselines3 import DQN
from stable_baselines3.common.callbacks import BaseCallback

import naval_env
from naval_env.envs.gym_env import learner_points


@dataclass
class Settings:
    ruleset: str = "flotilla"
    """ruleset id; flotilla, pursuit and broadside decisions stay under a few hundred legal joint actions"""
    scenario: str | None = None
    """scenario name (None: the ruleset's default)"""
    opponent: str = "random"
    """captain the learner plays against (any name ``naval-tactics list`` shows)"""
    max_joint_actions: int = 64
    """size of the Discrete space: above the most legal joint actions a flotilla decision had in random play
    (25); a decision with more raises JointActionsOverflow instead of hiding any"""
    total_timesteps: int = 20_000
    """environment steps DQN trains for"""
    learning_starts: int = 1_000
    """steps of random play before the first update"""
    eval_games: int = 50
    """games the greedy policy plays after training"""
    seed: int = 0
    """seeds the env, DQN and the evaluation games"""


def make_env(settings: Settings) -> gym.Env:
    """The env, exactly as DQN takes it."""
    return gym.make(naval_env.get_ruleset(settings.ruleset).gym_id, scenario=settings.scenario,
                    opponent=settings.opponent, action_space="discrete",
                    max_joint_actions=settings.max_joint_actions)


class IllegalChoices(BaseCallback):
    """Counts the steps whose index the env refused and replaced (``info["illegal_action"]`` not empty)."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0
        self.illegal = 0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            self.steps += 1
            self.illegal += bool(info["illegal_action"])
        return True


def train(settings: Settings) -> tuple[DQN, IllegalChoices]:
    """DQN trained on the Discrete space, and its count of illegal choices while training."""
    model = DQN("MlpPolicy", make_env(settings), learning_starts=settings.learning_starts,
                exploration_fraction=0.3, target_update_interval=500, seed=settings.seed, verbose=0)
    counter = IllegalChoices()
    model.learn(total_timesteps=settings.total_timesteps, callback=counter)
    return model, counter


def evaluate(model: DQN, settings: Settings) -> dict[str, Any]:
    """The greedy policy over ``eval_games`` new games: mean points (win 1, draw 0.5) and its illegal share."""
    env = make_env(settings)
    points, steps, illegal = 0.0, 0, 0
    for game in range(settings.eval_games):
        observation, _ = env.reset(seed=settings.seed + 10_000 + game)
        done = False
        while not done:
            action, _ = model.predict(observation, deterministic=True)
            observation, _, terminated, truncated, info = env.step(action)
            steps += 1
            illegal += bool(info["illegal_action"])
            done = terminated or truncated
        points += learner_points(info)
    env.close()
    return {"games": settings.eval_games, "score": points / settings.eval_games, "steps": steps,
            "illegal_share": illegal / max(steps, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="SB3 DQN on a naval-tactics env's flat Discrete action space.")
    for field in dataclasses.fields(Settings):
        flag = "--" + field.name.replace("_", "-")
        kind = str if field.name == "scenario" else type(field.default)
        parser.add_argument(flag, type=kind, default=field.default)
    settings = Settings(**vars(parser.parse_args(argv)))
    model, counter = train(settings)
    result = evaluate(model, settings)
    print(f"trained {counter.steps} steps on Discrete({settings.max_joint_actions}), "
          f"{counter.illegal / max(counter.steps, 1):.3f} of them illegal (replaced by index 0)")
    print(f"greedy vs {settings.opponent} over {result['games']} games: score {result['score']:.3f}, "
          f"illegal share {result['illegal_share']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
