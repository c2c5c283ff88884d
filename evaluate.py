"""Evaluate captains against each other: a thin wrapper of ``naval-tactics evaluate`` (same flags; see --help).

The command lives in :mod:`naval_tactics.commands.evaluate` so an installed package has it too.
"""

import sys

from naval_tactics.commands.evaluate import *  # the script's names, as before the move
from naval_tactics.commands.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
