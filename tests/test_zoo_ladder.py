"""Difficulty levels that search, and the ladder's calibration below a searching ``expert``."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from agents.base import Decision
from agents.export.onnx_captain import OnnxCaptain
from agents.search import SearchCaptain
from agents.zoo import ladder
from agents.zoo.levels import LEVELS_FILE, Level, MixedCaptain, levels_of, make_level_captain
from naval_env.core.ruleset import get_ruleset
from naval_tactics.catalogue import Catalogue
from naval_tactics.commands import zoo as zoo_command


@pytest.fixture
def levels_file(tmp_path: Path) -> Path:
    path = tmp_path / "levels.yaml"
    shutil.copyfile(LEVELS_FILE, path)
    return path


def test_a_searching_level_is_the_search_guided_by_its_base_with_its_share_of_random_moves() -> None:
    ruleset = get_ruleset("broadside")
    config = ruleset.load_config()
    game = ruleset.new_game(config, None, seed=3)
    shipped = levels_of("broadside")
    levels = shipped.model_copy(update={"hard": Level(base="zoo", random_share=0.25, search=4)})
    captain = make_level_captain("hard", "broadside", game.action_spec, seed=1, config=config, levels=levels)
    assert isinstance(captain, MixedCaptain) and captain.random_share == 0.25 and captain.name == "hard"
    search = captain.base
    assert isinstance(search, SearchCaptain) and search.simulations == 4 and search.time_budget_ms is None
    assert isinstance(search.rollout, OnnxCaptain)   # the zoo captain proposes and plays the rollouts
    captain.reset(7)
    searched = 0
    while not game.is_over and searched < 2:
        agent = game.current_agent
        mask = game.legal_mask(agent)
        before = search.last_result
        action = captain.act(Decision(agent, game.observe(agent), mask, game))
        game.action_spec.check(action, mask)   # raises on an illegal action
        if search.last_result is not before and search.last_result.simulations:
            assert search.last_result.simulations == 4
            searched += 1
        game.apply(agent, action)
    assert searched == 2


def test_levels_are_written_with_their_search_and_the_other_rulesets_are_kept(levels_file: Path) -> None:
    before = levels_file.read_text(encoding="utf-8")
    levels = levels_of("flotilla", levels_file)
    searched = levels.model_copy(update={"expert": Level(base="zoo", random_share=0.0, search=16)})
    ladder.write_levels("flotilla", searched, levels_file)
    after = levels_file.read_text(encoding="utf-8")
    assert "  expert: {base: zoo, random_share: 0.0, search: 16}\n" in after
    assert levels_of("flotilla", levels_file) == searched
    assert levels_of("pantheon", levels_file) == levels_of("pantheon")
    assert [line for line in after.splitlines() if line.startswith("#")] == \
           [line for line in before.splitlines() if line.startswith("#")]
    ladder.write_levels("flotilla", levels, levels_file)   # a level without search writes no search key
    assert levels_of("flotilla", levels_file) == levels and levels_file.read_text(encoding="utf-8") == before


def _fake_probe(expert_edge: float, calls: list[tuple[str, str]]):
    """Win rates of a model where a share s of random moves leaves logit strength 3(1 - s) and the
    searching expert is ``expert_edge`` above the base captain as is."""

    def strength(spec: str) -> float:
        return 3.0 + expert_edge if spec == "expert" else 3.0 * (1.0 - float(spec.rsplit(":", 1)[1]))

    def probe(ruleset_id: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
        calls.append((upper, lower))
        return 1.0 / (1.0 + math.exp(strength(lower) - strength(upper)))

    return probe


def test_below_a_searching_expert_hard_is_the_base_as_is_when_that_is_already_a_step(
        levels_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(ladder, "probe", _fake_probe(0.8, calls))
    levels, probes = ladder.calibrate("broadside", workers=1, expert_search=16, path=levels_file)
    assert calls[0] == ("expert", "mixed:zoo:1.0000")              # the whole range
    assert calls[1] == ("expert", "mixed:zoo:0.0000")              # hard: the base as is, first
    assert levels.expert == Level(base="zoo", random_share=0.0, search=16)
    assert levels.hard.random_share == 0.0 and levels.hard.search is None
    assert calls[2][0] == "mixed:zoo:0.0000"                       # normal is measured against hard
    assert 0.0 < levels.normal.random_share < levels.easy.random_share <= 1.0
    # The expert was written before the probes ran (their worker processes build it from the file).
    assert levels_of("broadside", levels_file).expert.search == 16
    assert [p.level for p in probes][:1] == ["hard"]


def test_below_a_searching_expert_that_is_not_yet_a_step_up_hard_plays_some_random_moves(
        levels_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(ladder, "probe", _fake_probe(0.2, calls))   # expert beats the base only 0.55
    levels, _ = ladder.calibrate("broadside", workers=1, expert_search=16, path=levels_file)
    assert calls[1] == ("expert", "mixed:zoo:0.0000") and calls[2] == ("expert", "mixed:zoo:0.5000")
    assert levels.hard.random_share == 0.25   # logit 0.2 + 0.75 -> 0.72, within 0.70 +- 0.05


def test_the_ladder_measures_each_level_against_the_one_below_it() -> None:
    assert ladder.STEPS == ("expert:hard", "hard:normal", "normal:easy")
    assert "--pairings expert:hard hard:normal normal:easy" in ladder.ladder_command("broadside", "duel", 400)


def test_calibration_flags_are_checked_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert zoo_command.TARGET == ladder.TARGET
    cases = {
        ("--expert-search", "16"): "--expert-search: needs --calibrate",
        ("--calibrate", "--target", "0.9"): "--target 0.9: aim for a win rate from 0.6 to 0.8",
        ("--calibrate", "--expert-search", "0"): "--expert-search 0: simulations a decision must be 1 to 100000",
        ("--calibrate", "--probe-games", "0"): "--probe-games must be at least 1",
    }
    for flags, message in cases.items():
        assert zoo_command.main(["ladder", "--ruleset", "broadside", *flags]) == 2
        assert message in capsys.readouterr().err


def test_the_server_thinks_off_its_event_loop_exactly_for_levels_that_search() -> None:
    catalogue = Catalogue.load()
    for ruleset_id in catalogue.rulesets:
        for level in ("easy", "normal", "hard", "expert"):
            spec = getattr(levels_of(ruleset_id), level)
            entry = catalogue.captain(ruleset_id, level)
            assert entry.slow == (spec.search is not None)
            assert ("a search of" in entry.description) == (spec.search is not None)
