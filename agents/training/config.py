"""The training run config: one validated model, loaded from YAML with command-line overrides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from naval_agents.captains.networks import SLOT_BOUNDS
from naval_agents.training.rllib.settings import RLlibSettings
from naval_agents.training.starts import (
    MidgameSettings,
    ScenarioChoice,
    StartsSettings,
    check_scenario_shape,
    scenario_weights,
)
from naval_env.core.config import BUNDLED_CONFIGS, StrictModel, read_yaml, validate
from naval_env.core.errors import ConfigError

#: The largest seed numpy's global generator (which SB3 seeds) accepts.
MAX_SEED = 2**32 - 1



def _bounded(key: str, default: int, description: str) -> Any:
    low, high = SLOT_BOUNDS[key]
    return Field(default=default, ge=low, le=high, description=description)


class SlotNetworkSettings(StrictModel):
    """The slot network: one token per ship slot, ``layers`` self-attention blocks of ``width`` and ``heads``."""

    width: int = _bounded("width", 64, "token width")
    heads: int = _bounded("heads", 4, "attention heads; must divide width")
    layers: int = _bounded("layers", 1, "attention blocks (0: per-slot encoders only)")

    @model_validator(mode="after")
    def _heads_divide_width(self) -> SlotNetworkSettings:
        if self.width % self.heads:
            raise ValueError(f"width {self.width} is not a multiple of heads {self.heads}")
        return self


class PPOSettings(StrictModel):
    """MaskablePPO hyper-parameters (see the sb3-contrib docs for each)."""

    learning_rate: float = Field(default=3e-4, gt=0)
    learning_rate_schedule: Literal["constant", "linear"] = Field(
        default="constant", description="'linear': from learning_rate down to 0 at the last timestep, so the "
                                         "final model is the settled end of the run rather than one noisy update")
    n_steps: int = Field(default=512, ge=8, description="steps per env per rollout")
    batch_size: int = Field(default=256, ge=8)
    n_epochs: int = Field(default=5, ge=1)
    gamma: float = Field(default=0.99, gt=0, le=1)
    gae_lambda: float = Field(default=0.95, gt=0, le=1)
    clip_range: float = Field(default=0.2, gt=0)
    ent_coef: float = Field(default=0.01, ge=0)
    vf_coef: float = Field(default=0.5, ge=0)
    max_grad_norm: float = Field(default=0.5, gt=0)
    net_arch: list[Annotated[int, Field(ge=1)]] = Field(
        default=[128, 128], min_length=1, description="widths of the hidden layers, each at least 1")
    slots: SlotNetworkSettings | None = Field(
        default=None, description="an entity network over the observation's ship slots before the net_arch "
                                  "layers (agents/captains/networks/slot_network.py); absent: the flat observation")


class SelfPlaySettings(StrictModel):
    snapshot_every: int = Field(default=50_000, ge=1, description="timesteps between frozen snapshots")
    max_snapshots: int = Field(default=5, ge=1, description="newest snapshots kept in the pool")
    snapshot_share: float = Field(default=0.5, ge=0, le=1,
                                  description="share of games against snapshots; the rest against anchors")


class OpponentSettings(StrictModel):
    """Who the learner plays. ``scripted``: pool[0] only. ``pool``: one of pool per game, drawn
    uniformly, so a captain listed twice is met twice as often. ``self_play``: frozen snapshots of
    the learner mixed with the pool as anchors."""

    mode: Literal["scripted", "pool", "self_play"] = "pool"
    pool: list[str] = Field(default=["gunner", "rammer"], min_length=1)
    allies: Literal["opponent", "learner"] = Field(
        default="opponent",
        description="who captains the learner's other ships: the opponent's captain, or the learner "
                    "itself (its newest snapshot, refreshed every self_play.snapshot_every timesteps), "
                    "so a captain trained on a fleet learns to fight beside copies of itself")
    self_play: SelfPlaySettings = SelfPlaySettings()


class EvalSettings(StrictModel):
    every: int = Field(default=50_000, ge=1, description="timesteps between quick evaluations")
    games: int = Field(default=20, ge=1, description="paired games per quick evaluation")
    opponent: str = "gunner"


class ImitationSettings(StrictModel):
    """Behaviour cloning of a scripted captain before PPO (``teacher`` unset: PPO starts from scratch)."""

    teacher: str | dict[str, str] | None = Field(
        default=None, description="captain the policy first imitates, or one per side ({side: captain}) where "
                                  "the sides of a scenario call for different tactics")
    decisions: int = Field(default=50_000, ge=100, description="learner decisions recorded (whole games)")
    epochs: int = Field(default=10, ge=1)
    batch_size: int = Field(default=256, ge=8)
    learning_rate: float = Field(default=1e-3, gt=0)
    held_out: float = Field(default=0.1, ge=0, lt=1, description="share of decisions kept to measure agreement")


class ExpertIterationSettings(StrictModel):
    """Expert iteration after imitation and before PPO (``rounds`` 0: off). Each round the search plays
    the learner's seat, guided by the current network, and the network is distilled from the search's
    visit counts (cross-entropy per action component) with its value fitted to the games' returns;
    the result is still one network, exported without search. See agents/training/expert_iteration.py."""

    rounds: int = Field(default=0, ge=0, description="rounds of search play then distillation; 0 turns it off")
    search: str = Field(default="search:32", description="the teacher: search, search:N or search:Nms "
                                                            "(a time budget is not repeatable run to run)")
    decisions_per_round: int = Field(default=2_000, ge=10, description="learner decisions the search plays a round "
                                                                      "(whole games)")
    proposer: Literal["policy", "scripted"] = Field(
        default="policy", description="what a wide search node tries first: the network's most likely action "
                                      "(the search refines the network) or the rollout captain's")
    method: Literal["root", "tree"] = Field(
        default="root", description="the search: root (keeps the network's move unless its rollouts prove a better "
                                    "one; the target is the move played) or tree (MCTS; the target is the root's "
                                    "visit shares, as the runs before the root search were made)")
    rollout: Literal["scripted", "policy"] = Field(
        default="scripted", description="who plays both sides in the search's rollouts: the ruleset's strongest "
                                        "scripted captain, or the network itself (its most likely actions)")
    leaf: Literal["scripted", "policy"] = Field(
        default="scripted", description="leaf value: a scripted rollout then hull fractions (the search's "
                                        "default), or the network's value head at once")
    epochs: int = Field(default=10, ge=1, description="passes over all rounds' decisions after each round")
    batch_size: int = Field(default=256, ge=8)
    learning_rate: float = Field(default=1e-3, gt=0)
    held_out: float = Field(default=0.1, ge=0, lt=1, description="share of each round's decisions kept to "
                                                                  "measure agreement")

    @model_validator(mode="after")
    def _search_name(self) -> ExpertIterationSettings:
        from naval_agents.captains.search.names import parse_search_name

        parse_search_name(self.search)   # SearchNameError (a ValueError) names the allowed forms
        return self


class TrainConfig(StrictModel):
    """One training run; every field is recorded in the run folder so the run can be repeated."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    ruleset: str
    ruleset_config: str | None = Field(default=None, description="path; default configs/rulesets/<id>.yaml")
    scenario: ScenarioChoice = Field(default=None, description=(
        "a scenario, a list of them (drawn uniformly per game), a mapping scenario: weight, or all; unset: the "
        "ruleset's default (agents/training/starts.py)"))
    starts: StartsSettings = Field(default=StartsSettings(), description="mid-game starts and prioritized draws")
    learner_commands: Literal["ship", "side"] = Field(default="ship", description=(
        "ship: the learner captains one ship, the others of its side get opponents.allies; side: every ship of "
        "its side, as a shipped captain does in a fleet"))
    seed: int = Field(default=0, ge=0, le=MAX_SEED,
                      description="seeds numpy, torch and the envs; numpy's global seed allows 0..2**32 - 1")
    total_timesteps: int = Field(ge=1)
    n_envs: int = Field(default=2, ge=1, le=64)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    torch_threads: int = Field(default=1, ge=1)
    device: Literal["cpu", "auto", "cuda"] = "cpu"
    learner: str | list[str] = Field(default="random", min_length=1, description=(
        "agent id, 'random' to play both sides, or a list of agent ids drawn from per game (repeat one to "
        "weight its seat)"))
    opponents: OpponentSettings = OpponentSettings()
    ppo: PPOSettings = PPOSettings()
    imitation: ImitationSettings = ImitationSettings()
    expert_iteration: ExpertIterationSettings = ExpertIterationSettings()
    eval: EvalSettings = EvalSettings()
    checkpoint_every: int = Field(default=100_000, ge=1)
    run_dir: str = "runs"
    progress_bar: bool = True
    backend: Literal["local", "ray", "rllib"] = Field(default="local", description=(
        "local: SB3 on this machine; ray: SB3 as Ray tasks (one per seed; a local Ray or the cluster given by "
        "--address); rllib: RLlib's PPO on Ray (naval_agents.training.rllib; settings in rllib:)"))
    rllib: RLlibSettings = RLlibSettings()

    @field_validator("scenario")
    @classmethod
    def _scenario_shape(cls, value: ScenarioChoice) -> ScenarioChoice:
        return check_scenario_shape(value)

    @model_validator(mode="after")
    def _one_captain_per_ship(self) -> TrainConfig:
        if self.learner_commands == "side" and self.opponents.allies == "learner":
            raise ValueError("learner_commands 'side' already has the learner captain its other ships; "
                             "opponents.allies 'learner' (snapshots as allies) applies only with "
                             "learner_commands 'ship'")
        return self

    @model_validator(mode="after")
    def _starts_need_sb3(self) -> TrainConfig:
        if self.backend != "rllib":
            return self
        several = self.scenario is not None and not (isinstance(self.scenario, str) and self.scenario != "all")
        extra = [name for name, used in (
            ("a scenario list, mapping or all", several), ("starts.midgame.share above 0", self.starts.midgame.share > 0),
            ("starts.prioritized", self.starts.prioritized.enabled), ("learner_commands 'side'",
                                                                      self.learner_commands == "side"),
            ("ppo.slots (the slot network)", self.ppo.slots is not None)) if used]
        if extra:
            raise ValueError(f"backend rllib trains one scenario from its set-up with the learner on one ship "
                             f"and a flat MLP; {', '.join(extra)} need backend local or ray")
        return self

    @model_validator(mode="after")
    def _batch_fits(self) -> TrainConfig:
        if self.backend == "rllib":
            if self.ppo.batch_size > self.rllib.train_batch_size:
                raise ValueError(f"ppo.batch_size {self.ppo.batch_size} (the minibatch) is larger than "
                                 f"rllib.train_batch_size {self.rllib.train_batch_size}; allowed: at most it")
            return self
        rollout = self.ppo.n_steps * self.n_envs
        if self.ppo.batch_size > rollout:
            raise ValueError(
                f"ppo.batch_size {self.ppo.batch_size} is larger than one rollout "
                f"(ppo.n_steps {self.ppo.n_steps} x n_envs {self.n_envs} = {rollout})"
            )
        return self


