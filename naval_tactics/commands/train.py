"""Train a MaskablePPO captain on any registered ruleset.

    python train.py --config configs/train/pantheon.yaml [--total-timesteps N] [--seed S] ...
    python train.py --config pantheon --seeds 0 1 2 [--workers 3] [--backend ray [--address ADDR]]
    naval-tactics train --resume RUN_FOLDER

Every command-line flag overrides the field of the same name in the YAML config;
the resolved config, seeds and library versions land in the run folder
(``runs/<name>-<time>/``) next to TensorBoard logs, checkpoints, ``best_model.zip``
and ``final_model.zip``. ``--seeds`` trains several seeds in parallel, each in its own
run folder under ``runs/<name>-seeds-<time>/seed-<S>/``, and reports each seed's final
win rate with their mean and spread (``seeds.json`` there). A run writes a resumable checkpoint every
``checkpoint_every`` timesteps and when stopped by Ctrl-C or SIGTERM; ``--resume RUN_FOLDER`` goes on
from the newest one to the run's total (agents/training/checkpoints.py).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from naval_agents.captains.extras import (
    MissingExtraError,
    cli_command,
    invoked_as,
    require_training,
)
from naval_agents.distributed.ray_runtime import add_ray_arguments
from naval_env.core.errors import ConfigError

if TYPE_CHECKING:
    from naval_agents.training.config import TrainConfig

TRAIN_BACKENDS = ("local", "ray", "rllib")
#: Flags that steer where and how many runs go, not fields of the run config.
RUN_FLAGS = ("config", "seeds", "workers", "address", "resume")
#: Exit status of a run stopped by Ctrl-C or SIGTERM after writing its checkpoint (128 + SIGINT).
STOPPED = 130


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    return make_parser().parse_args(argv)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=invoked_as("train"), description="Train a MaskablePPO captain.",
                                     allow_abbrev=False)
    seeds = parser.add_mutually_exclusive_group()
    parser.add_argument("--config", help="run config: a shipped one by name (pantheon, crew_phase_strong, ...) "
                                         "or a YAML path, e.g. configs/train/pantheon.yaml")
    parser.add_argument("--resume", type=Path, metavar="RUN_FOLDER",
                        help="go on with an interrupted run from its newest checkpoint, with its own config "
                             "(no other flag but --no-progress-bar)")
    parser.add_argument("--name", help="run name (folder prefix)")
    parser.add_argument("--ruleset", help="ruleset id, e.g. pantheon")
    parser.add_argument("--scenario", help="scenario name of the ruleset config")
    seeds.add_argument("--seed", type=int, help="0..2**32 - 1 (numpy's seed range)")
    seeds.add_argument("--seeds", type=int, nargs="+", metavar="S",
                       help="train these seeds in parallel, each in its own run folder under one parent "
                            "folder, and report their final win rates' mean and spread")
    parser.add_argument("--workers", type=int,
                        help="with --seeds: seeds training at once (default: one per seed, at most one per core)")
    parser.add_argument("--total-timesteps", type=int, help="learner decisions to train on (total_timesteps)")
    parser.add_argument("--n-envs", type=int, help="environments stepped together (n_envs)")
    parser.add_argument("--vec-env", choices=["dummy", "subproc"],
                        help="dummy: every env in this process; subproc: one process per env")
    parser.add_argument("--torch-threads", type=int, help="threads torch may use for the policy's maths")
    parser.add_argument("--device", choices=["cpu", "auto", "cuda"],
                        help="cuda is refused where torch sees no GPU; auto takes one when there is one "
                             "(run.json records the device used)")
    parser.add_argument("--run-dir", help="parent folder of run folders (default runs/)")
    parser.add_argument("--opponents", nargs="+", help="opponent pool (scripted names)")
    parser.add_argument("--opponent-mode", choices=["scripted", "pool", "self_play"],
                        help="scripted: one scripted captain; pool: one drawn per game from --opponents; "
                             "self_play: frozen snapshots of the learner mixed with scripted anchors")
    parser.add_argument("--allies", choices=["opponent", "learner"],
                        help="who captains the learner's other ships in fleet scenarios")
    parser.add_argument("--learning-rate", type=float, help="PPO's learning rate (ppo.learning_rate)")
    parser.add_argument("--n-steps", type=int, help="steps per env in each rollout (ppo.n_steps)")
    parser.add_argument("--batch-size", type=int, help="minibatch size of each PPO update (ppo.batch_size)")
    parser.add_argument("--imitate", help="scripted captain to clone before PPO (imitation.teacher)")
    parser.add_argument("--no-progress-bar", dest="progress_bar", action="store_const", const=False,
                        help="no progress bar (for logs and CI)")
    add_ray_arguments(parser, backends=TRAIN_BACKENDS, default="local")
    parser.set_defaults(backend=None)   # not given: the config's backend (local unless it says otherwise)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prog = invoked_as("train")
    try:
        require_training(prog)
    except MissingExtraError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    from naval_agents.training.config import load_train_config

    if args.resume is not None:
        return resume_run(args)
    overrides = {k: v for k, v in vars(args).items() if k not in RUN_FLAGS}
    try:
        config = load_train_config(args.config, overrides)
        if args.workers is not None and args.seeds is None:
            raise ConfigError("--workers sets how many seeds train at once, so it needs --seeds")
    except ConfigError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    if args.seeds is not None:
        return train_several(config, args.seeds, args.workers, args.address)
    from naval_agents.training.backends import train_on_backend
    from naval_agents.training.checkpoints import TrainingStopped

    try:
        folder = train_on_backend(config, args.address)
    except (KeyError, ValueError) as error:   # ConfigError is a ValueError
        print(f"{prog}: error: {error.args[0] if isinstance(error, KeyError) else error}", file=sys.stderr)
        return 2
    except TrainingStopped as stopped:
        print(f"{prog}: {stopped}", file=sys.stderr)
        return STOPPED
    print(f"run folder: {folder}")
    print(f"evaluate it: {shlex.join(evaluate_command(config, folder))}")
    for line in run_summary(folder):
        print(line)
    return 0


def run_summary(folder: Path) -> list[str]:
    """The last lines of a run: each opponent's final quick evaluation (the final model's, else the last one
    played) with its interval, and the learning curve's path."""
    from naval_agents.training.plots import LEARNING_CURVE, load_learning_curve

    lines = []
    for opponent, points in load_learning_curve(folder).evals.items():
        last = next((p for p in reversed(points) if p.final), points[-1])
        which = "final model" if last.final else f"last quick evaluation (at {last.timesteps:,} timesteps)"
        lines.append(f"{which} vs {opponent}: {last.win_rate:.2f} [{last.low:.2f}, {last.high:.2f}] over "
                     f"{last.games} games (a quick check; judge a captain with evaluate over a few hundred)")
    plot = folder / LEARNING_CURVE
    lines.append(f"learning curve: {plot}" if plot.is_file() else "learning curve: not drawn (nothing recorded)")
    return lines


