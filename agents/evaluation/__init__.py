"""Evaluate captains against each other: tournaments, statistics, ratings, replays and reports.

``evaluate.py`` at the repository root is the command line; everything it does is
importable from these modules (one concept each):

- :mod:`.tournament`: who plays whom, the paired-game schedule, worker processes;
- :mod:`.stats`: per-game results, per-pairing summaries, Wilson intervals;
- :mod:`.ratings`: OpenSkill ratings from the game results;
- :mod:`.replay`: JSON-lines replays, and re-playing them from their seed;
- :mod:`.report`: rich tables, JSON and CSV.
"""
