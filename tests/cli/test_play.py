"""Playing a captain yourself (driven through scripted input) and watching captains play."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import default_opponent, make_captain
from naval_agents.evaluation.replay import ReplayMismatchError, load_replay, replay_game
from naval_env.core.errors import IllegalActionError
from naval_env.core.hooks import hooks_of
from naval_env.core.moves import decode, options
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match
from naval_tactics import play as play_module
from naval_tactics.explain import Explainer, explain_label
from naval_tactics.play import HELP_WORDS, QUIT_WORDS, PlayError, play, watch
from naval_tactics.viewer import replay_movie

SEED = 5
RE_ASK = "is not an option"


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, color_system=None), out


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _first_choice(ruleset: str, scenario: str | None, captain: str, side: str) -> tuple[str, str, list[str]]:
    """The person's first decision as play() will meet it: the first component with a choice, its labels."""
    match = Match(ruleset, None, scenario)
    match.reset(SEED)
    game = match.game
    opponent = make_captain(captain, ruleset, match.action_spec, seed=SEED)
    for i, other in enumerate(game.sides):
        if other != side:
            opponent.reset(SEED * 2 + i)
    while True:
        agent = game.current_agent
        assert agent is not None, "the game ended before the person's first decision"
        if game.side_of(agent) == side:
            break
        game.apply(agent, opponent.act(match.decision(agent, opponent)))
    allowed = options(game.action_spec, game.legal_mask(agent))
    name = next(c.name for c in game.action_spec.components if len(allowed[c.name]) > 1)
    return agent, name, allowed[name]


def _replayed_person_moves(path: Path, side: str) -> list[tuple[str, dict[str, str], dict[str, list[str]]]]:
    """Every decision of ``side`` in the replay: agent, its move by label and the labels allowed then."""
    replay = load_replay(path)
    match = Match(replay.header.ruleset, None, replay.header.scenario)
    match.reset(replay.header.seed)
    game = match.game
    moves = []
    for decision in replay.decisions:
        if game.side_of(decision.agent) == side:
            allowed = options(game.action_spec, game.legal_mask(decision.agent))
            moves.append((decision.agent, decode(game.action_spec, decision.action), allowed))
        game.apply(decision.agent, list(decision.action))
    return moves


