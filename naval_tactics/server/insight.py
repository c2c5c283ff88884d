"""Routes that help show a decision to a person: its options explained, a move previewed on a position, the
board picture of a position, and the replay of a game played over HTTP (the ``/play`` page uses all four).

They keep nothing: a preview loads the position it is sent with fresh dice, so it shows only what the rules
fix before any die is rolled (``fixed`` says whether a die was needed) and never the game's own next rolls.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Path
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from naval_agents.evaluation.replay import replay_text
from naval_env.core.errors import IllegalActionError
from naval_env.core.game import Game
from naval_env.core.moves import MoveError, encode
from naval_env.core.picture import picture_of
from naval_env.envs.match import Match
from naval_tactics.explain import Explainer
from naval_tactics.play import GameRecorder
from naval_tactics.protocol import Labels, Problem, Seed
from naval_tactics.server import play
from naval_tactics.server.errors import ApiError, error_responses
from naval_tactics.server.heavy import Deadline
from naval_tactics.server.routes import Services, ServicesDep
from naval_tactics.viewer.frames import replay_movie
from naval_tactics.viewer.html import replay_page

SVG = "image/svg+xml"
JSONL = "application/x-ndjson"


router = APIRouter(responses=error_responses(400, 403, 413, 415, 422, 429, 500, 503))
GameId = Annotated[str, Path(description="The id ``POST /v1/games`` returned.", max_length=64)]
RulesetId = Annotated[str, Path(description="A ruleset id, as ``GET /v1/rulesets`` lists them.", max_length=64)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class LabelOption(BaseModel):
    label: str
    text: str
    """What choosing it does, in one line."""


class ComponentOptions(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    description: str
    subject: str | None = None
    """The part of the ship the component stands for (``crew member 2 (gunner)``), if any."""
    options: list[LabelOption]
    """The labels allowed now, in value order (the first is the no-op when it is allowed)."""


class OptionsView(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    game_id: str
    seat: str
    """The seat deciding now: the acting ship (a fleet side decides ship by ship)."""
    components: list[ComponentOptions]


class PreviewRequest(_Request):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"position": {"ruleset": "pantheon", "...": "see the position schema"},
         "move": {"maneuver": "ahead 3, starboard after 1"}},
    ]})

    position: dict[str, Any]
    """A position (full or short form) of the ruleset."""
    seat: str | None = None
    """Default: the position's ``to_move``."""
    move: Labels
    """``{component: label}``; components left out take their no-op."""