@dataclass(frozen=True)
class TrainingScenarios:
    """The scenarios a run trains on, worked out once from its config (``scenario``, ``starts.midgame``) and
    handed to everything that plays its games: the SB3 envs, the RLlib path, the quick evaluation, the run's
    manifest and the command line. A run config names its scenarios one of several ways (one, a list, a
    mapping to weights, ``all``, unset); past this object only the resolved weights are read."""

    #: Each scenario drawn with its weight, summing to 1, in the config's order; ``None``: the ruleset's default.
    weights: Mapping[str | None, float]
    #: Games that begin from mid-game positions of these scenarios.
    midgame: MidgameSettings

    @classmethod
    def of(cls, config: TrainConfig) -> TrainingScenarios:
        """Resolved against the ruleset config's scenarios; a ConfigError names the allowed ones."""
        return cls(scenario_weights(config.ruleset, config.ruleset_config, config.scenario), config.starts.midgame)

    @property
    def names(self) -> list[str | None]:
        return list(self.weights)

    @property
    def home(self) -> str | None:
        """The one scenario a single-scenario part (quick evaluation, imitation checks, RLlib) plays: the first."""
        return next(iter(self.weights))

    def manifest(self) -> dict[str, float]:
        """The weights as ``run.json`` records them (the default scenario as ``default``)."""
        return {name or "default": weight for name, weight in self.weights.items()}


