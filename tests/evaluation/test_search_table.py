"""The search headroom table: cells cached per (ruleset, budget), a rerun plays only the missing games."""

import json
import time

from naval_agents.evaluation.search_table import cell_path, fill_cell, load_cell, main


def test_a_cell_plays_each_seed_from_both_sides_and_keeps_them(tmp_path):
    cell = load_cell(tmp_path, "pantheon", 12, seeds=2)    # 12: a budget that searches (2 plays the prior)
    assert (cell.opponent, cell.scenario, cell.games) == ("gunner", "duel", [])
    assert fill_cell(cell, tmp_path, log=lambda _: None)
    assert sorted(cell.played()) == [(0, False), (0, True), (1, False), (1, True)]
    assert {g.search_side for g in cell.games} == {"red", "blue"}
    row = cell.summary()
    assert row["games"] == row["of"] == 4 and row["wins"] + row["draws"] + row["losses"] == 4
    assert row["ci"][0] <= row["score"] <= row["ci"][1] and row["ms_per_decision"] > 0
    assert json.loads(cell_path(tmp_path, "pantheon", 12).read_text())["games"] == [
        {k: v for k, v in g.__dict__.items()} for g in cell.games]


def test_a_rerun_plays_only_the_missing_games_and_the_same_seed_gives_the_same_game(tmp_path):
    first = load_cell(tmp_path, "pantheon", 2, seeds=1)
    fill_cell(first, tmp_path, log=lambda _: None)
    more = load_cell(tmp_path, "pantheon", 2, seeds=2)       # the cached seed 0 is kept, seed 1 is added
    assert len(more.games) == 2
    fill_cell(more, tmp_path, log=lambda _: None)
    fresh = load_cell(tmp_path / "other", "pantheon", 2, seeds=2)
    fill_cell(fresh, tmp_path / "other", log=lambda _: None)
    def outcome(cell):
        return [(g.seed, g.swap, g.winner_side, g.rounds, g.decisions) for g in cell.games]

    assert outcome(more) == outcome(fresh)


def test_a_deadline_stops_before_the_next_seed_and_the_table_marks_the_cell_partial(tmp_path, capsys):
    cell = load_cell(tmp_path, "pantheon", 2, seeds=3)
    assert not fill_cell(cell, tmp_path, deadline=time.monotonic(), log=lambda _: None)
    assert cell.games == []
    assert main(["--rulesets", "pantheon", "--budgets", "2", "--seeds", "1", "--out", str(tmp_path)]) == 0
    assert main(["--rulesets", "pantheon", "--budgets", "2", "--seeds", "2", "--out", str(tmp_path),
                 "--table-only"]) == 0
    table = (tmp_path / "table.md").read_text()
    assert "| pantheon | duel | `search:2` | `gunner` | 2 of 4 (partial) |" in table
    assert json.loads((tmp_path / "table.json").read_text())[0]["games"] == 2


def test_the_table_keeps_a_cached_cell_of_a_budget_not_asked_for(tmp_path):
    assert main(["--rulesets", "pantheon", "--budgets", "3", "--seeds", "1", "--out", str(tmp_path)]) == 0
    assert main(["--rulesets", "pantheon", "--budgets", "2", "--seeds", "1", "--out", str(tmp_path),
                 "--table-only"]) == 0
    rows = [(r["budget"], r["games"]) for r in json.loads((tmp_path / "table.json").read_text())]
    assert rows == [(2, 0), (3, 2)]        # the asked budget as not run, the cached one with its games
    table = (tmp_path / "table.md").read_text()
    assert "| pantheon | duel | `search:2` | `gunner` | 0 of 2 (not run) |" in table
    assert "| pantheon | duel | `search:3` | `gunner` | 2 |" in table


def test_the_docs_tables_are_filled_between_their_markers(tmp_path):
    from naval_agents.evaluation.search_table import END, START, write_docs

    (tmp_path / "rules").mkdir()
    page = f"# Pantheon\n\n## Search headroom\n\n{START}\nold rows\n{END}\n\n## Speed\n"
    (tmp_path / "rules" / "pantheon.md").write_text(page)
    (tmp_path / "search.md").write_text(f"intro\n{START}\nold\n{END}\nafter\n")
    rows = [{"ruleset": r, "scenario": "duel", "budget": 16, "opponent": "gunner", "games": 400, "of": 400,
             "wins": 200, "draws": 0, "losses": 200, "score": 0.5, "ci": [0.45, 0.55], "ms_per_decision": 8.0}
            for r in ("pantheon", "pursuit")]
    written = write_docs(rows, tmp_path)
    assert sorted(p.name for p in written) == ["pantheon.md", "search.md"]   # no captains.md, no pursuit page
    rules = (tmp_path / "rules" / "pantheon.md").read_text()
    assert "old rows" not in rules and rules.endswith(f"{END}\n\n## Speed\n")
    assert "| pantheon | duel | `search:16` | `gunner` | 400 | 200/0/200 | 0.50 [0.45, 0.55] | 8 |" in rules
    assert "| pursuit |" not in rules and "| pursuit |" in (tmp_path / "search.md").read_text()


def test_a_cell_played_on_another_set_up_is_not_added_to_and_says_so(tmp_path):
    # A rebalanced scenario makes a cached cell's games another scenario's: the table marks its row, and
    # playing on refuses rather than mix the two set-ups in one score.
    import pytest

    from naval_agents.evaluation.search_table import markdown, save_cell, setup_fingerprint

    cell = load_cell(tmp_path, "pantheon", 2, seeds=1)
    assert cell.setup == setup_fingerprint("pantheon", "duel")
    fill_cell(cell, tmp_path, log=lambda _: None)
    assert cell.summary()["current_setup"] and "older set-up" not in markdown([cell.summary()])
    cell.setup = "0123456789abcdef"             # as if played before the duel's set-up changed
    save_cell(tmp_path, cell)
    cached = load_cell(tmp_path, "pantheon", 2, seeds=2)
    assert cached.setup == "0123456789abcdef" and not cached.summary()["current_setup"]
    assert "| 2 of 4 (partial) (an older set-up) |" in markdown([cached.summary()])
    with pytest.raises(ValueError, match="was played on another set-up of pantheon's duel .* move it aside"):
        fill_cell(cached, tmp_path, log=lambda _: None)
    assert len(load_cell(tmp_path, "pantheon", 2, seeds=2).games) == 2   # nothing added
