"""A persistent league: captains, every finished game and their ratings in one SQLite file.

``db`` (the file and its schema), ``identity`` (captain files and hashes), ``play`` (playing the
missing games), ``sprt`` (the sequential test), ``standings`` (what status shows). The command is
``naval-tactics league`` (naval_tactics/commands/league.py); docs/league.md explains it.
"""