#: Command-line overrides: flag -> dotted field.
OVERRIDES = {
    "name": "name", "ruleset": "ruleset", "scenario": "scenario", "seed": "seed",
    "total_timesteps": "total_timesteps", "n_envs": "n_envs", "vec_env": "vec_env",
    "torch_threads": "torch_threads", "run_dir": "run_dir", "opponents": "opponents.pool",
    "opponent_mode": "opponents.mode", "allies": "opponents.allies", "learning_rate": "ppo.learning_rate", "n_steps": "ppo.n_steps",
    "batch_size": "ppo.batch_size", "imitate": "imitation.teacher", "progress_bar": "progress_bar", "device": "device",
    "backend": "backend",
}


def shipped_train_configs() -> list[str]:
    """Names of the run configs that ship with the package (``configs/train/<name>.yaml``)."""
    return sorted(p.stem for p in (BUNDLED_CONFIGS / "train").glob("*.yaml"))


def names_shipped_config(path: str | Path) -> bool:
    """Whether ``path`` is read as the name of a shipped run config (``pantheon``): a bare name, no such file."""
    given = Path(path)
    return not (given.exists() or given.suffix or given.parent != Path("."))


def resolve_train_config(path: str | Path) -> Path:
    """A YAML path as given, or the name of a shipped run config (``pantheon``) when no such file exists."""
    given = Path(path)
    shipped = BUNDLED_CONFIGS / "train" / f"{given.name}.yaml"
    if not names_shipped_config(given):
        return given
    if not shipped.is_file():
        raise ConfigError(f"{path}: no such config file, and no shipped run config of that name; "
                          f"shipped: {', '.join(shipped_train_configs())}")
    return shipped


def load_train_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read ``path`` (if any), apply dotted ``overrides`` (None values skipped) and validate."""
    data: dict[str, Any] = read_yaml(resolve_train_config(path)) if path is not None else {}
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key not in OVERRIDES:
            raise ConfigError(f"unknown override {key!r}; allowed: {sorted(OVERRIDES)}")
        target = data
        *parents, leaf = OVERRIDES[key].split(".")
        for parent in parents:
            target = target.setdefault(parent, {})
        target[leaf] = value
    return validate(TrainConfig, data, str(path) if path is not None else "<command line>")
