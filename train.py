"""Train a MaskablePPO captain on any registered ruleset.

    python train.py --config configs/train/pantheon.yaml [--total-timesteps N] [--seed S] ...

Every command-line flag overrides the field of the same name in the YAML config;
the resolved config, seeds and library versions land in the run folder
(``runs/<name>-<time>/``) next to TensorBoard logs, checkpoints, ``best_model.zip``
and ``final_model.zip``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from naval_env.core.errors import ConfigError


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train a MaskablePPO captain.")
    parser.add_argument("--config", help="YAML run config, e.g. configs/train/pantheon.yaml")
    parser.add_argument("--name", help="run name (folder prefix)")
    parser.add_argument("--ruleset", help="ruleset id, e.g. pantheon")
    parser.add_argument("--scenario", help="scenario name of the ruleset config")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--total-timesteps", type=int)
    parser.add_argument("--n-envs", type=int)
    parser.add_argument("--vec-env", choices=["dummy", "subproc"])
    parser.add_argument("--torch-threads", type=int)
    parser.add_argument("--device", choices=["cpu", "auto", "cuda"])
    parser.add_argument("--run-dir", help="parent folder of run folders (default runs/)")
    parser.add_argument("--opponents", nargs="+", help="opponent pool (scripted names)")
    parser.add_argument("--opponent-mode", choices=["scripted", "pool", "self_play"])
    parser.add_argument("--allies", choices=["opponent", "learner"],
                        help="who captains the learner's other ships in fleet scenarios")
    parser.add_argument("--learning-rate", type=float)
    parser.add_argument("--n-steps", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--imitate", help="scripted captain to clone before PPO (imitation.teacher)")
    parser.add_argument("--no-progress-bar", dest="progress_bar", action="store_const", const=False)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    from agents.training.config import load_train_config

    args = parse_args(argv)
    overrides = {k: v for k, v in vars(args).items() if k != "config"}
    try:
        config = load_train_config(args.config, overrides)
    except ConfigError as error:
        print(f"train.py: {error}", file=sys.stderr)
        return 2
    from agents.training.run import train

    try:
        folder = train(config)
    except (KeyError, ValueError) as error:
        print(f"train.py: {error}", file=sys.stderr)
        return 2
    print(f"run folder: {folder}")
    from agents.registry import scripted_names

    rivals = " ".join(scripted_names(config.ruleset)[1:]) or "random"
    print(f"evaluate it: python evaluate.py --ruleset {config.ruleset} --captains {folder} {rivals}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
