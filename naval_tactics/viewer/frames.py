"""A recorded game as frames: the board picture after every decision, with that decision's move and events.

The game is re-played from its seed through the engine (``naval_agents.evaluation.replay``), so each frame is
the engine's own position, painted by the ruleset's picture (the same one ``rgb_array`` frames show).
Frame 0 is the battle before the first decision (with the opening events); frame ``k`` follows decision
``k - 1``; the last frame is the finished game and carries the result.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from naval_agents.evaluation.replay import (
    Replay,
    ReplayError,
    ReplayMismatchError,
    load_replay,
    replay_game,
)
from naval_env.core.moves import decode
from naval_env.core.picture import picture_of
from naval_env.core.ruleset import get_ruleset
from naval_env.core.spaces import ActionSpec
from naval_env.envs.match import Match

#: What :func:`replay_movie` reads: a replay file, a parsed replay, or the file's lines as JSON objects.
ReplaySource = str | Path | Replay | Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class Frame:
    index: int
    picture: int                # index into ReplayMovie.pictures (equal pictures are kept once)
    round: int
    actor: str | None           # who made the decision that led here; None for the opening frame
    move: dict[str, str]        # that decision's choices by component label (no-op components left out)
    events: tuple[str, ...]     # what that decision caused, as the events' texts


@dataclass(frozen=True)
class ReplayMovie:
    ruleset: str
    scenario: str
    seed: int
    captains: dict[str, str]    # side -> captain name
    result: str                 # "red (gunner) wins in round 5", "draw at the round limit (30 rounds)", ...
    parts: tuple[str, ...]      # distinct pieces of SVG (an element, the opening or closing tag)
    pictures: tuple[tuple[int, ...], ...]   # each distinct picture as indexes into ``parts``
    frames: tuple[Frame, ...]

    def svg(self, frame: int) -> str:
        """The SVG document of frame ``frame``."""
        return "".join(self.parts[i] for i in self.pictures[self.frames[frame].picture])

    def to_json(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset, "scenario": self.scenario, "seed": self.seed, "captains": self.captains,
            "result": self.result, "parts": list(self.parts), "pictures": [list(p) for p in self.pictures],
            "frames": [{"index": f.index, "picture": f.picture, "round": f.round, "actor": f.actor, "move": f.move,
                        "events": list(f.events)} for f in self.frames],
        }


def read_replay(source: ReplaySource) -> Replay:
    """A parsed replay from a path, a :class:`Replay` or its JSON-lines records (checked as a file would be)."""
    if isinstance(source, Replay):
        return source
    if isinstance(source, (str, Path)):
        return load_replay(source)
    records = [dict(line) for line in source if isinstance(line, Mapping)] if isinstance(source, Sequence) else []
    if not records or len(records) != len(source):
        raise ReplayError("a replay is a path to a .jsonl file, a Replay, or its lines as JSON objects; "
                          f"got {type(source).__name__}")
    with tempfile.TemporaryDirectory() as folder:   # read back as a file is, with the same checks
        path = Path(folder) / "replay.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in records), encoding="utf-8")
        return load_replay(path)


def replay_movie(source: ReplaySource, config: str | Path | None = None) -> ReplayMovie:
    """Every frame of a recorded game; raises ``ReplayMismatchError`` if the record does not replay exactly.

    ``config`` overrides the config path the replay names (as in ``replay_game``).
    """
    replay = read_replay(source)
    finished = replay_game(replay, config, unfinished=True)   # it must replay exactly before it is shown
    header = replay.header
    rules = get_ruleset(header.ruleset)
    match = Match(rules, config if config is not None else header.config, header.scenario, illegal_action="raise")
    match.reset(header.seed)
    game = match.game
    parts: dict[str, int] = {}
    pictures: dict[tuple[int, ...], int] = {}

    def frame(index: int, actor: str | None, move: dict[str, str], events: Sequence[Any]) -> Frame:
        picture = tuple(parts.setdefault(part, len(parts)) for part in picture_of(game).svg_parts())
        return Frame(index, pictures.setdefault(picture, len(pictures)), game.round, actor, move,
                     tuple(event.text() for event in events))

    frames = [frame(0, None, {}, replay.opening_events)]
    for decision in replay.decisions:
        move = chosen(match.action_spec, game.legal_mask(decision.agent), list(decision.action))
        game.apply(decision.agent, list(decision.action))
        frames.append(frame(decision.index + 1, decision.agent, move, decision.events))
    if json.dumps(game.state_dict(), sort_keys=True) != json.dumps(finished.state_dict(), sort_keys=True):
        raise ReplayMismatchError("painting the frames changed the game: its final state differs from the replay's")
    return ReplayMovie(rules.id, match.scenario or match.config.default_scenario, header.seed,
                       dict(header.captains), result_line(replay, finished.is_over), tuple(parts), tuple(pictures), tuple(frames))


def chosen(spec: ActionSpec, mask: np.ndarray, action: Sequence[int]) -> dict[str, str]:
    """A decision's choices by label: every component that had a choice (more than one label allowed) and
    any set past its no-op, so a value-0 choice such as ``dodge`` is named rather than hidden."""
    labels = decode(spec, action)
    start, shown = 0, {}
    for component, value in zip(spec.components, action, strict=True):
        size = len(component.labels)
        if value != 0 or int(np.count_nonzero(mask[start:start + size])) > 1:
            shown[component.name] = labels[component.name]
        start += size
    return shown


def result_line(replay: Replay, finished: bool = True) -> str:
    """The result of a recorded game in one line (or where an unfinished one stopped)."""
    result = replay.result
    if not finished:
        return f"unfinished: the record stops in round {result.rounds} after {result.decisions} decisions"
    if result.winner is None:
        return f"draw at the round limit ({result.rounds} rounds)" if result.truncated else \
            f"draw in round {result.rounds}"
    captain = f" ({result.winner_captain})" if result.winner_captain else ""
    return f"{result.winner}{captain} wins in round {result.rounds}"
