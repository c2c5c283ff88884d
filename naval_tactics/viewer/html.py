"""Write a recorded game as one self-contained HTML page: the board at every decision, the events in step,
play/pause/step controls and a slider. Open it from disk in any browser; it fetches nothing."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from string import Template

from naval_tactics.viewer.frames import ReplayMovie, ReplaySource, replay_movie
from naval_tactics.viewer.page import SCRIPT, STYLE, TEMPLATE, board_script


def write_replay_html(source: ReplaySource, out_html: str | Path, *, config: str | Path | None = None) -> Path:
    """Write the page of a replay (a ``.jsonl`` path, a ``Replay`` or its lines as JSON objects) to ``out_html``.

    Raises ``ReplayError`` for a file that is not a replay and ``ReplayMismatchError`` for one that does not
    replay exactly under this engine; nothing is written then.
    """
    page = replay_page(replay_movie(source, config))
    out = Path(out_html)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out


def replay_to_html(path: str | Path, out: str | Path) -> Path:
    """The ``naval-tactics replay GAME.jsonl --html OUT.html`` command: the page of one replay file."""
    return write_replay_html(path, out)


def html_for_replays(folder: str | Path) -> list[Path]:
    """A page beside every ``*.jsonl`` replay in ``folder`` (``name.jsonl`` -> ``name.html``), e.g. after
    ``evaluate.py --replays``."""
    return [write_replay_html(path, path.with_suffix(".html")) for path in sorted(Path(folder).glob("*.jsonl"))]


def replay_page(movie: ReplayMovie) -> str:
    """The HTML document of a replay's frames."""
    sides = " vs ".join(f"{side}: {captain}" for side, captain in movie.captains.items())
    heading = f"{movie.ruleset} \u00b7 {movie.scenario}"
    meta = f"{sides} \u00b7 seed {movie.seed} \u00b7 {len(movie.frames) - 1} decisions \u00b7 {movie.result}"
    data = json.dumps(movie.to_json(), separators=(",", ":"))
    data = data.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return Template(TEMPLATE).substitute(
        title=escape(f"{heading}: {sides}"), heading=escape(heading), meta=escape(meta), data=data,
        style=STYLE, script=SCRIPT, board=board_script(),
    )
