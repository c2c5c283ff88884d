"""Train a MaskablePPO captain: a thin wrapper of ``naval-tactics train`` (same flags; see --help).

The command lives in :mod:`naval_tactics.commands.train` so an installed package has it too.
"""

import sys

from naval_tactics.commands.train import *  # the script's names, as before the move
from naval_tactics.commands.train import main

if __name__ == "__main__":
    sys.exit(main())
