"""Play a captain yourself in the terminal, or watch captains play with a live log.

:func:`play` seats a person on one side against a captain on the others. Before each
decision of the person's side (every ship of it, in fleet scenarios) it shows the board
(the ruleset's text render), the ship cards and what happened since, then lists the
allowed labels of each component that has a choice, numbered from 1 with a line on what
each does (:mod:`naval_tactics.explain`), and reads one answer per line from its input: a
number, a label, ``?``/``help`` (the list again) or ``quit``. Anything else is asked
again. The game is saved as a replay (:mod:`naval_agents.evaluation.replay`), also when the
input ends or the person quits first (then unfinished).

:func:`watch` plays captains against each other and prints each decision as it is made,
as rl-baselines3-zoo's ``enjoy.py`` does for a trained agent.

Both are the functions behind ``naval-tactics play`` and ``naval-tactics watch``.
"""

from __future__ import annotations

import os
import random
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

import numpy as np
from rich.console import Console
from rich.text import Text

from naval_agents.captains.arena import GameRecord
from naval_agents.captains.base import Captain
from naval_agents.captains.registry import make_captain
from naval_agents.evaluation.replay import write_replay
from naval_agents.evaluation.report import decision_lines, make_console, match_title
from naval_env.core.errors import IllegalActionError
from naval_env.core.events import DamageDealt, Event
from naval_env.core.game import Game
from naval_env.core.grid_render import ARROWS
from naval_env.core.moves import encode, options
from naval_env.core.ruleset import ruleset_ids
from naval_env.core.spaces import ActionComponent
from naval_env.envs.match import Match
from naval_tactics.cards import ship_cards
from naval_tactics.explain import Explainer

#: The captain name a person plays under in records and replays.
PERSON = "person"
HELP_WORDS = ("?", "help")
QUIT_WORDS = ("quit", "exit")
#: Exit status of a game that was not played to its end (input ended or the person quit).
EXIT_UNFINISHED = 1
EXIT_INTERRUPTED = 130
Boards = Literal["start_end", "round", "decision"]
#: More options than this in one part of the move: listed in groups, several to a line (a pantheon maneuver
#: has up to 63), as the /play page groups them.
GROUP_OVER = 12
#: The compass points of the text boards' facing marks, in the order of ARROWS (N..NW).
COMPASS = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
#: A ship's mark on a square board with its facing (R0> or, for a ship of several squares, its bow square R>).
_FACING_MARK = re.compile("[A-Z~]\\d?[" + re.escape("".join(ARROWS)) + "]")


def board_key(board: str) -> str | None:
    """How to read a square board's ship marks ("R7" is red's ship facing north-east, not ship 7); None when the
    board has no facing marks (a table in inches, a sea plot)."""
    rows = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", board).splitlines() if " ." in line]   # grid rows
    if not any(_FACING_MARK.search(row) for row in rows):
        return None
    facings = ", ".join(f"{arrow} {point}" for arrow, point in zip(ARROWS, COMPASS))
    return ("Board key: a ship is its side's initial and number (R0 is red_0; ~ a sinking ship), then where its "
            f"bow points: {facings}. A ship longer than a square shows its initial and bow mark on the bow "
            "square (R7: red, facing north-east) and r0 on the others. Squares count from 0 at the top left, "
            "as the log's (x, y).")


