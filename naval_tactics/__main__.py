"""``python -m naval_tactics``: the same command as ``naval-tactics``."""

from naval_tactics.cli import main

raise SystemExit(main())
