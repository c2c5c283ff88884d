"""The replay viewer: a recorded game as one self-contained HTML page (board pictures, events, controls).

``replay_to_html(path, out)`` is what the ``naval-tactics replay GAME.jsonl --html OUT.html`` command calls;
``html_for_replays(folder)`` writes a page beside every replay an evaluation left there.
"""

from naval_tactics.viewer.frames import Frame, ReplayMovie, replay_movie
from naval_tactics.viewer.html import (
           html_for_replays,
           replay_page,
           replay_to_html,
           write_replay_html,
)

__all__ = ["Frame", "ReplayMovie", "html_for_replays", "replay_movie", "replay_page", "replay_to_html",
           "write_replay_html"]
