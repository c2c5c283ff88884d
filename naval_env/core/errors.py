"""Errors shared by every ruleset. All are ``ValueError`` subclasses so callers can catch broadly."""

from __future__ import annotations


class NavalError(ValueError):
    """Base class of the toolkit's own errors."""


class ConfigError(NavalError):
    """A ruleset config, scenario or run config failed validation; the message names file and field."""


class IllegalActionError(NavalError):
    """An action the rules do not allow now. The game state is left untouched."""


class NotYourTurnError(IllegalActionError):
    """An agent acted while another agent holds the decision."""


class GameOverError(IllegalActionError):
    """An action was given after the game ended."""
