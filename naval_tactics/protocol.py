"""The protocol: request and response models of every route, shared by the server and its Python client.

Positions travel as each ruleset's own position JSON (its schema at
``GET /v1/rulesets/{id}/position-schema``, generated from the engine's models); moves travel as
``{component: label}`` with the labels the rules use (``"fire@enemy0"``); events as the engine's
typed events written out (``{"kind": ..., field: value}``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, StringConstraints, model_validator

#: Seeds an app in any language can hold exactly (JSON numbers are doubles in JavaScript); strict, so
#: ``false`` or ``"1"`` is refused rather than read as a number.
Seed = Annotated[int, Strict(), Field(ge=0, le=2**53 - 1)]
Labels = dict[str, str]
#: A name in a request (ruleset, scenario, captain, seat, label): text of at most 200 characters. Text
#: holding a lone surrogate (``"\ud800"`` in the JSON) is refused here, naming the field, instead of
#: failing when an answer quotes it.
Text = Annotated[str, StringConstraints(max_length=200)]
RequestLabels = dict[Text, Text]
Probabilities = dict[str, dict[str, float]]


class _Model(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)


class _Request(_Model):
    """Requests refuse unknown fields, so a misspelt one is an error instead of a silent default."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


# ------------------------------------------------------------------ errors
class Problem(_Model):
    path: str
    """Where, in the request body: dotted field names and list indices (``position.ships.1.x``); empty for
    the body as a whole."""
    message: str
    """What is wrong there and what is allowed."""


class ErrorBody(_Model):
    code: str
    """A stable word to branch on: ``invalid_json``, ``invalid_request``, ``invalid_position``,
    ``unknown_ruleset``, ``unknown_scenario``, ``unknown_captain``, ``unknown_seat``, ``illegal_move``,
    ``not_your_turn``, ``game_over``, ``game_not_found``, ``game_expired``, ``not_found``,
    ``method_not_allowed``, ``body_too_large``, ``too_many_games``, ``internal_error``."""
    message: str
    """One sentence a person can act on."""
    problems: list[Problem] = []
    """Every field at fault, by path (all of them at once, not just the first)."""
    details: dict[str, Any] | None = None
    """Machine-readable specifics: for ``illegal_move`` the ``component``, ``label`` and ``allowed`` labels;
    for unknown names the ``name`` and ``allowed`` names; for limits the limit."""


class ErrorResponse(_Model):
    """The one shape of every 4xx and 5xx answer."""

    error: ErrorBody


# ------------------------------------------------------------------ catalogue
class Health(_Model):
    status: Literal["ok"] = "ok"
    version: str
    """The naval-tactics version serving."""
    games: int
    """Games kept now."""
    max_games: int
    idle_seconds: float
    max_body_bytes: int


class ComponentInfo(_Model):
    name: str
    description: str
    labels: list[str]
    """Every value's label, in value order; the first is the no-op, always allowed."""


class CaptainInfo(_Model):
    name: str
    """The name to ask for (``random``, a scripted captain, ``zoo``, a difficulty level, an exported captain's
    file stem)."""
    kind: Literal["random", "scripted", "zoo", "level", "exported", "search", "mixed", "tempered"]
    """What it is; the last three are kinds of names made on demand (``search:N``, ``mixed:BASE:SHARE``,
    ``tempered:BASE:T``), which ``docs/captains.md`` describes and the listing does not repeat."""
    description: str
    probabilities: bool
    """Whether its moves come with the policy's probabilities."""


class NameFormInfo(_Model):
    form: str
    """A form of captain name the server makes on demand (``search:N``); the client fills in N, BASE, SHARE, T."""
    example: str
    """One name of the form the server takes (``search:4``)."""
    description: str
    """What it makes, with this server's range where it has one."""


class RulesetInfo(_Model):
    id: str
    version: str
    """The rules version; positions written for another version are refused."""
    gym_id: str
    scenarios: list[str]
    default_scenario: str
    captains: list[CaptainInfo]
    name_forms: list[NameFormInfo]
    """Names made on demand besides ``captains``, within this server's limits (docs/captains.md)."""
    components: list[ComponentInfo]
    """The action components: a move gives at most one label for each."""


class RulesetList(_Model):
    rulesets: list[RulesetInfo]


