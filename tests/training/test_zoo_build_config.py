"""`naval-tactics zoo build --config`: which run config a zoo captain is trained by, and that a given run matches it."""

import json
from pathlib import Path

import pytest
import yaml

from naval_agents.captains.zoo.catalogue import (
    CAPTAINS_DIR,
    ZooError,
    rebuild_command,
    recorded_rebuild_command,
)
from naval_agents.zoo.build import (
    check_run_matches_config,
    config_command_path,
    load_build_config,
    training_facts,
)
from naval_agents.zoo.card import read_facts, render_card
from naval_tactics.commands.zoo import main


def _run_folder(tmp_path: Path, config: str, **changes: object) -> Path:
    """A run folder as train.py leaves it (its config.yaml and run.json), trained by ``config`` with ``changes``."""
    dumped = load_build_config("crew_phase", config, seed=4).model_dump()
    dumped.update(name="crew_phase-20261202-000000", run_dir="elsewhere", progress_bar=True, **changes)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump(dumped, sort_keys=False))
    (folder / "run.json").write_text(json.dumps({"ruleset": "crew_phase", "seed": 4, "scenario": "duel"}))
    return folder


def test_a_run_of_the_named_config_is_accepted_whatever_its_name_seed_and_folder(tmp_path: Path) -> None:
    check_run_matches_config(_run_folder(tmp_path, "crew_phase"), "crew_phase", "crew_phase")


def test_a_run_of_another_config_is_refused_naming_what_differs(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path, "crew_phase", total_timesteps=1234)
    with pytest.raises(ZooError, match=r"not trained by run config 'crew_phase': they differ in total_timesteps; "
                                       r"name the config it was trained by with --config"):
        check_run_matches_config(folder, "crew_phase", "crew_phase")
    with pytest.raises(ZooError, match="is not a run folder"):
        check_run_matches_config(tmp_path, "crew_phase", "crew_phase")


def test_a_config_for_another_ruleset_is_refused() -> None:
    with pytest.raises(ZooError, match="run config 'pantheon' trains ruleset 'pantheon', not 'crew_phase'"):
        load_build_config("crew_phase", "pantheon", seed=0)


def test_the_card_names_the_config_in_its_training_and_rebuild_commands(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path, "crew_phase_expert")
    assert training_facts(folder, config="crew_phase_expert")["command"] == \
        "python train.py --config configs/train/crew_phase_expert.yaml --seed 4"
    assert training_facts(folder)["command"] == "python train.py --config configs/train/crew_phase.yaml --seed 4"
    assert config_command_path("my/own.yaml") == "my/own.yaml"
    assert rebuild_command("crew_phase", "crew_phase_expert") == \
        "naval-tactics zoo build --ruleset crew_phase --config crew_phase_expert"
    assert rebuild_command("crew_phase", "crew_phase") == rebuild_command("crew_phase") == \
        "naval-tactics zoo build --ruleset crew_phase"
    (tmp_path / "crew_phase.card.json").write_text(json.dumps({"rebuild_command": "naval-tactics zoo build "
                                                               "--ruleset crew_phase --config x"}))
    assert recorded_rebuild_command("crew_phase", tmp_path).endswith("--config x")
    assert recorded_rebuild_command("pursuit", tmp_path) == "naval-tactics zoo build --ruleset pursuit"


def test_the_command_refuses_a_mismatched_run_before_it_exports_anything(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = _run_folder(tmp_path, "crew_phase_expert")
    shipped = {p.name: p.read_bytes() for p in CAPTAINS_DIR.glob("crew_phase.*")}
    assert main(["build", "--ruleset", "crew_phase", "--run", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "naval-tactics zoo: error:" in err and "name the config it was trained by with --config" in err
    assert main(["build", "--ruleset", "crew_phase", "--config", "nope", "--run", str(folder)]) == 2
    assert "no shipped run config of that name" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in CAPTAINS_DIR.glob("crew_phase.*")} == shipped


def test_the_card_says_how_a_rebuild_resumes_and_where_this_run_was_resumed(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path, "crew_phase", checkpoint_every=50_000)
    facts = {**read_facts("crew_phase"), "training": training_facts(folder)}   # the shipped card, another run
    never_resumed = render_card(facts)
    assert ("- **Resumable:** the training writes a checkpoint every 50,000 timesteps and when stopped by Ctrl-C "
            "or SIGTERM; `naval-tactics train --resume RUN_FOLDER` goes on from the newest one.\n") in never_resumed
    manifest = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**manifest, "resumed_from": 1_101_824}))
    facts["training"] = training_facts(folder)
    assert facts["training"]["resumed_from"] == 1_101_824
    assert ("goes on from the newest one. This run was stopped and resumed; its last resume went on from "
            "1,101,824 timesteps, and the training time above adds up every sitting.") in render_card(facts)