# ------------------------------------------------------------------ explanations
@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_every_label_of_every_component_has_its_own_explanation(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    spec = rules.action_spec(rules.load_config())
    missing = [f"{c.name}={label}" for c in spec.components for label in c.labels
               if explain_label(ruleset, c.name, label) is None]
    assert missing == []
    words = {w.lower() for w in (*HELP_WORDS, *QUIT_WORDS)}
    for component in spec.components:   # an answer must mean one thing: a number, a command or a label
        assert not any(label.isdigit() or label.lower() in words for label in component.labels), component.name


def test_explanations_name_the_ships_and_parts_a_label_refers_to() -> None:
    match = Match("crew_phase", None, "two_vs_one")
    match.reset(1)
    game = match.game
    spec = game.action_spec
    explainer = Explainer(game, "blue_0")   # enemies of blue_0, in side order: red_0, red_1
    weapon = spec.components[spec.index("weapon_0")]
    assert explainer.option(weapon, "ship@e1") == "attack red_1's hull"
    assert explainer.option(weapon, "crew@e0.c2") == "attack crew member 2 (gunner) aboard red_0"
    assert explainer.option(weapon, "part@e1.w0") == "attack weapon 0 (ballista) of red_1"
    crew = spec.components[spec.index("crew_5")]
    assert explainer.subject(crew) == "crew member 5 (officer)"
    assert explainer.option(crew, "operate@w2").startswith("operate weapon 2 (harpoon): ")
    broadside = Match("broadside", None, "fleet_with_iceberg")
    broadside.reset(1)
    board = broadside.action_spec.components[broadside.action_spec.index("board")]
    assert Explainer(broadside.game, "red_0").option(board, "reinforce@ally1") == \
        "send boarders to reinforce red_2's melee"
    assert all(hooks_of(ruleset).option_words().rows for ruleset in ruleset_ids())   # every ruleset ships words


# ------------------------------------------------------------------ a whole game per ruleset
@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_a_scripted_person_plays_a_whole_game_and_it_is_saved_as_a_replay(ruleset: str, tmp_path: Path) -> None:
    captain = default_opponent(ruleset)
    agent, component, labels = _first_choice(ruleset, None, captain, "red")
    typed = labels[-1]
    bad = ["banana", "0", str(len(labels) + 1), ""]
    script = "\n".join([*bad, "?", f"  {typed.upper()}  ", *["1"] * 5000]) + "\n"
    console, out = _console()
    path = tmp_path / "game.jsonl"

    result = play(ruleset, None, captain, "red", path, io.StringIO(script), console, seed=SEED)
    text = out.getvalue()

    assert result.finished and result.exit_code == 0 and result.stopped is None
    assert result.record.captains == {"red": "person", "blue": captain}
    assert "Game over after" in text and f"Replay saved to {path}" in text
    # each bad line is refused with the re-ask message, and only those
    assert text.count(RE_ASK) == len(bad)
    assert f"{bad[0]!r} is not an option for {component}" in text
    assert f"{len(labels) + 1} is not an option: type a number from 1 to {len(labels)}" in text
    # "?" lists the options again: the last one appears once before and once after it
    help_at = text.index("]> ?")
    listing = re.compile(rf"^\s+{len(labels)}\s+{re.escape(typed)}\s", re.MULTILINE)
    if len(labels) > play_module.GROUP_OVER:   # a long list comes in groups: "63 starboard after 6" in "ahead 6"
        shown = next(text for _, members in play_module.option_groups(labels) for n, text in members
                     if n == len(labels))
        listing = re.compile(rf"(?:^|   ){len(labels)} {re.escape(shown)}(?:$|   )", re.MULTILINE)
    assert len(listing.findall(text[:help_at])) == 1
    assert len(listing.findall(text[help_at: text.index("]> ", help_at + 4)])) == 1
    # the replay re-plays to the same final state
    replayed = replay_game(path)
    assert _plain(replayed.state_dict()) == _plain(result.record.final_state)
    assert replayed.winner == result.winner and replayed.round == result.record.rounds
    # the moves applied are the ones typed: the label by name first, then always option 1
    moves = _replayed_person_moves(path, "red")
    assert moves[0][0] == agent and moves[0][1][component] == typed
    assert len(moves) == sum(1 for a, _ in result.record.actions if a.startswith("red"))
    # only components with a choice are asked: one prompt each, plus one per bad line and the "?"
    choices = sum(len(labels_now) > 1 for _, _, allowed in moves for labels_now in allowed.values())
    assert text.count("]> ") == choices + len(bad) + 1
    for index, (_, move, allowed) in enumerate(moves):
        for name, labels_now in allowed.items():
            if index == 0 and name == component:
                continue
            assert move[name] == labels_now[0], (index, name)


def test_a_fleet_scenario_lets_the_person_command_every_ship_of_their_side(tmp_path: Path) -> None:
    console, out = _console()
    path = tmp_path / "fleet.jsonl"
    # the last option of every component: the person sails, fires and rams rather than holds
    script = "\n".join(["99"] + ["2"] * 6000) + "\n"
    result = play("flotilla", "squadron", "gunner", "blue", path, io.StringIO(script), console, seed=SEED)
    text = out.getvalue()
    assert result.finished and result.exit_code == 0
    moves = _replayed_person_moves(path, "blue")
    ships = {agent for agent, _, _ in moves}
    assert ships == {"blue_0", "blue_1"}
    for ship in ships:
        assert f"Your ship {ship} (" in text
    assert all(a.startswith("blue") for a, _, _ in moves)
    assert _plain(replay_game(path).state_dict()) == _plain(result.record.final_state)
    for index, (_, move, allowed) in enumerate(moves):
        for name, labels_now in allowed.items():
            expected = labels_now[0] if len(labels_now) == 1 else labels_now[1]
            assert move[name] == expected, (index, name)


@pytest.mark.parametrize("ruleset, scenario", [
    (r, s) for r in ruleset_ids() for s in get_ruleset(r).scenarios(get_ruleset(r).load_config())
    if s != get_ruleset(r).load_config().default_scenario
])
@pytest.mark.slow
def test_every_other_scenario_can_be_played_to_the_end(ruleset: str, scenario: str, tmp_path: Path) -> None:
    console, out = _console()
    result = play(ruleset, scenario, "random", "red", tmp_path / "g.jsonl", io.StringIO("1\n" * 6000), console,
                  seed=SEED)
    assert result.finished
    game = replay_game(result.replay_path)
    assert game.is_over and _plain(game.state_dict()) == _plain(result.record.final_state)
    red_ships = {a for a in game.agents if game.side_of(a) == "red"}
    assert {a for a, _ in result.record.actions if a in red_ships} == {
        a for a in red_ships if f"Your ship {a} (" in out.getvalue()}


# ------------------------------------------------------------------ stopping early, bad settings
def test_end_of_input_stops_cleanly_and_saves_the_game_so_far(tmp_path: Path) -> None:
    console, out = _console()
    path = tmp_path / "short.jsonl"
    result = play("pantheon", None, "rammer", "red", path, io.StringIO("1\n" * 6), console, seed=SEED)
    assert not result.finished and result.stopped == "input ended" and result.exit_code != 0
    assert "Stopped (input ended)" in out.getvalue()
    replay = load_replay(path)
    assert len(replay.decisions) == result.record.decisions > 0
    assert [d.agent for d in replay.decisions] == [a for a, _ in result.record.actions]
    # every saved decision re-plays exactly; only the end is missing
    with pytest.raises(ReplayMismatchError, match="the game is not over"):
        replay_game(path)
    assert replay_game(path, unfinished=True).round == result.record.rounds   # when asked to take it as it is
    movie = replay_movie(path)                                              # the viewer shows where it stopped
    assert len(movie.frames) == len(replay.decisions) + 1
    assert movie.result == (f"unfinished: the record stops in round {result.record.rounds} "
                            f"after {len(replay.decisions)} decisions")


def test_quit_stops_the_game_and_saves_it(tmp_path: Path) -> None:
    console, _ = _console()
    result = play("broadside", None, "rammer", "red", tmp_path / "q.jsonl", io.StringIO("2\nquit\n1\n"), console,
                  seed=SEED)
    assert result.stopped == "quit" and result.exit_code == 1
    assert load_replay(tmp_path / "q.jsonl").result.decisions == result.record.decisions


def test_a_move_the_engine_refuses_is_asked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Components allowed one by one but refused together: the engine's message, then the decision again."""
    real_apply = play_module.GameRecorder.apply
    refused: list[str] = []

    def refuse_first_red(self: play_module.GameRecorder, agent: str, action: Any) -> list[Any]:
        if agent.startswith("red") and not refused:
            refused.append(agent)
            raise IllegalActionError("these two together are not allowed")
        return real_apply(self, agent, action)

    monkeypatch.setattr(play_module.GameRecorder, "apply", refuse_first_red)
    console, out = _console()
    result = play("pantheon", None, "rammer", "red", tmp_path / "r.jsonl", io.StringIO("1\n" * 3000), console,
                  seed=SEED)
    text = out.getvalue()
    assert result.finished and refused == ["red_0"]
    assert "The rules refuse this move (these two together are not allowed); choose again." in text
    assert text.count("Your ship red_0 (") == 1 + sum(a == "red_0" for a, _ in result.record.actions)
    assert replay_game(tmp_path / "r.jsonl").is_over


class _Interrupted(io.StringIO):
    def readline(self, *args: Any) -> str:   # type: ignore[override]
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_stops_the_game_and_saves_it(tmp_path: Path) -> None:
    console, out = _console()
    result = play("pursuit", None, "hunter", "red", tmp_path / "c.jsonl", _Interrupted("1\n" * 4), console,
                  seed=SEED)
    assert result.stopped == "interrupted" and result.exit_code == 130
    assert "Stopped (interrupted)" in out.getvalue()
    assert load_replay(tmp_path / "c.jsonl").result.decisions == result.record.decisions


class _Untouchable(io.StringIO):
    def readline(self, *args: Any) -> str:   # type: ignore[override]
        raise AssertionError("settings must be checked before any input is read")


@pytest.mark.parametrize("kwargs, message", [
    ({"ruleset": "chess"}, "unknown ruleset 'chess'; choose one of"),
    ({"side": "green"}, "unknown side 'green' for pantheon; choose one of ['red', 'blue']"),
    ({"scenario": "armada"}, "unknown pantheon scenario 'armada'"),
    ({"captain": "nobody"}, "unknown captain 'nobody' for ruleset 'pantheon'"),
    ({"replay_path": "."}, "is a folder; give a file name"),
])
def test_bad_settings_are_refused_before_the_game(kwargs: dict[str, str], message: str, tmp_path: Path) -> None:
    settings = {"ruleset": "pantheon", "scenario": None, "captain": "rammer", "side": "red",
                "replay_path": tmp_path / "x.jsonl", **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        play(**settings, input_stream=_Untouchable(), console=_console()[0])  # type: ignore[arg-type]
    assert not (tmp_path / "x.jsonl").exists()


# ------------------------------------------------------------------ watching
def test_watch_shows_the_game_live_and_is_the_game_play_game_plays(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    sleeps: list[float] = []
    monkeypatch.setattr(play_module.time, "sleep", sleeps.append)
    console, out = _console()
    record = watch("pursuit", None, ["hunter", "random"], seed=3, delay=0.25, console=console,
                   replay_path=tmp_path / "w.jsonl")
    text = out.getvalue()
    match = Match("pursuit")
    captains = {side: make_captain(name, "pursuit", match.action_spec) for side, name in
                (("red", "hunter"), ("blue", "random"))}
    reference = play_game(match, captains, 3)
    assert record.actions == reference.actions and record.winner == reference.winner
    assert sleeps == [0.25] * record.decisions
    assert text.startswith("pursuit / duel: hunter (red) vs random (blue), seed 3")
    assert len(re.findall(r"^\s+\d+ (red_0|blue_0)\s", text, re.MULTILINE)) == record.decisions
    assert text.count("round ") >= record.rounds   # a board at each new round
    assert "Game over after" in text
    assert _plain(replay_game(tmp_path / "w.jsonl").state_dict()) == _plain(reference.final_state)


def test_watch_refuses_a_wrong_number_of_captains() -> None:
    with pytest.raises(PlayError, match=r"3 captains for 2 sides \['red', 'blue'\]"):
        watch("pantheon", None, ["rammer", "random", "random"], console=_console()[0])
    with pytest.raises(PlayError, match="captains are given for sides"):
        watch("pantheon", None, {"red": "rammer"}, console=_console()[0])
