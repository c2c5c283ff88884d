"""JSON-lines replays: write a played game, read it back, and re-play it from its seed.

File layout, one JSON object per line::

    {"type": "header", "format": "naval-replay", "format_version": 1, "ruleset": ..., "ruleset_version": ...,
     "config": path or null, "scenario": name or null, "seed": int, "captains": {side: name},
     "opening_events": [event, ...]}
    {"type": "decision", "index": 0, "agent": "red_0", "action": [ints], "events": [event, ...]}
    ...
    {"type": "result", "winner": side or null, "winner_captain": name or null, "truncated": bool,
     "rounds": int, "decisions": int, "state": game.state_dict()}

Events are ``Event.to_dict()`` and are parsed back with the ruleset's ``EventCatalog``.
:func:`replay_game` needs no captains: the dice follow from the seed and the actions
are on file, so the game must reach the recorded final state exactly.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from naval_agents.captains.arena import GameRecord
from naval_env.core.errors import IllegalActionError, NavalError
from naval_env.core.events import Event
from naval_env.core.game import Game
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

FORMAT = "naval-replay"
FORMAT_VERSION = 1


class ReplayError(NavalError):
    """A replay file that cannot be read: wrong format, missing lines, bad JSON."""


class ReplayMismatchError(ReplayError):
    """Re-playing the recorded actions does not give the recorded game."""


@dataclass(frozen=True)
class ReplayHeader:
    ruleset: str
    ruleset_version: str
    config: str | None          # config file the game used; None: the ruleset's default config
    scenario: str | None        # None: the config's default scenario
    seed: int
    captains: dict[str, str]    # side -> captain name


@dataclass(frozen=True)
class ReplayDecision:
    index: int
    agent: str
    action: tuple[int, ...]
    events: tuple[Event, ...]


@dataclass(frozen=True)
class ReplayResult:
    winner: str | None
    winner_captain: str | None
    truncated: bool
    rounds: int
    decisions: int
    state: dict[str, Any]


@dataclass(frozen=True)
class Replay:
    header: ReplayHeader
    opening_events: tuple[Event, ...]
    decisions: tuple[ReplayDecision, ...]
    result: ReplayResult


def write_replay(path: str | Path, record: GameRecord, *, ruleset: str, scenario: str | None,
                 config: str | Path | None = None) -> Path:
    """Write ``record`` (played with ``keep_events`` and ``keep_actions``) as a JSON-lines replay."""
    text = replay_text(record, ruleset=ruleset, scenario=scenario, config=config)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def replay_text(record: GameRecord, *, ruleset: str, scenario: str | None, config: str | Path | None = None) -> str:
    """The JSON lines of ``record``'s replay (what :func:`write_replay` writes); the game may be unfinished."""
    if len(record.actions) != record.decisions or len(record.event_starts) != record.decisions:
        raise ValueError("the record lacks per-decision actions or events; play it with "
                         "keep_events=True and keep_actions=True to write a replay")
    rules = get_ruleset(ruleset)
    header = {
        "type": "header", "format": FORMAT, "format_version": FORMAT_VERSION,
        "ruleset": rules.id, "ruleset_version": rules.version,
        "config": None if config is None else str(config), "scenario": scenario,
        "seed": record.seed, "captains": dict(record.captains),
        "opening_events": [event.to_dict() for event in record.opening_events],
    }
    lines = [header]
    for index, (agent, action) in enumerate(record.actions):
        lines.append({"type": "decision", "index": index, "agent": agent, "action": list(action),
                      "events": [event.to_dict() for event in record.decision_events(index)]})
    lines.append({
        "type": "result", "winner": record.winner,
        "winner_captain": None if record.winner is None else record.captains[record.winner],
        "truncated": record.truncated, "rounds": record.rounds, "decisions": record.decisions,
        "state": record.final_state,
    })
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


#: The largest replay file read (a 10,000-decision game of the largest ruleset is about 20 MB).
MAX_REPLAY_BYTES = 256 * 2**20
#: The longest line read (the result line holds the final state; a decision line its events).
MAX_LINE_BYTES = 16 * 2**20