def option_groups(labels: Sequence[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """The options in reading groups, each option with its number from 1: labels up to their first comma
    ("ahead 3, port after 1" -> "ahead 3"), or by their first word ("turn port1" -> "turn"); within a group an
    option is shown without the group's name ("port after 1"; "straight" for the group's own label)."""
    heads = {label.split(",")[0] for label in labels if "," in label}
    groups: dict[str, list[tuple[int, str]]] = {}
    for number, label in enumerate(labels, start=1):
        key = label.split(",")[0] if "," in label else label if label in heads else re.split(r"[ @_]", label)[0]
        groups.setdefault(key, []).append((number, label))
    shown: list[tuple[str, list[tuple[int, str]]]] = []
    for key, members in groups.items():
        rest = [(n, label[len(key) + 1:].strip() if label.startswith(key + ",")
                 else ("straight" if len(members) > 1 else key) if label == key else label) for n, label in members]
        shown.append((key, rest))
    return shown


class PlayError(ValueError):
    """Settings a game cannot start with: an unknown ruleset, side or captain, a replay path that cannot be written."""


class _Stop(Exception):
    """The person's input ended, or they quit or interrupted, before the game did."""

    def __init__(self, reason: str, exit_code: int = EXIT_UNFINISHED) -> None:
        super().__init__(reason)
        self.reason = reason
        self.exit_code = exit_code


@dataclass(frozen=True)
class PlayResult:
    """How a played game went: its record (a :class:`GameRecord`), the person's side and where the replay is."""

    record: GameRecord
    side: str
    replay_path: Path
    #: None when the game was played to its end; else why it stopped ("input ended", "quit", "interrupted").
    stopped: str | None = None
    exit_code: int = 0

    @property
    def finished(self) -> bool:
        return self.stopped is None

    @property
    def winner(self) -> str | None:
        return self.record.winner


class GameRecorder:
    """One game being played, keeping what a :class:`GameRecord` holds, so it can be written at any point.

    Counts damage as :func:`naval_agents.captains.arena.play_game` does; ``captains`` names each side's captain.
    """

    def __init__(self, match: Match, seed: int, captains: Mapping[str, str]) -> None:
        self.opening = match.reset(seed)
        self.game: Game = match.game
        self.seed = seed
        self.captains = dict(captains)
        self.events: list[Event] = list(self.opening)
        self.actions: list[tuple[str, list[int]]] = []
        self.event_starts: list[int] = []
        self.damage = dict.fromkeys(self.game.sides, 0)
        self.taken = dict.fromkeys(self.game.sides, 0)

    def apply(self, agent: str, action: np.ndarray) -> list[Event]:
        """Apply ``action`` for ``agent``; raises the engine's IllegalActionError with nothing recorded."""
        game = self.game
        events = game.apply(agent, action)
        self.actions.append((agent, [int(v) for v in np.asarray(action).reshape(-1)]))
        self.event_starts.append(len(self.events))
        self.events += events
        for event in events:
            if isinstance(event, DamageDealt):
                self.taken[game.side_of(event.target)] += event.amount
                if event.source is not None and game.side_of(event.source) != game.side_of(event.target):
                    self.damage[game.side_of(event.source)] += event.amount
        return events

    def record(self) -> GameRecord:
        game = self.game
        return GameRecord(
            seed=self.seed, captains=dict(self.captains), winner=game.winner, truncated=game.truncated,
            rounds=game.round, decisions=len(self.actions), damage_dealt=dict(self.damage),
            events=list(self.events), actions=list(self.actions), event_starts=list(self.event_starts),
            damage_taken=dict(self.taken), final_state=game.state_dict(),
        )


def _match(ruleset: str, config: str | Path | None, scenario: str | None) -> Match:
    if ruleset not in ruleset_ids():
        raise PlayError(f"unknown ruleset {ruleset!r}; choose one of {ruleset_ids()}")
    return Match(ruleset, config, scenario, illegal_action="raise")


def _replay_target(replay_path: str | Path) -> Path:
    """The replay's path, checked before the game starts: a game is long to lose at the end."""
    path = Path(replay_path)
    if path.is_dir():
        raise PlayError(f"replay path {str(path)!r} is a folder; give a file name such as game.jsonl")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PlayError(f"replay path {str(path)!r}: cannot create its folder ({error.strerror})") from None
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise PlayError(f"replay path {str(path)!r} is not writable")
    return path


def _result_line(game: Game, captains: Mapping[str, str], you: str | None = None) -> str:
    def who(side: str) -> str:
        return f"{side} (you)" if side == you else f"{side} ({captains[side]})"

    if game.winner is None:
        return f"Game over after {game.round} rounds: a draw{' (the round limit)' if game.truncated else ''}."
    return f"Game over after {game.round} rounds: {who(game.winner)} wins."


class _Terminal:
    """The person's side of the table: what they see and how their answers are read."""

    def __init__(self, recorder: GameRecorder, side: str, stream: TextIO, console: Console) -> None:
        self.recorder = recorder
        self.game = recorder.game
        self.side = side
        self.stream = stream
        self.console = console
        self.echo = not _is_tty(stream)   # a scripted answer is shown, so the log reads like a session
        self.unseen: list[tuple[str | None, list[Event]]] = [(None, list(recorder.opening))]
        self.keyed = False   # the board key was shown
        self.decider: str | None = None   # the ship deciding now (? shows the table again)

    # ---------------------------------------------------------------- showing
    def show_table(self, deciding: str | None) -> None:
        """The board, the ship cards and what happened since the person last looked."""
        console = self.console
        console.rule(Text(f"{self.game.ruleset_id}, round {self.game.round}"))
        board = self.game.render_ansi([])
        console.print(Text.from_ansi(board), soft_wrap=True)
        key = board_key(board)
        if key is not None and not self.keyed:   # once, and again on ? (the board looks the same all game)
            console.print(Text(key, style="dim"))
            self.keyed = True
        console.print(ship_cards(self.game, deciding, self.side))
        lines = [Text(f"  {agent + ': ' if agent else ''}{'; '.join(e.text() for e in events)}")
                 for agent, events in self.unseen if events]
        if lines:
            console.print(Text("Since your last move:", style="bold"))
            for line in lines:
                console.print(line)
        self.unseen = []

    def saw(self, agent: str | None, events: list[Event]) -> None:
        self.unseen.append((agent, events))

    def show_options(self, component: ActionComponent, labels: list[str], explainer: Explainer,
                     full: bool = False) -> None:
        """The component's allowed labels, numbered from 1, each with what it does (one Text: tables cost); a
        long list (over :data:`GROUP_OVER`) in groups, several numbers to a line, unless ``full``."""
        subject = explainer.subject(component)
        text = Text(component.name, style="bold")
        text.append(f" - {subject}" if subject else "")
        text.append(f": {component.description}")
        if len(labels) > GROUP_OVER and not full:
            groups = option_groups(labels)
            width = max(len(key) for key, _ in groups)
            indent, room = 2 + width + 2, max(40, self.console.width - 1)
            for key, members in groups:   # wrapped between options, never inside one
                text.append(f"\n  {key:<{width}}  ", style="bold")
                used = indent
                for k, (number, shown) in enumerate(members):
                    item = f"{number} {shown}"
                    if k and used + 3 + len(item) > room:
                        text.append("\n" + " " * indent)
                        used = indent
                    elif k:
                        text.append("   ")
                        used += 3
                    text.append(item)
                    used += len(item)
            text.append("\n  (? N says what option N does; ?? lists every option with what it does)", style="dim")
            self.console.print(text)
            return
        digits = len(str(len(labels)))
        width = max(len(label) for label in labels)
        for number, label in enumerate(labels, start=1):
            text.append(f"\n  {number:>{digits}}  {label:<{width}}  ")
            text.append(explainer.option(component, label), style="dim")
        self.console.print(text)

    # ---------------------------------------------------------------- reading
    def read(self, prompt: str) -> str:
        self.console.print(Text(prompt, style="bold cyan"), end="")
        try:
            line = self.stream.readline()
        except KeyboardInterrupt:
            self.console.print()
            raise _Stop("interrupted", EXIT_INTERRUPTED) from None
        if line == "":
            self.console.print()
            raise _Stop("input ended")
        if self.echo:
            self.console.print(Text(line.rstrip("\r\n")))
        return line.strip()

    def ask(self, component: ActionComponent, labels: list[str], explainer: Explainer) -> str:
        """One allowed label of ``component``, asked until the answer is one."""
        self.show_options(component, labels, explainer)
        n = len(labels)
        hint = f"type a number from 1 to {n} or a label as listed (? lists them again, quit stops)"
        while True:
            text = self.read(f"{component.name} [1-{n}]> ")
            word = " ".join(text.split()).lower()
            if word in HELP_WORDS:
                self.keyed = False
                self.show_table(self.decider)
                self.show_options(component, labels, explainer)
                continue
            if word == "??":
                self.show_options(component, labels, explainer, full=True)
                continue
            asked = re.fullmatch(r"\?\s*(\d+)", word)
            if asked and 1 <= int(asked.group(1)) <= n:
                named = labels[int(asked.group(1)) - 1]
                self.console.print(Text(f"  {asked.group(1)}  {named}: {explainer.option(component, named)}"))
                continue
            if word in QUIT_WORDS:
                raise _Stop("quit")
            if text.isdigit():
                if 1 <= int(text) <= n:
                    return labels[int(text) - 1]
                problem = f"{text} is not an option"
            else:
                label = next((lab for lab in labels if lab == text or lab.lower() == word), None)
                if label is not None:
                    return label
                if not text:
                    problem = "an empty line is not an option"
                elif any(lab.lower() == word for lab in component.labels):
                    problem = f"{text!r} is not an option now (the rules do not allow it this decision)"
                else:
                    problem = f"{text!r} is not an option for {component.name}"
            self.console.print(Text(f"{problem}: {hint}.", style="yellow"))

    def decide(self, agent: str) -> list[Event]:
        """Ask for every component with a choice, apply the move and return its events."""
        game = self.game
        spec = game.action_spec
        self.decider = agent
        self.show_table(agent)
        while True:
            ship = game.state_dict()["ships"][agent]
            kind = ship.get("vessel") or ship.get("ship_class") or "ship"
            self.console.print(Text(f"Your ship {agent} ({kind}) decides.", style="bold green"))
            mask = game.legal_mask(agent)
            allowed = options(spec, mask)
            explainer = Explainer(game, agent)
            move: dict[str, str] = {}
            for component in spec.components:
                labels = allowed[component.name]
                if len(labels) == 1:
                    move[component.name] = labels[0]
                    if labels[0] != component.labels[0]:
                        self.console.print(Text(f"{component.name}: {labels[0]} (the only option)"))
                    continue
                move[component.name] = self.ask(component, labels, explainer)
            action = encode(spec, move, mask)
            try:
                events = self.recorder.apply(agent, action)
            except IllegalActionError as error:   # components that are allowed alone but not together
                self.console.print(Text(f"The rules refuse this move ({error}); choose again.", style="yellow"))
                continue
            chosen = ", ".join(f"{name}={label}" for name, label in move.items()
                               if label != spec.components[spec.index(name)].labels[0])
            self.console.print(Text(f"{agent}: {chosen or 'no-op'} -> "
                                    f"{'; '.join(e.text() for e in events) or '(no events)'}"))
            return events


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def play(ruleset: str, scenario: str | None, captain: str | Captain, side: str, replay_path: str | Path,
         input_stream: TextIO | None = None, console: Console | None = None, *, seed: int | None = None,
         config: str | Path | None = None) -> PlayResult:
    """Play ``side`` yourself against ``captain`` (every other side), reading answers from ``input_stream``.

    ``input_stream`` defaults to standard input, ``console`` to one on standard output; ``seed``
    (default: drawn at random and printed) fixes the dice, so the replay re-plays the game.
    The replay is written to ``replay_path`` when the game ends, or when the input ends or the
    person quits first (then unfinished: it loads, but does not re-play to an end, and
    ``exit_code`` is non-zero). Raises :class:`PlayError` (or the registry's ValueError for an
    unknown scenario or captain) before anything is played.
    """
    console = console if console is not None else make_console()
    stream = input_stream if input_stream is not None else sys.stdin
    match = _match(ruleset, config, scenario)
    sides = match.game.sides
    if side not in sides:
        raise PlayError(f"unknown side {side!r} for {ruleset}; choose one of {list(sides)}")
    path = _replay_target(replay_path)
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    opponent = make_captain(captain, ruleset, match.action_spec, seed=seed, config=match.config)
    names = {s: PERSON if s == side else opponent.name for s in sides}
    recorder = GameRecorder(match, seed, names)
    game = recorder.game
    for i, other in enumerate(sides):
        if other != side:
            opponent.reset(seed * 2 + i)   # as play_game seeds captains, so a seed means the same game
    person = _Terminal(recorder, side, stream, console)
    console.print(Text(f"{ruleset} / {scenario or match.config.default_scenario}: you play {side} against "
                       f"{opponent.name}, seed {seed}. Answer with a number or a label; ? lists the options, "
                       "quit stops (the game so far is saved).", style="bold"))
    stopped: _Stop | None = None
    try:
        while not game.is_over:
            agent = game.current_agent
            assert agent is not None
            if game.side_of(agent) == side:
                person.decide(agent)
            else:
                action = np.asarray(opponent.act(match.decision(agent, opponent)))
                person.saw(agent, recorder.apply(agent, action))
    except _Stop as stop:
        stopped = stop
    except KeyboardInterrupt:   # while a captain thinks; the decisions made so far are still saved
        stopped = _Stop("interrupted", EXIT_INTERRUPTED)
    record = recorder.record()
    write_replay(path, record, ruleset=ruleset, scenario=scenario, config=config)
    if stopped is None:
        person.show_table(None)
        console.print(Text(_result_line(game, names, side), style="bold"))
        console.print(Text(f"Replay saved to {path}."))
        return PlayResult(record, side, path)
    console.print(Text(f"Stopped ({stopped.reason}) in round {game.round} after {record.decisions} decisions; "
                       f"the game so far is saved to {path} (unfinished: it does not re-play to an end).",
                       style="bold yellow"))
    return PlayResult(record, side, path, stopped.reason, stopped.exit_code)


def _captains_by_side(captains: Sequence[str | Captain] | Mapping[str, str | Captain],
                      sides: tuple[str, ...]) -> dict[str, str | Captain]:
    if isinstance(captains, Mapping):
        if set(captains) != set(sides):
            raise PlayError(f"captains are given for sides {sorted(captains)}; the sides are {list(sides)}")
        return {side: captains[side] for side in sides}
    specs = [captains] if isinstance(captains, (str, Captain)) else list(captains)
    if len(specs) == 1:
        specs = specs * len(sides)
    if len(specs) != len(sides):
        raise PlayError(f"{len(specs)} captains for {len(sides)} sides {list(sides)}; give one per side "
                        "(in side order) or one for every side")
    return dict(zip(sides, specs))


def watch(ruleset: str, scenario: str | None, captains: Sequence[str | Captain] | Mapping[str, str | Captain],
          seed: int = 0, delay: float = 0.0, *, config: str | Path | None = None, console: Console | None = None,
          boards: Boards = "round", replay_path: str | Path | None = None, width: int = 110) -> GameRecord:
    """Play ``captains`` (one per side in side order, a ``{side: captain}`` mapping, or one for all) and
    print the game as it goes: the board, one line per decision (waiting ``delay`` seconds after each),
    the board again at each new round (``boards="round"``), after every decision (``"decision"``) or
    only at the end (``"start_end"``), and the result. Seeded as :func:`naval_agents.captains.arena.play_game`: the
    same captains and seed give the same game. ``replay_path``: also write the game as a replay.
    """
    if boards not in ("start_end", "round", "decision"):
        raise PlayError(f"boards {boards!r} is not one of 'start_end', 'round', 'decision'")
    if delay < 0:
        raise PlayError(f"delay {delay} is negative; give seconds to wait after each decision (0: none)")
    console = console if console is not None else make_console()
    match = _match(ruleset, config, scenario)
    sides = match.game.sides
    path = _replay_target(replay_path) if replay_path is not None else None
    seated = {side: make_captain(spec, ruleset, match.action_spec, seed=seed, config=match.config)
              for side, spec in _captains_by_side(captains, sides).items()}
    recorder = GameRecorder(match, seed, {side: c.name for side, c in seated.items()})
    game = recorder.game
    for i, side in enumerate(sides):
        seated[side].reset(seed * 2 + i)

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    say(f"{ruleset} / {scenario or match.config.default_scenario}: {match_title(recorder.captains, seed)}")
    console.print(Text.from_ansi(game.render_ansi(recorder.opening)))
    say("decisions:")
    shown_round = game.round
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        captain = seated[game.side_of(agent)]
        index = len(recorder.actions)
        events = recorder.apply(agent, np.asarray(captain.act(match.decision(agent, captain))))
        for line in decision_lines(index, agent, events, width):
            say(line)
        if not game.is_over and (boards == "decision" or (boards == "round" and game.round != shown_round)):
            shown_round = game.round
            console.print(Text.from_ansi(game.render_ansi([])))
        if delay > 0:
            time.sleep(delay)
    record = recorder.record()
    last = record.decision_events(record.decisions - 1) if record.decisions else record.events
    console.print(Text.from_ansi(game.render_ansi(last)))
    say(_result_line(game, recorder.captains))
    if path is not None:
        write_replay(path, record, ruleset=ruleset, scenario=scenario, config=config)
        say(f"Replay saved to {path}.")
    return record