def resume_run(args: argparse.Namespace) -> int:
    """``--resume RUN_FOLDER``: the run goes on with its own config; other run settings are refused."""
    from naval_agents.training.checkpoints import ResumeError, TrainingStopped
    from naval_agents.training.run import resume

    prog = invoked_as("train")
    given = sorted(f"--{k.replace('_', '-')}" for k, v in vars(args).items()
                   if v is not None and k not in ("resume", "progress_bar"))
    if given:
        print(f"{prog}: error: --resume goes on with the run's own config.yaml; drop {', '.join(given)}", file=sys.stderr)
        return 2
    try:
        folder = resume(args.resume, args.progress_bar)
    except (ResumeError, ValueError, KeyError) as error:
        print(f"{prog}: error: {error.args[0] if isinstance(error, KeyError) else error}", file=sys.stderr)
        return 2
    except TrainingStopped as stopped:
        print(f"{prog}: {stopped}", file=sys.stderr)
        return STOPPED
    print(f"run folder: {folder}")
    return 0


def train_several(config: TrainConfig, seeds: list[int], workers: int | None, address: str | None) -> int:
    """``--seeds``: train them in parallel and print the table; exit 1 when a seed failed (the others finish)."""
    from naval_agents.training.seeds import format_summary, train_seeds

    try:
        summary = train_seeds(config, seeds, workers=workers, address=address,
                              on_done=lambda o: print(f"seed {o.seed}: {'finished' if o.ok else 'failed'}",
                                                      flush=True))
    except (KeyError, ValueError) as error:
        print(f"{invoked_as('train')}: error: {error.args[0] if isinstance(error, KeyError) else error}",
              file=sys.stderr)
        return 2
    print(format_summary(summary))
    return 0 if all(outcome.ok for outcome in summary.outcomes) else 1


def evaluate_command(config: TrainConfig, folder: Path) -> list[str]:
    """The evaluation command for a finished run; it works from any folder where the package is installed."""
    from naval_agents.captains.registry import scripted_names

    command = [*cli_command(), "evaluate", "--ruleset", config.ruleset]
    if config.ruleset_config is not None:
        command += ["--config", config.ruleset_config]
    from naval_agents.training.config import TrainingScenarios

    scenario = TrainingScenarios.of(config).home
    if scenario is not None:   # a run over several scenarios is evaluated in its first; zoo report plays them all
        command += ["--scenario", scenario]
    return [*command, "--captains", str(folder), *(scripted_names(config.ruleset)[1:] or ["random"])]


if __name__ == "__main__":
    sys.exit(main())