class Preview(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    seat: str
    move: Labels
    """The whole move previewed, every component by label."""
    fixed: bool
    """True when applying the move rolled no die: everything shown is what the move will do. False: it needed
    dice, and what is shown is one possible outcome (fresh dice, not the game's)."""
    events: list[dict[str, Any]]
    log: list[str]
    position: dict[str, Any]
    """The position after the move."""
    picture: str
    """The board picture after the move, as an SVG document."""


class PictureRequest(_Request):
    position: dict[str, Any]
    """A position (full or short form) of the ruleset."""


class ReplayDecision(_Request):
    seat: str
    action: list[int]
    """The move as integers, as ``moves`` and ``captain-moves`` answer it (``action``)."""


class ReplayRequest(_Request):
    """A game to write as a replay: its start and every move, re-played here from the seed."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, json_schema_extra={"examples": [
        {"ruleset": "pantheon", "scenario": "duel", "seed": 7, "captains": {"red": "you", "blue": "gunner"},
         "decisions": [{"seat": "red_0", "action": [0, 12, 0, 0, 0, 0, 0, 0, 0, 0]}]},
    ]})

    ruleset: str
    scenario: str | None = None
    seed: Seed
    captains: dict[str, str] = Field(default_factory=dict)
    """Who played each side (a name for the record; sides left out are called ``unknown``)."""
    decisions: list[ReplayDecision]
    """Every decision in order; the game may be unfinished (the viewer shows where it stopped)."""


# ------------------------------------------------------------------ options of the decision now
@router.get("/games/{game_id}/options", tags=["games"], responses=error_responses(404, 409, 410),
            summary="The decision now: the acting ship and each component's allowed labels, explained in one line")
async def game_options(game_id: GameId, svc: ServicesDep) -> OptionsView:
    current = play.session(svc.store, game_id)
    async with current.lock:
        game = current.game
        seat = play.seat_to_move(game, None)
        explainer = Explainer(game, seat)
        allowed = game.legal_mask(seat)
        components: list[ComponentOptions] = []
        start = 0
        for component in game.action_spec.components:
            size = len(component.labels)
            labels = [label for k, label in enumerate(component.labels) if allowed[start + k]]
            start += size
            components.append(ComponentOptions(
                name=component.name, description=component.description, subject=explainer.subject(component),
                options=[LabelOption(label=label, text=explainer.option(component, label)) for label in labels]))
        return OptionsView(game_id=game_id, seat=seat, components=components)


# ------------------------------------------------------------------ a move previewed, a picture
@router.post("/rulesets/{ruleset_id}/preview", tags=["decide"], responses=error_responses(404, 409),
             summary="What a move does to a position, before dice: the position and picture after it")
async def preview_move(ruleset_id: RulesetId, body: PreviewRequest, svc: ServicesDep) -> Preview:
    return await svc.heavy.run(lambda _: _preview(svc, ruleset_id, body))


def _preview(svc: Services, ruleset_id: str, body: PreviewRequest) -> Preview:
    entry = play.ruleset_entry(svc.catalogue, ruleset_id)
    game = play.load_position(entry, dict(body.position), secrets.randbelow(play.SEED_LIMIT))
    seat = play.seat_to_move(game, body.seat)
    action = _encoded(game, seat, body.move)
    rolled = len(game.dice.history)
    try:
        events = game.apply(seat, action)
    except IllegalActionError as exc:
        raise ApiError("illegal_move", str(exc), [Problem(path="move", message=str(exc))]) from None
    logged, log = play.events_json(events)
    return Preview(seat=seat, move=play.labels_of(entry, action), fixed=len(game.dice.history) == rolled,
                   events=logged, log=log, position=game.position(), picture=picture_of(game).to_svg())


@router.post("/rulesets/{ruleset_id}/picture", tags=["rulesets"], response_class=Response,
             responses={**error_responses(404), 200: {"content": {SVG: {}}, "description": "The picture, an SVG document"}},
             summary="The board picture of a position (SVG): board, ships, ranges of the ship to move, panel, legend")
async def position_picture(ruleset_id: RulesetId, body: PictureRequest, svc: ServicesDep) -> Response:
    def draw(_: Deadline) -> str:
        entry = play.ruleset_entry(svc.catalogue, ruleset_id)
        return picture_of(play.load_position(entry, dict(body.position), 0)).to_svg()

    return Response(await svc.heavy.run(draw), media_type=SVG)


def _encoded(game: Game, seat: str, move: Mapping[str, str]) -> np.ndarray:
    try:
        return encode(game.action_spec, move, game.legal_mask(seat))
    except MoveError as exc:
        path = f"move.{exc.component}" if exc.component is not None else "move"
        raise ApiError("illegal_move", str(exc), [Problem(path=path, message=str(exc))], exc.to_json()) from None


# ------------------------------------------------------------------ replays
@router.post("/replays", tags=["games"], response_class=Response,
             responses={**error_responses(409), 200: {"content": {JSONL: {}}, "description": "The replay, JSON lines"}},
             summary="A game's replay (the JSON lines `naval-tactics replay` reads), re-played from its seed and moves")
async def replay_file(body: ReplayRequest, svc: ServicesDep) -> Response:
    text = await svc.heavy.run(lambda deadline: _replayed(svc, body, deadline))
    name = f"{body.ruleset}-{body.scenario or 'game'}-{body.seed}.jsonl"
    return Response(text, media_type=JSONL, headers={"Content-Disposition": f'attachment; filename="{name}"'})


# response_class=Response, not HTMLResponse: FastAPI would document this route's JSON errors as text/html.
@router.post("/replays/page", tags=["games"], response_class=Response,
             responses={**error_responses(409), 200: {"content": {"text/html": {}}, "description": "The replay viewer"}},
             summary="The replay viewer page of a game (what `naval-tactics replay --html` writes)")
async def replay_viewer(body: ReplayRequest, svc: ServicesDep) -> HTMLResponse:
    def page(deadline: Deadline) -> str:
        records = [json.loads(line) for line in _replayed(svc, body, deadline).splitlines()]
        deadline.check()
        movie = replay_movie(records)
        deadline.check()
        return replay_page(movie)

    return HTMLResponse(await svc.heavy.run(page))


def _replayed(svc: Services, body: ReplayRequest, deadline: Deadline) -> str:
    """Re-play the game from its seed and moves; a move the rules refuse is named by its index."""
    entry = play.ruleset_entry(svc.catalogue, body.ruleset)
    scenario = body.scenario if body.scenario is not None else entry.default_scenario
    if scenario not in entry.scenarios:
        message = f"unknown {entry.id} scenario {scenario!r}; choose one of {list(entry.scenarios)}"
        raise ApiError("unknown_scenario", message, [Problem(path="scenario", message=message)],
                       {"name": scenario, "allowed": list(entry.scenarios)})
    recorder = GameRecorder(Match(entry.ruleset, entry.config, scenario, illegal_action="raise"), body.seed, {})
    recorder.captains = {side: body.captains.get(side, "unknown") for side in recorder.game.sides}
    sizes = [len(component.labels) for component in entry.action_spec.components]
    for index, decision in enumerate(body.decisions):
        deadline.check()
        path = f"decisions.{index}"
        game = recorder.game
        if game.is_over or decision.seat != game.current_agent:
            holder = "nobody (the game is over)" if game.is_over else game.current_agent
            message = f"decision {index} is {decision.seat}'s, but {holder} holds the decision there"
            raise ApiError("not_your_turn", message, [Problem(path=f"{path}.seat", message=message)],
                           {"index": index, "seat": decision.seat, "to_move": game.current_agent})
        if len(decision.action) != len(sizes) or not all(0 <= v < n for v, n in zip(decision.action, sizes)):
            message = (f"decision {index}: an action is one value per component, each below its number of labels "
                       f"{sizes}; got {decision.action}")
            raise ApiError("illegal_move", message, [Problem(path=f"{path}.action", message=message)])
        try:
            recorder.apply(decision.seat, np.asarray(decision.action, dtype=np.int64))
        except IllegalActionError as exc:
            message = f"decision {index}: the rules refuse {decision.action}: {exc}"
            raise ApiError("illegal_move", message, [Problem(path=f"{path}.action", message=message)]) from None
    return replay_text(recorder.record(), ruleset=entry.id, scenario=scenario)