def test_remeasure_rewrites_the_card_without_training_or_export(tmp_path: Path) -> None:
    # A card measured again after its scenarios changed: its training facts and rebuild command stay, its
    # numbers are new, its ladder is marked stale for the scenarios, and the shipped files are not touched.
    from naval_agents.zoo.build import build_entry

    for path in CAPTAINS_DIR.glob("pursuit.*"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    rules = tmp_path / "rules"
    rules.mkdir()
    page = Path(CAPTAINS_DIR).parents[2] / "docs" / "rules" / "pursuit.md"
    (rules / "pursuit.md").write_text(page.read_text())
    before = read_facts("pursuit", tmp_path)
    onnx = (tmp_path / "pursuit.onnx").read_bytes()
    steps: list[str] = []
    build_entry("pursuit", remeasure=True, seeds=3, workers=1, directory=tmp_path, rules_dir=rules,
                report_games=2, report_positions=2, report=steps.append)
    after = read_facts("pursuit", tmp_path)
    assert (tmp_path / "pursuit.onnx").read_bytes() == onnx
    assert after["training"] == before["training"] and after["rebuild_command"] == before["rebuild_command"]
    assert after["evaluation"]["seeds"] == 3 and after["evaluation"]["seeds"] != before["evaluation"]["seeds"]
    assert after["report"] != before["report"]
    assert "measured in the scenarios as they were" in after["ladder"]["stale"]
    assert steps[0].startswith("[1/5] measuring the shipped pursuit captain again") and "no training" in steps[0]


def test_remeasure_takes_no_run_config_or_seed(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["build", "--ruleset", "pursuit", "--remeasure", "--seed", "3"]) == 2
    assert "--remeasure measures the shipped captain as it is" in capsys.readouterr().err


def test_a_stale_note_is_kept_and_a_new_reason_added_once() -> None:
    from naval_agents.zoo.build import mark_ladder_stale

    facts = {"ruleset": "pursuit", "ladder": {"stale": "the steps were measured with older levels"}}
    why = "measured in the scenarios as they were"
    first = mark_ladder_stale(facts, why)
    assert first is not None and first.startswith("the steps were measured with older levels. Also: " + why)
    assert mark_ladder_stale(facts, why) == first           # measured again: the note does not grow
    assert str(mark_ladder_stale({"ruleset": "pursuit", "ladder": {"levels": {}}}, why)).startswith(why)
    assert mark_ladder_stale({"ruleset": "pursuit"}, why) is None


def test_remeasure_needs_no_training_extra(monkeypatch, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # A torch-free install can measure a shipped captain again: the [train] check is for training and export.
    import naval_agents.zoo.build as zoo_build
    from naval_agents.captains import extras

    def no_torch(command: str) -> None:
        raise extras.MissingExtraError(f"{command} needs the [train] extra")

    calls: list[bool] = []
    monkeypatch.setattr(extras, "require_training", no_torch)
    monkeypatch.setattr(zoo_build, "build_entry", lambda *a, **k: calls.append(k["remeasure"]) or tmp_path / "c.md")
    assert main(["build", "--ruleset", "pursuit", "--remeasure"]) == 0 and calls == [True]
    assert main(["build", "--ruleset", "pursuit"]) == 2 and calls == [True]
    assert "needs the [train] extra" in capsys.readouterr().err
