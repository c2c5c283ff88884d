"""Terminal `play` on a new player's path: the board's facing marks are explained (R7 is red facing
north-east, not ship 7) and a long list of maneuvers comes in groups, each still chosen by its number."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_tactics.play import GROUP_OVER, board_key, option_groups, play


def _play(tmp_path: Path, answers: str, ruleset: str = "pantheon", scenario: str | None = None) -> str:
    out = io.StringIO()
    play(ruleset, scenario, "gunner", "red", tmp_path / "game.jsonl", io.StringIO(answers),
         Console(file=out, width=120, color_system=None), seed=4)
    return out.getvalue()


def test_the_board_key_explains_the_facing_marks_once(tmp_path: Path) -> None:
    shown = _play(tmp_path, "quit\n")
    assert shown.count("Board key:") == 1
    key = " ".join(shown.split("Board key:", 1)[1].split())
    for mark, point in (("^", "north"), ("7", "north-east"), (">", "east"), ("J", "south-east"), ("v", "south"),
                        ("L", "south-west"), ("<", "west"), ("F", "north-west")):
        assert f"{mark} {point}," in key or f"{mark} {point}." in key
    assert "R0 is red_0" in key and "R7: red, facing north-east" in key
    again = _play(tmp_path, "?\nquit\n")   # ? shows the table and its key again
    assert again.count("Board key:") == 2


@pytest.mark.parametrize(("ruleset", "keyed"), [("pantheon", True), ("crew_phase", True), ("flotilla", True),
                                                ("broadside", False), ("pursuit", False)])
def test_a_key_only_where_the_board_has_facing_marks(ruleset: str, keyed: bool) -> None:
    rules = get_ruleset(ruleset)
    board = rules.new_game(rules.load_config(), seed=1).render_ansi([])
    assert (board_key(board) is not None) is keyed


def test_the_maneuvers_come_in_groups_and_are_chosen_by_number(tmp_path: Path) -> None:
    shown = _play(tmp_path, "? 7\n??\n7\nquit\n")
    options = shown.split("maneuver: MOVE phase", 1)[1].split("maneuver [1-", 1)[0]
    assert "  ahead 1  6 straight   7 port after 0   8 starboard after 0" in options
    assert len(options.strip().splitlines()) < 30   # 62 options, a line or two per group
    assert "7  ahead 1, port after 0: 1 space(s) ahead, turning one point to port after space 0" in shown
    full = shown.split("> ??", 1)[1]
    assert "62 ahead 6, starboard after 6 6 space(s) ahead" in " ".join(full.split())   # ?? lists each, explained
    assert "red_0: maneuver=ahead 1, port after 0 ->" in shown


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_groups_keep_every_option_once_with_its_number(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    game = rules.new_game(rules.load_config(), seed=1)
    spec = game.action_spec
    long = [c for c in spec.components if len(c.labels) > GROUP_OVER] or list(spec.components)
    for component in long:
        numbers = [n for _, members in option_groups(list(component.labels)) for n, _ in members]
        assert sorted(numbers) == list(range(1, len(component.labels) + 1)), component.name