class _Line(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _HeaderLine(_Line):
    ruleset: str
    ruleset_version: str
    config: str | None = Field(description="the config file's path, or null for the ruleset's default config")
    scenario: str | None
    seed: int
    captains: dict[str, str]
    opening_events: list[dict[str, Any]]


class _DecisionLine(_Line):
    agent: str
    action: list[int]
    events: list[dict[str, Any]]


class _ResultLine(_Line):
    winner: str | None
    winner_captain: str | None = None
    truncated: bool
    rounds: int
    decisions: int
    state: dict[str, Any]


def _fields(model: type[_Line], line: dict[str, Any], where: str, what: str) -> Any:
    """The line as ``model``; a :class:`ReplayError` naming each bad field, what it holds and what it should."""
    try:
        return model.model_validate(line)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '<line>'}: {e['msg'].lower()}"
                             + ("" if e["type"] == "missing" else f", got {_short(e.get('input'))}")
                             for e in exc.errors()[:5])
        raise ReplayError(f"{where}: bad {what} ({problems})") from None


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _read_lines(path: Path) -> list[tuple[int, str]]:
    """The file's non-blank lines with their numbers, read within :data:`MAX_REPLAY_BYTES` and
    :data:`MAX_LINE_BYTES` (a device such as /dev/zero, or a huge file, is refused, not read on and on)."""
    lines: list[tuple[int, str]] = []
    total = 0
    try:
        with path.open("rb") as stream:
            for number in itertools.count(1):
                raw = stream.readline(MAX_LINE_BYTES + 1)
                if not raw:
                    return lines
                total += len(raw)
                if len(raw) > MAX_LINE_BYTES:
                    raise ReplayError(f"{path}:{number}: a line longer than {MAX_LINE_BYTES // 2**20} MiB; "
                                      "not a replay (a replay holds one JSON object a line)")
                if total > MAX_REPLAY_BYTES:
                    raise ReplayError(f"{path}: larger than {MAX_REPLAY_BYTES // 2**20} MiB; not a replay this "
                                      "reader takes")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ReplayError(f"{path}:{number}: not UTF-8 text; a replay is JSON lines") from None
                if text.strip():
                    lines.append((number, text))
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read replay ({exc.strerror})") from None
    return lines


def load_replay(path: str | Path) -> Replay:
    """Parse a replay file; raises :class:`ReplayError` naming the line that is wrong (and the field)."""
    path = Path(path)
    lines: list[dict[str, Any]] = []
    for number, text in _read_lines(path):
        try:
            line = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            raise ReplayError(f"{path}:{number}: not JSON ({reason})") from None
        if not isinstance(line, dict) or "type" not in line:
            raise ReplayError(f"{path}:{number}: expected an object with a 'type' field")
        lines.append({**line, "_line": number})
    if len(lines) < 2 or lines[0]["type"] != "header" or lines[-1]["type"] != "result":
        raise ReplayError(f"{path}: a replay is a header line, decision lines and a result line")
    head = lines[0]
    if head.get("format") != FORMAT or head.get("format_version") != FORMAT_VERSION:
        raise ReplayError(f"{path}: format {_short(head.get('format'))} version {_short(head.get('format_version'))}; "
                          f"this reader understands {FORMAT!r} version {FORMAT_VERSION}")
    where = f"{path}:{head['_line']}"
    fields: _HeaderLine = _fields(_HeaderLine, head, where, "header")
    if fields.ruleset not in ruleset_ids():
        raise ReplayError(f"{where}: bad header (unknown ruleset {_short(fields.ruleset)}; known: {ruleset_ids()})")
    header = ReplayHeader(fields.ruleset, fields.ruleset_version, fields.config, fields.scenario, fields.seed,
                          dict(fields.captains))
    catalog = get_ruleset(header.ruleset).events
    try:
        opening = tuple(catalog.from_dict(e) for e in fields.opening_events)
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{where}: bad header (opening_events: {exc})") from None
    decisions: list[ReplayDecision] = []
    for line in lines[1:-1]:
        where = f"{path}:{line['_line']}"
        if line["type"] != "decision":
            raise ReplayError(f"{where}: expected a decision line, found {_short(line['type'])}")
        if line.get("index") != len(decisions):
            raise ReplayError(f"{where}: decision index {_short(line.get('index'))}, expected {len(decisions)} "
                              "(a decision is missing or out of order)")
        decision: _DecisionLine = _fields(_DecisionLine, line, where, "decision")
        try:
            events = tuple(catalog.from_dict(e) for e in decision.events)
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayError(f"{where}: bad decision (events: {exc})") from None
        decisions.append(ReplayDecision(len(decisions), decision.agent, tuple(decision.action), events))
    tail = lines[-1]
    ending: _ResultLine = _fields(_ResultLine, tail, f"{path}:{tail['_line']}", "result line")
    result = ReplayResult(ending.winner, ending.winner_captain, ending.truncated, ending.rounds, ending.decisions,
                          dict(ending.state))
    if result.decisions != len(decisions):
        raise ReplayError(f"{path}: result says {result.decisions} decisions, file holds {len(decisions)}")
    return Replay(header, opening, tuple(decisions), result)


