"""Where the toolkit writes when the user names no place: its folder in the user's data folder."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """The toolkit's folder in the user's data folder ($XDG_DATA_HOME, else ~/.local/share), as XDG tools use."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "naval-tactics"


def default_game_store() -> Path:
    """The captain server's game store when ``--store`` is not given (its folder is made on first use)."""
    return data_home() / "games.sqlite3"