# ------------------------------------------------------------------ games
class NewGame(_Request):
    """A game from a scenario and a seed, or from a position (which names its own scenario)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"ruleset": "pantheon", "scenario": "duel", "seed": 7},
        {"ruleset": "pantheon", "position": {"ruleset": "pantheon", "...": "see the position schema"}, "seed": 7},
    ]})

    ruleset: Text
    """A ruleset id from ``GET /v1/rulesets``."""
    scenario: Text | None = None
    """One of the ruleset's scenarios; default: its default scenario. Not with ``position``."""
    position: dict[str, Any] | None = None
    """A position (full or short form) of the ruleset: ``GET /v1/rulesets/{id}/position-schema``."""
    seed: Seed | None = None
    """Seeds the game's dice (and the random captain); default: one the server draws and reports."""

    @model_validator(mode="after")
    def _scenario_or_position(self) -> NewGame:
        if self.scenario is not None and self.position is not None:
            raise ValueError("give a scenario or a position, not both (a position names its own scenario)")
        return self


class Seat(_Model):
    id: str
    """The captain's seat: ``<side>_<index>`` (``red_0``)."""
    side: str
    active: bool
    """Whether its ship still fights (can still get decisions)."""


class GameView(_Model):
    id: str
    ruleset: str
    version: str
    scenario: str
    seed: int
    round: int
    decisions: int
    """Moves applied since the game was created here."""
    to_move: str | None
    """The seat whose decision it is; null once the game is over."""
    over: bool
    winner: str | None
    """The winning side once over; null for a draw or while playing."""
    truncated: bool
    """Whether it ended at the round limit rather than by the rules."""
    sides: list[str]
    seats: list[Seat]
    legal: dict[str, list[str]]
    """The labels ``to_move`` may give for each component now (empty once over)."""
    position: dict[str, Any]
    """The whole state as a position (full form): loading it gives this game back."""


class MoveRequest(_Request):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"seat": "red_0", "move": {"maneuver": "ahead 3, starboard after 1"}},
    ]})

    seat: Text
    """The seat moving: it must be ``to_move``."""
    move: RequestLabels
    """``{component: label}``; components left out take their no-op (value 0, always allowed)."""


class MoveResult(_Model):
    seat: str
    move: Labels
    """The move applied, every component by label."""
    action: list[int]
    """The same move as integers (value of each component, in component order)."""
    events: list[dict[str, Any]]
    """What the move did, as typed events (``{"kind": ..., ...}``), in order."""
    log: list[str]
    """The same events, one sentence each."""
    game: GameView


class CaptainMoveRequest(_Request):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"captain": "gunner"},
    ]})

    captain: Text
    """A captain name the ruleset lists (``GET /v1/rulesets``), or a name of the forms ``search``, ``search:N``,
    ``search:Nms``, ``expert:Nms`` (the top level searching N milliseconds a decision), ``mixed:BASE:SHARE``
    or ``tempered:BASE:T`` built on a listed captain, within the server's limits (docs/captains.md)."""
    seat: Text | None = None
    """The seat it moves for; default: ``to_move`` (any other seat is refused: not its turn)."""


class CaptainMoveResult(_Model):
    seat: str
    captain: str
    move: Labels
    action: list[int]
    probabilities: Probabilities | None
    """``{component: {label: probability}}`` over the allowed labels, for captains with a policy."""
    applied: bool
    """Whether the move was applied (``apply=true``) or only proposed."""
    events: list[dict[str, Any]]
    """The events of the applied move (empty when only proposed)."""
    log: list[str]
    game: GameView


class EventList(_Model):
    game_id: str
    since: int
    """Index of the first event returned in the game's whole list."""
    total: int
    """Events the game has produced so far (the next ``since`` to ask for)."""
    events: list[dict[str, Any]]
    log: list[str]


# ------------------------------------------------------------------ stateless decision
class DecideRequest(_Request):
    """A captain's move for one seat of a position, with nothing kept on the server."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"ruleset": "pantheon", "position": {"ruleset": "pantheon", "...": "see the position schema"},
         "captain": "gunner"},
    ]})

    ruleset: Text
    position: dict[str, Any]
    """A position (full or short form) of the ruleset."""
    captain: Text
    seat: Text | None = None
    """Default: the position's ``to_move``; any other seat is refused (not its turn)."""
    seed: Seed | None = None
    """Seeds the random captain and the position's dice; default 0, so the same request gets the same answer."""


class DecideResult(_Model):
    ruleset: str
    seat: str
    captain: str
    move: Labels
    """Every component by label."""
    action: list[int]
    probabilities: Probabilities | None
    """``{component: {label: probability}}`` over the allowed labels, for captains with a policy."""