def replay_game(replay: str | Path | Replay, config: str | Path | None = None, *, unfinished: bool = False) -> Game:
    """Re-create the game from its seed, re-apply every recorded action and check it matches.

    ``config`` overrides the header's config path (e.g. when the replay moved machines). ``unfinished``
    accepts a record that stops before the game is over (a game abandoned part way); its state must match too.
    Returns the finished game; raises :class:`ReplayMismatchError` at the first decision
    whose agent, legality or events differ from the record, or if the final state does.
    """
    if not isinstance(replay, Replay):
        replay = load_replay(replay)
    header = replay.header
    rules = get_ruleset(header.ruleset)
    if rules.version != header.ruleset_version:
        raise ReplayMismatchError(f"replay was recorded with {rules.id} {header.ruleset_version}; "
                                  f"this is {rules.id} {rules.version}, so it would not replay exactly")
    match = Match(rules, config if config is not None else header.config, header.scenario,
                  illegal_action="raise")
    opening = match.reset(header.seed)
    _compare_events(replay.opening_events, opening, "before the first decision")
    game = match.game
    for decision in replay.decisions:
        where = f"decision {decision.index} ({decision.agent}, action {list(decision.action)})"
        if game.current_agent != decision.agent:
            holder = "nobody (the game is over)" if game.current_agent is None else game.current_agent
            raise ReplayMismatchError(f"{where}: recorded for {decision.agent}, but {holder} holds the decision")
        _check_action_range(decision.action, match, where)
        try:
            events = game.apply(decision.agent, list(decision.action))
        except IllegalActionError as exc:
            raise ReplayMismatchError(f"{where}: the engine refuses the recorded action: {exc}") from None
        _compare_events(decision.events, events, where)
    last = f"after the last decision ({len(replay.decisions) - 1})"
    if not game.is_over and not unfinished:
        raise ReplayMismatchError(f"{last}: the game is not over, but the record ends there")
    result = replay.result
    if (game.winner, game.round) != (result.winner, result.rounds):
        raise ReplayMismatchError(f"{last}: replayed winner {game.winner!r} in round {game.round}, "
                                  f"recorded {result.winner!r} in round {result.rounds}")
    difference = _first_difference(_plain(result.state), _plain(game.state_dict()))
    if difference is not None:
        raise ReplayMismatchError(f"{last}: final state differs at {difference}")
    return game


def _check_action_range(action: tuple[int, ...], match: Match, where: str) -> None:
    """Name an out-of-range value as it is on file (numpy would read 2**64 - 1 as uint64 and cast it to -1)."""
    components = match.action_spec.components
    if len(action) != len(components):
        raise ReplayMismatchError(f"{where}: {len(action)} values, expected {len(components)} "
                                  f"for components {[c.name for c in components]}")
    for component, value in zip(components, action):
        if not 0 <= value < component.size:
            raise ReplayMismatchError(f"{where}: component {component.name!r}: value {value} is out of range "
                                      f"0..{component.size - 1}")


def _plain(value: Any) -> Any:
    """JSON round trip, so tuples and lists (and int/float keys) compare as they are stored."""
    return json.loads(json.dumps(value))


def _compare_events(recorded: tuple[Event, ...], replayed: list[Event], where: str) -> None:
    old = [_plain(e.to_dict()) for e in recorded]
    new = [_plain(e.to_dict()) for e in replayed]
    for k, (a, b) in enumerate(zip(old, new)):
        if a != b:
            raise ReplayMismatchError(f"{where}: event {k} differs: recorded {a}, replayed {b}")
    if len(old) != len(new):
        raise ReplayMismatchError(f"{where}: recorded {len(old)} events, replaying gives {len(new)}")


def _first_difference(recorded: Any, replayed: Any, path: str = "state") -> str | None:
    """Path and values of the first difference between two JSON values, or None if equal."""
    if isinstance(recorded, Mapping) and isinstance(replayed, Mapping):
        for key in dict.fromkeys([*recorded, *replayed]):
            if key not in recorded or key not in replayed:
                return f"{path}.{key} (present in only one of them)"
            found = _first_difference(recorded[key], replayed[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed):
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            found = _first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if recorded == replayed else f"{path}: recorded {recorded!r}, replayed {replayed!r}"
