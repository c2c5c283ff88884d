"""The HTTP routes, versioned under ``/v1``. Each translates a request into :mod:`.play` and back.

Handlers are ``async def`` and run on the event loop: a decision is a fraction of a millisecond
of Python, and handing it to the thread pool cost more than the work (the GIL hand-off took
the p50 of ``decide`` from about 0.5 to 2.5 ms). The exceptions: ``expert:Nms``, a search that
thinks N ms by design, runs in a pool of worker processes (:mod:`.searches`), and the heavy routes
(event listings, replays, pictures, previews) run in a few threads within a time budget
(:mod:`.heavy`), so other games are served meanwhile, at their usual latency. Each game's lock is held for the whole of a
read or a move, so requests on one game are served one at a time and every answer sees a
whole state, whatever a handler awaits in future.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status

from naval_tactics import __version__
from naval_tactics.catalogue import Catalogue, UnknownNameError
from naval_tactics.protocol import (
    CaptainInfo,
    CaptainMoveRequest,
    CaptainMoveResult,
    ComponentInfo,
    DecideRequest,
    DecideResult,
    EventList,
    GameView,
    Health,
    MoveRequest,
    MoveResult,
    NameFormInfo,
    NewGame,
    RulesetInfo,
    RulesetList,
)
from naval_tactics.server import play
from naval_tactics.server.errors import ApiError, error_responses
from naval_tactics.server.guard import client_of
from naval_tactics.server.heavy import HeavyPool
from naval_tactics.server.searches import SearchPool
from naval_tactics.server.settings import ServerSettings
from naval_tactics.server.store import ClientFullError, Store, StoreFullError


@dataclass(frozen=True)
class Services:
    """What one app holds: its settings, what it offers, the games it keeps and its search processes
    (``app.state.services``)."""

    settings: ServerSettings
    catalogue: Catalogue
    store: Store
    searches: SearchPool
    heavy: HeavyPool


async def services(request: Request) -> Services:
    """Async on purpose: a sync dependency would cost each request an extra thread-pool hop."""
    found: Services = request.app.state.services
    return found


ServicesDep = Annotated[Services, Depends(services)]
GameId = Annotated[str, Path(description="The id ``POST /v1/games`` returned.", max_length=64)]


router = APIRouter(responses=error_responses(400, 403, 413, 415, 422, 429, 500, 503))


# ------------------------------------------------------------------ catalogue
@router.get("/health", tags=["server"], summary="Liveness and limits")
async def health(svc: ServicesDep) -> Health:
    s = svc.settings
    return Health(version=__version__, games=len(svc.store), max_games=s.max_games, idle_seconds=s.idle_seconds,
                  max_body_bytes=s.max_body_bytes)


def _ruleset_info(catalogue: Catalogue, ruleset_id: str) -> RulesetInfo:
    entry = catalogue.ruleset(ruleset_id)
    return RulesetInfo(
        id=entry.id, version=entry.ruleset.version, gym_id=entry.ruleset.gym_id, scenarios=list(entry.scenarios),
        default_scenario=entry.default_scenario,
        captains=[CaptainInfo(name=c.name, kind=c.kind, description=c.description, probabilities=c.has_probabilities)
                  for c in catalogue.captains(ruleset_id)],
        name_forms=[NameFormInfo(form=f.form, example=f.example, description=f.description)
                    for f in catalogue.served_forms(ruleset_id)],
        components=[ComponentInfo(name=c.name, description=c.description, labels=list(c.labels))
                    for c in entry.action_spec.components],
    )


@router.get("/rulesets", tags=["rulesets"], summary="Every ruleset: version, scenarios, captains, action labels")
async def list_rulesets(svc: ServicesDep) -> RulesetList:
    return RulesetList(rulesets=[_ruleset_info(svc.catalogue, rid) for rid in svc.catalogue.rulesets])


def _known_ruleset(svc: Services, ruleset_id: str) -> str:
    try:
        return svc.catalogue.ruleset(ruleset_id).id
    except UnknownNameError as exc:
        raise ApiError("not_found", str(exc), details={"name": ruleset_id, "allowed": exc.allowed}) from None


@router.get("/rulesets/{ruleset_id}", tags=["rulesets"], summary="One ruleset", responses=error_responses(404))
async def get_ruleset_info(ruleset_id: str, svc: ServicesDep) -> RulesetInfo:
    return _ruleset_info(svc.catalogue, _known_ruleset(svc, ruleset_id))


@router.get("/rulesets/{ruleset_id}/position-schema", tags=["rulesets"], responses=error_responses(404),
            summary="The JSON Schema of the ruleset's positions (generated from the engine's models)")
async def position_schema(ruleset_id: str, svc: ServicesDep) -> dict[str, Any]:
    return svc.catalogue.ruleset(_known_ruleset(svc, ruleset_id)).ruleset.position_schema()


# ------------------------------------------------------------------ games
@router.post("/games", tags=["games"], status_code=status.HTTP_201_CREATED, responses=error_responses(429),
             summary="Create a game from a scenario and a seed, or from a position")
async def create_game(body: NewGame, svc: ServicesDep, request: Request, response: Response) -> GameView:
    try:
        created = play.new_game(svc.catalogue, svc.store, body.ruleset, body.scenario, body.position, body.seed,
                                client_of(request.scope))
    except ClientFullError as exc:
        raise ApiError("too_many_client_games", str(exc), details={"max_games_per_client": exc.max_games},
                       headers={"Retry-After": str(exc.retry_after)}) from None
    except StoreFullError as exc:
        raise ApiError("too_many_games", str(exc), details={"max_games": exc.max_games},
                       headers={"Retry-After": str(exc.retry_after)}) from None
    async with created.lock:
        view = play.game_view(created)
    response.headers["Location"] = f"/v1/games/{created.id}"
    return view


@router.get("/games/{game_id}", tags=["games"], responses=error_responses(404, 410),
            summary="A game: its position, whose turn, the legal labels, over and winner")
async def get_game(game_id: GameId, svc: ServicesDep) -> GameView:
    current = play.session(svc.store, game_id)
    async with current.lock:
        return play.game_view(current)


@router.delete("/games/{game_id}", tags=["games"], status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404),
               summary="Forget a game (frees its place at once)")
async def delete_game(game_id: GameId, svc: ServicesDep) -> None:
    try:
        current = play.session(svc.store, game_id)  # a 404 that says why, when it is not kept
    except ApiError as exc:
        if exc.code not in ("game_damaged", "game_not_replayable"):
            raise
        svc.store.discard(game_id)   # a stored game that cannot be rebuilt can still be cleared away
        return
    async with current.lock:   # after any move or search in progress on it: none is applied after the delete
        svc.store.discard(game_id)


@router.post("/games/{game_id}/moves", tags=["games"], responses=error_responses(404, 409, 410),
             summary="Apply the seat's move, given by label")
async def make_move(game_id: GameId, body: MoveRequest, svc: ServicesDep) -> MoveResult:
    current = play.session(svc.store, game_id)
    async with current.lock:
        play.check_room(current, svc.settings.max_turns, svc.settings.max_proposals, proposal=False)
        action, events = play.apply_labels(svc.store, current, body.seat, body.move)
        logged, log = play.events_json(events)
        return MoveResult(seat=body.seat, move=play.labels_of(current.entry, action), action=action.tolist(),
                          events=logged, log=log, game=play.game_view(current))


@router.post("/games/{game_id}/captain-moves", tags=["games"], responses=error_responses(404, 409, 410),
             summary="Ask a named captain for the move of the seat to move; apply it or only propose it")
async def captain_move(
    game_id: GameId, body: CaptainMoveRequest, svc: ServicesDep,
    apply: Annotated[bool, Query(description="false: only propose, the game is left as it is")] = True,
) -> CaptainMoveResult:
    current = play.session(svc.store, game_id)
    entry = play.captain_entry(svc.catalogue, current.entry.id, body.captain)
    async with current.lock:
        play.check_room(current, svc.settings.max_turns, svc.settings.max_proposals, proposal=not apply)
        if entry.slow:   # a search's thinking time (expert:Nms) must not hold up every other game
            seat = play.seat_to_move(current.game, body.seat)
            searched = await svc.searches.in_game(current, entry.name, seat)
            proposal, events = play.keep_proposal(svc.store, current, entry, searched, apply)
        else:
            proposal, events = play.ask_captain(svc.store, current, entry, body.seat, apply)
        logged, log = play.events_json(events)
        return CaptainMoveResult(seat=proposal.seat, captain=entry.name, move=proposal.move, action=proposal.action,
                                 probabilities=proposal.probabilities, applied=apply, events=logged, log=log,
                                 game=play.game_view(current))


@router.get("/games/{game_id}/events", tags=["games"], responses=error_responses(404, 410),
            summary="The game's events so far, as typed events written out and as sentences")
async def game_events(
    game_id: GameId, svc: ServicesDep,
    since: Annotated[int, Query(ge=0, description="Index of the first event to return")] = 0,
) -> EventList:
    current = play.session(svc.store, game_id)
    async with current.lock:   # read (and written out) in a thread: a long game's history is no small list
        logged, log = await svc.heavy.run(lambda _: svc.store.event_log(current), stoppable=False)   # store locks
        return EventList(game_id=game_id, since=since, total=len(logged), events=logged[since:], log=log[since:])


# ------------------------------------------------------------------ stateless
@router.post("/decide", tags=["decide"], responses=error_responses(409),
             summary="A captain's move in a position, nothing kept on the server")
async def decide(body: DecideRequest, svc: ServicesDep) -> DecideResult:
    if _searches(svc.catalogue, body.ruleset, body.captain):   # the search's thinking time, off the event loop
        seed = body.seed if body.seed is not None else 0
        entry = play.ruleset_entry(svc.catalogue, body.ruleset)
        seat = play.seat_to_move(play.load_position(entry, dict(body.position), seed), body.seat)  # refusals here
        proposal = await svc.searches.decide(body.ruleset, body.position, body.captain, seat, seed)
    else:
        proposal = play.decide(svc.catalogue, body.ruleset, body.position, body.captain, body.seat, body.seed)
    return DecideResult(ruleset=body.ruleset, seat=proposal.seat, captain=body.captain, move=proposal.move,
                        action=proposal.action, probabilities=proposal.probabilities)


def _searches(catalogue: Catalogue, ruleset_id: str, captain: str) -> bool:
    """Whether the captain thinks by searching (a bad name is refused later, by the decision itself)."""
    try:
        return catalogue.captain(ruleset_id, captain).slow
    except UnknownNameError:
        return False
