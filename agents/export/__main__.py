"""``python -m naval_agents.export RUN_FOLDER_OR_ZIP --out captains/NAME.onnx [--parity 2000] [--conformance 300] [--seed N]``
``python -m naval_agents.export RUN_FOLDER_OR_ZIP --sb3 [--out NAME.zip] [--parity 2000] [--seed N]``

Exports the run's captain (``NAME.onnx``, its sidecar ``NAME.json`` and conformance vectors
``NAME.conformance.json``, checked on write), then checks parity with the torch model on real games.
With ``--sb3`` it writes instead a zip that stock sb3-contrib loads (``MaskablePPO.load`` with only
sb3-contrib installed; policy ``MaskableActorCriticPolicy``), default ``<model>.sb3.zip`` beside the model,
and checks that the reloaded zip takes the run policy's actions on ``--parity`` decisions.
Exit status: 0 exported and parity passed (or skipped with ``--parity 0``); 1 parity
failed (the export is removed again so it cannot be shipped by mistake); 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from naval_agents.captains.extras import (
    MissingExtraError,
    invoked_as,
    python_command,
    require_training,
)
from naval_agents.export.conformance import DEFAULT_COUNT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=invoked_as("export", module="naval_agents.export"),
        description="Export a trained MaskablePPO captain to ONNX plus a JSON sidecar, and check parity.",
        allow_abbrev=False,
    )
    parser.add_argument("source", help="training run folder (holds run.json) or a model .zip inside one")
    parser.add_argument("--out", help="output .onnx path, the sidecar goes next to it as .json (required); with "
                                      "--sb3 the .zip path (default: <model>.sb3.zip beside the model)")
    parser.add_argument("--sb3", action="store_true",
                        help="write a zip stock sb3-contrib loads instead of ONNX: MaskablePPO.load needs neither "
                             "this package nor its policy class (MLP runs only; a slot-network run is refused)")
    parser.add_argument("--parity", type=int, default=2000, metavar="N",
                        help="decisions from real games to compare with the torch model (0 skips; default 2000)")
    parser.add_argument("--conformance", type=int, default=None, metavar="N",
                        help="conformance vectors (real positions with their observation, mask and the captain's "
                             f"move) written next to the export as NAME.conformance.json (0 skips; default "
                             f"{DEFAULT_COUNT})")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the parity games and of the conformance vectors' games (default 0)")
    parser.add_argument("--tolerance", type=float, default=1e-5,
                        help="largest allowed absolute logit difference (default 1e-5)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        require_training(invoked_as("export", module="naval_agents.export"))
    except MissingExtraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.parity < 0:
        print("error: --parity must be 0 (skip) or a positive number of decisions", file=sys.stderr)
        return 2
    if args.sb3:
        if args.conformance is not None:
            print("error: --conformance is for ONNX exports; an --sb3 zip carries no conformance vectors",
                  file=sys.stderr)
            return 2
        return _export_sb3(args)
    if args.out is None:
        print("error: --out NAME.onnx is required for an ONNX export (or give --sb3 for a stock sb3-contrib zip)",
              file=sys.stderr)
        return 2
    if args.conformance is None:
        args.conformance = DEFAULT_COUNT
    if args.conformance < 0:
        print("error: --conformance must be 0 (skip) or a positive number of vectors", file=sys.stderr)
        return 2
    from pathlib import Path

    from naval_agents.captains.onnx_captain import OnnxCaptain
    from naval_agents.captains.sidecar import FORMAT, FORMAT_VERSION
    from naval_agents.export.onnx_export import export_run
    from naval_env.core.errors import NavalError

    try:
        result = export_run(args.source, args.out, conformance=args.conformance, seed=args.seed)
        captain = OnnxCaptain(result.onnx_path, expected_ruleset=result.ruleset_id)
    except (NavalError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    size_kb = Path(result.onnx_path).stat().st_size / 1024
    print(f"exported {result.run_folder} ({result.ruleset_id} {result.ruleset_version}, "
          f"scenario {result.scenario or 'default'})")
    print(f"  wrote {result.onnx_path} ({size_kb:.0f} KiB, sha256 {result.sha256[:16]}...)")
    print(f"  wrote {result.sidecar_path} (sidecar {FORMAT} v{FORMAT_VERSION})")
    print(f"  inputs: observation float32 [batch, {result.observation_size}], "
          f"action_mask float32 [batch, {result.flat_mask_size}] (1 = allowed)")
    print(f"  outputs: logits_<component> for {', '.join(result.components)}; "
          f"action int64 [batch, {len(result.components)}]")
    if result.conformance_path is not None:
        size = result.conformance_path.stat().st_size / 1024
        print(f"  wrote {result.conformance_path} ({result.conformance_vectors} conformance vectors, "
              f"{size:.0f} KiB, verified on reload; check with "
              f"`{python_command()} -m naval_agents.export.conformance check {result.conformance_path}`)")
    else:
        print(f"  no conformance vectors: {result.conformance_note}")
    if args.parity == 0:
        print("parity check skipped (--parity 0)")
        return 0

    from naval_agents.export.parity import check_parity

    report = check_parity(result.torch_captain, captain, n=args.parity, seed=args.seed,
                          tolerance=args.tolerance, config_path=result.config_path)
    print(report.summary())
    if not report.ok:
        Path(result.onnx_path).unlink(missing_ok=True)
        Path(result.sidecar_path).unlink(missing_ok=True)
        if result.conformance_path is not None:
            result.conformance_path.unlink(missing_ok=True)
        print(f"error: the export does not decide like the torch model; removed {result.onnx_path}, "
              "its sidecar and its conformance vectors", file=sys.stderr)
        return 1
    return 0


def _export_sb3(args: argparse.Namespace) -> int:
    from naval_agents.export.sb3_zip import STOCK_POLICY, Sb3ParityError, export_sb3
    from naval_env.core.errors import NavalError

    try:
        result = export_sb3(args.source, args.out, check=args.parity, seed=args.seed)
    except Sb3ParityError as exc:   # the zip was removed again
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (NavalError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    size_kb = result.zip_path.stat().st_size / 1024
    print(f"exported {result.run_folder} ({result.ruleset_id}) for stock sb3-contrib")
    print(f"  wrote {result.zip_path} ({size_kb:.0f} KiB; policy {STOCK_POLICY}, "
          f"net_arch {result.net_arch or 'default'})")
    print(f"  observation Box float32 [{result.observation_size}], action MultiDiscrete {list(result.nvec)}; "
          f"pass the env's flat action mask as predict(obs, action_masks=mask)")
    if result.checked:
        print(f"  reloaded with MaskablePPO.load: the run policy's actions on all {result.checked} decisions "
              "from real games")
    else:
        print("  check skipped (--parity 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
