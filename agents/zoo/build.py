"""Rebuild a ruleset's zoo entry end to end: train, export, evaluate against every scripted captain, write the card."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from naval_agents.captains.registry import scripted_names
from naval_agents.captains.zoo.catalogue import (
    CAPTAINS_DIR,
    ZooError,
    card_path,
    rebuild_command,
    zoo_onnx_path,
)
from naval_agents.evaluation.tournament import Evaluation, build_tournament, evaluate
from naval_agents.zoo.card import read_facts, write_card
from naval_agents.zoo.report import REPORT_SEED, generalization_report
from naval_agents.zoo.report_card import report_facts

#: Seeds of the strength table: 400 seeds, each played from both sides.
EVALUATION_SEED = 1000
EVALUATION_SEEDS = 400
ZOO_CONFORMANCE_VECTORS = 100  # keeps each entry near a megabyte; exports default to 300
#: The card's generalization report: seeds a cell and mid-game positions a scenario, each from both sides,
#: so every cell has the 400 paired games a shipping claim needs.
REPORT_GAMES = 200
REPORT_POSITIONS = 200


#: Run-config fields a zoo build may set differently from the config it names (they do not change the model).
BOOKKEEPING_FIELDS = ("name", "seed", "run_dir", "progress_bar")


def load_build_config(ruleset_id: str, config: str, seed: int, run_dir: str = "runs") -> Any:
    """The run config a zoo build trains (a shipped name such as ``crew_phase_strong`` or a YAML path), checked
    to be for ``ruleset_id``."""
    from naval_agents.training.config import load_train_config

    loaded = load_train_config(config, {"seed": seed, "run_dir": run_dir, "name": f"zoo-{ruleset_id}",
                                        "progress_bar": sys.stderr.isatty()})
    if loaded.ruleset != ruleset_id:
        raise ZooError(f"run config {config!r} trains ruleset {loaded.ruleset!r}, not {ruleset_id!r}")
    return loaded


def check_run_matches_config(run_folder: Path, ruleset_id: str, config: str) -> None:
    """Refuse a run that was not trained by ``config`` (apart from its name, seed and folder), so the card's
    training command is the one that made the model."""
    from naval_agents.training.config import load_train_config

    saved = run_folder / "config.yaml"
    if not saved.is_file():
        raise ZooError(f"{run_folder} is not a run folder (it has no config.yaml)")
    ran = load_train_config(saved).model_dump()
    named = load_build_config(ruleset_id, config, ran["seed"], ran["run_dir"]).model_dump()
    differs = sorted(k for k in named.keys() | ran.keys()
                     if k not in BOOKKEEPING_FIELDS and named.get(k) != ran.get(k))
    if differs:
        raise ZooError(f"{run_folder} was not trained by run config {config!r}: they differ in "
                       f"{', '.join(differs)}; name the config it was trained by with --config")


def config_command_path(config: str) -> str:
    """How a training command names ``config``: ``configs/train/<name>.yaml`` for a shipped name, else the path."""
    from naval_agents.training.config import names_shipped_config

    return f"configs/train/{config}.yaml" if names_shipped_config(config) else config


def train_captain(ruleset_id: str, seed: int = 0, run_dir: str = "runs", config: str | None = None) -> Path:
    """Train ``config`` (default the ruleset's shipped run config, ``configs/train/<ruleset>.yaml``) with ``seed``."""
    from naval_agents.training.run import train

    return train(load_build_config(ruleset_id, config or ruleset_id, seed, run_dir))


def export_captain(ruleset_id: str, run_folder: Path, directory: Path = CAPTAINS_DIR) -> Path:
    """Export the run's final model as the zoo captain (ONNX, sidecar, conformance vectors)."""
    from naval_agents.export import export_run

    directory.mkdir(parents=True, exist_ok=True)
    out = zoo_onnx_path(ruleset_id, directory)
    export_run(run_folder, out, conformance=ZOO_CONFORMANCE_VECTORS)
    return out


def evaluation_command(ruleset_id: str, scenario: str, seeds: int, seed: int) -> str:
    rivals = " ".join(scripted_names(ruleset_id)[1:])
    pairs = " ".join(f"zoo:{name}" for name in scripted_names(ruleset_id)[1:])
    return (f"python evaluate.py --ruleset {ruleset_id} --scenario {scenario} --captains zoo {rivals} "
            f"--pairings {pairs} --games {seeds} --seed {seed}")


def evaluate_captain(ruleset_id: str, scenario: str, seeds: int = EVALUATION_SEEDS, seed: int = EVALUATION_SEED,
                     workers: int = 2) -> Evaluation:
    """The zoo captain against every scripted captain of the ruleset (paired, side-swapped seeds)."""
    rivals = scripted_names(ruleset_id)[1:]
    tournament = build_tournament(ruleset_id, ["zoo", *rivals], seeds, scenario=scenario,
                                  pairings=[f"zoo:{name}" for name in rivals], seed=seed)
    return evaluate(tournament, workers=workers, progress=sys.stderr.isatty())


def training_facts(run_folder: Path, machine_note: str = "", config: str | None = None) -> dict[str, Any]:
    import json

    manifest = json.loads((run_folder / "run.json").read_text(encoding="utf-8"))
    path = config_command_path(config or manifest["ruleset"])
    return {
        "command": f"python train.py --config {path} --seed {manifest['seed']}",
        "scenario": manifest.get("scenario"),
        "scenarios": manifest.get("scenarios") or {},
        "seed": manifest.get("seed"),
        "wall_seconds": manifest.get("wall_seconds", 0.0),
        "resumed_from": manifest.get("resumed_from"),   # the newest resume's step; absent when never resumed
        "versions": manifest.get("versions", {}),
        "config_yaml": (run_folder / "config.yaml").read_text(encoding="utf-8"),
        "machine_note": machine_note,
    }


def say(message: str) -> None:
    """One line of a build's progress (a build runs for minutes: each step says what it starts)."""
    print(message, flush=True)


def measure_report(ruleset_id: str, games: int = REPORT_GAMES, positions: int = REPORT_POSITIONS,
                   seed: int = REPORT_SEED, workers: int = 2, on_scenario: Callable[[str], Any] | None = None
                   ) -> dict[str, Any]:
    """The zoo captain's generalization report as the card keeps it (timed)."""
    started = time.monotonic()
    report = generalization_report(ruleset_id, "zoo", games=games, positions=positions, seed=seed,
                                   workers=workers, on_scenario=on_scenario)
    return report_facts(report, time.monotonic() - started, workers)


def build_entry(ruleset_id: str, *, seed: int = 0, run_folder: Path | None = None, seeds: int = EVALUATION_SEEDS,
                workers: int = 2, directory: Path = CAPTAINS_DIR, run_dir: str = "runs",
                machine_note: str = "", config: str | None = None, report: Callable[[str], None] = say,
                report_games: int = REPORT_GAMES, report_positions: int = REPORT_POSITIONS,
                rules_dir: Path | None = None, remeasure: bool = False) -> Path:
    """Train ``config`` (unless ``run_folder`` is given, which must have been trained by it), export, evaluate
    in the ruleset's default scenario, run the generalization report (``report_games`` seeds a cell and
    ``report_positions`` mid-game positions a scenario) and write the card (and the rules page's report
    block); returns the card's path. ``config`` defaults to the ruleset's shipped run config. ``report`` gets
    one line as each step starts. A ladder on the card was measured for the captain this build replaces, so
    it is kept and marked stale (see :func:`mark_ladder_stale`) until ``zoo ladder`` re-measures it.

    ``remeasure``: no training and no export; the shipped captain is measured again (strength table and report)
    and its card rewritten with its own training facts: for a captain whose scenarios changed since its card
    was written (issue 41's rebalanced set-ups). Its ladder is marked stale too: its numbers were played in
    the scenarios as they were."""
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    config = config or ruleset_id
    if remeasure:
        training = shipped_training(ruleset_id, directory, report)
    else:
        training = train_and_export(ruleset_id, seed, run_folder, run_dir, config, machine_note, directory, report)
    # The strength table is the default scenario's, whatever the run trained on (a many-scenario run's
    # ``scenario`` is only the first one it lists).
    scenario = ruleset.load_config().default_scenario
    rivals = scripted_names(ruleset_id)[1:]
    report(f"[3/5] evaluating against {', '.join(rivals)}: {2 * seeds} games a pairing on {scenario}")
    evaluation = evaluate_captain(ruleset_id, scenario, seeds, EVALUATION_SEED, workers)
    for summary in evaluation.summaries:
        report(f"      zoo vs {summary.b}: {summary.win_rate:.2f} [{summary.ci_low:.2f}, {summary.ci_high:.2f}]")
    report(f"[4/5] generalization report: every scenario, {2 * report_games} games a cell and "
           f"{report_positions} mid-game positions a scenario from both seats")
    generalization = measure_report(ruleset_id, report_games, report_positions, workers=workers,
                                    on_scenario=lambda name: report(f"      {name} ..."))
    facts = read_facts(ruleset_id, directory)
    facts.update({
        "ruleset": ruleset_id,
        "ruleset_version": ruleset.version,
        "training": training,
        "evaluation": {
            "scenario": scenario, "seeds": seeds, "seed": EVALUATION_SEED,
            "command": evaluation_command(ruleset_id, scenario, seeds, EVALUATION_SEED),
            "pairings": [s.to_dict() for s in evaluation.summaries],
        },
        "report": generalization,
    })
    if remeasure:   # a measured-again card keeps the command that built its captain
        stale = mark_ladder_stale(facts, SCENARIOS_CHANGED)
    else:
        facts["rebuild_command"] = rebuild_command(ruleset_id, config)
        stale = mark_ladder_stale(facts)
    report(f"[5/5] writing the card {card_path(ruleset_id, directory)}")
    if stale:
        report(f"warning: the card's difficulty ladder is now marked stale: {stale}")
    return write_card(ruleset_id, facts, directory, rules_dir)


def shipped_training(ruleset_id: str, directory: Path, report: Callable[[str], None]) -> dict[str, Any]:
    """The shipped captain's training facts, for a card measured again: steps 1 and 2 do nothing."""
    shipped = read_facts(ruleset_id, directory)
    if not shipped.get("training"):
        raise ZooError(f"no shipped {ruleset_id} captain with a card to measure again: build it first")
    report(f"[1/5] measuring the shipped {ruleset_id} captain again ({zoo_onnx_path(ruleset_id, directory)}): "
           "no training")
    report("[2/5] no export: the shipped files stay")
    return dict(shipped["training"])


def train_and_export(ruleset_id: str, seed: int, run_folder: Path | None, run_dir: str, config: str,
                     machine_note: str, directory: Path, report: Callable[[str], None]) -> dict[str, Any]:
    """Steps 1 and 2 of a build: train ``config`` (or take ``run_folder``, which must have been trained by it),
    export the model into ``directory``; returns the run's training facts."""
    if run_folder is not None:
        check_run_matches_config(run_folder, ruleset_id, config)
        report(f"[1/5] shipping {run_folder} (trained by run config {config!r}); no training")
        folder = run_folder
    else:
        planned = load_build_config(ruleset_id, config, seed, run_dir)
        report(f"[1/5] training run config {config!r} with seed {seed}: {planned.total_timesteps:,} timesteps "
               f"into {run_dir}/ (this is the long step)")
        folder = train_captain(ruleset_id, seed, run_dir, config)
        report(f"      trained: {folder}")
    report(f"[2/5] exporting to {zoo_onnx_path(ruleset_id, directory)} (ONNX, sidecar, "
           f"{ZOO_CONFORMANCE_VECTORS} conformance vectors)")
    export_captain(ruleset_id, folder, directory)
    return training_facts(folder, machine_note, config)


#: Why a card measured again marks its ladder stale (``zoo build --remeasure``).
SCENARIOS_CHANGED = "measured in the scenarios as they were before this card's last measurement"


def mark_ladder_stale(facts: dict[str, Any], why: str | None = None) -> str | None:
    """Keep the card's ladder but say it was measured for the previous captain (the level shares are not
    calibrated for the new one), or ``why`` it is stale where that is another reason; returns the note, or None
    when the card has no ladder. ``zoo ladder`` re-measures it and writes a ladder without the note."""
    ladder = facts.get("ladder")
    if not ladder:
        return None
    ruleset_id = facts["ruleset"]
    if why is not None:
        note = f"{why}; re-measure with `naval-tactics zoo ladder --ruleset {ruleset_id} --no-steps`"
        earlier = ladder.get("stale")
        if not earlier:
            ladder["stale"] = note
        elif note not in earlier:   # measured again twice: the note does not grow
            ladder["stale"] = f"{earlier}. Also: {note}"
        return str(ladder["stale"])
    ladder["stale"] = ("measured for the captain this build replaced, so the level shares are not calibrated "
                       "for this one; re-measure with `naval-tactics zoo ladder --ruleset "
                       f"{ruleset_id} --calibrate`")
    return str(ladder["stale"])
