"""A Python client of the captain server: one typed method per route, answers as the protocol's models.

    from naval_tactics.client import CaptainClient

    with CaptainClient("http://127.0.0.1:8765") as server:
        game = server.new_game("pantheon", scenario="duel", seed=7)
        while not game.over:
            if game.to_move == "red_0":
                game = server.move(game.id, "red_0", {"maneuver": game.legal["maneuver"][-1]}).game
            else:
                game = server.captain_move(game.id, "gunner").game

Every error answer raises :class:`CaptainServerError` carrying the server's ``code``, ``message`` and
``problems``. It imports httpx and pydantic only (no engines), so it runs wherever those do.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from naval_tactics.protocol import (
    CaptainMoveResult,
    DecideResult,
    ErrorResponse,
    EventList,
    GameView,
    Health,
    MoveResult,
    Problem,
    RulesetInfo,
    RulesetList,
)

DEFAULT_URL = "http://127.0.0.1:8765"
ModelT = TypeVar("ModelT", bound=BaseModel)


class CaptainServerError(Exception):
    """An error answer: ``status`` (HTTP), ``code`` (stable word), ``message``, ``problems`` and ``details``."""

    def __init__(self, status: int, code: str, message: str, problems: list[Problem] | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message
        self.problems = problems or []
        self.details = details


class CaptainClient:
    """Talks to one server. Pass ``http`` to reuse a configured ``httpx.Client`` (or FastAPI's TestClient)."""

    def __init__(self, base_url: str = DEFAULT_URL, *, timeout: float = 10.0, http: httpx.Client | None = None) -> None:
        self._owns = http is None
        self.http = http if http is not None else httpx.Client(base_url=base_url, timeout=timeout)

    def close(self) -> None:
        if self._owns:
            self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # ---------------------------------------------------------------- catalogue
    def health(self) -> Health:
        return self._call("GET", "/v1/health", Health)

    def rulesets(self) -> list[RulesetInfo]:
        return self._call("GET", "/v1/rulesets", RulesetList).rulesets

    def ruleset(self, ruleset_id: str) -> RulesetInfo:
        return self._call("GET", f"/v1/rulesets/{ruleset_id}", RulesetInfo)

    def position_schema(self, ruleset_id: str) -> dict[str, Any]:
        schema: dict[str, Any] = self._request("GET", f"/v1/rulesets/{ruleset_id}/position-schema").json()
        return schema

    # ---------------------------------------------------------------- games
    def new_game(self, ruleset: str, *, scenario: str | None = None, position: Mapping[str, Any] | None = None,
                 seed: int | None = None) -> GameView:
        body = _without_none({"ruleset": ruleset, "scenario": scenario, "position": position, "seed": seed})
        return self._call("POST", "/v1/games", GameView, json=body)

    def game(self, game_id: str) -> GameView:
        return self._call("GET", f"/v1/games/{game_id}", GameView)

    def delete_game(self, game_id: str) -> None:
        self._request("DELETE", f"/v1/games/{game_id}")

    def move(self, game_id: str, seat: str, move: Mapping[str, str]) -> MoveResult:
        return self._call("POST", f"/v1/games/{game_id}/moves", MoveResult, json={"seat": seat, "move": dict(move)})

    def captain_move(self, game_id: str, captain: str, *, seat: str | None = None,
                     apply: bool = True) -> CaptainMoveResult:
        """The move of ``captain`` (a name the server lists, or ``expert:Nms``: the top level thinking N
        milliseconds, up to the server's ``max_expert_ms``), applied unless ``apply`` is False."""
        return self._call("POST", f"/v1/games/{game_id}/captain-moves", CaptainMoveResult,
                          json=_without_none({"captain": captain, "seat": seat}),
                          params={"apply": "true" if apply else "false"})

    def events(self, game_id: str, since: int = 0) -> EventList:
        return self._call("GET", f"/v1/games/{game_id}/events", EventList, params={"since": since})

    # ---------------------------------------------------------------- stateless
    def decide(self, ruleset: str, position: Mapping[str, Any], captain: str, *, seat: str | None = None,
               seed: int | None = None) -> DecideResult:
        body = _without_none({"ruleset": ruleset, "position": position, "captain": captain, "seat": seat,
                              "seed": seed})
        return self._call("POST", "/v1/decide", DecideResult, json=body)

    # ---------------------------------------------------------------- plumbing
    def _call(self, method: str, path: str, model: type[ModelT], **kwargs: Any) -> ModelT:
        return model.model_validate_json(self._request(method, path, **kwargs).content)

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = self.http.request(method, path, **kwargs)
        if response.is_success:
            return response
        try:
            error = ErrorResponse.model_validate_json(response.content).error
        except ValueError:
            raise CaptainServerError(response.status_code, f"http_{response.status_code}",
                                     response.text[:200] or response.reason_phrase) from None
        raise CaptainServerError(response.status_code, error.code, error.message, error.problems, error.details)


def _without_none(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if value is not None}
