"""The board picture (SVG and RGB from one scene), rgb_array frames, and the replay page's content.

The page in a real browser is tested in ``test_viewer_browser.py``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import naval_env  # noqa: F401 - registers the envs
from naval_agents.evaluation.replay import (
    ReplayError,
    ReplayMismatchError,
    load_replay,
)
from naval_env.core.moves import legal_options
from naval_env.core.picture import BAR_W, picture_of, picture_of_position
from naval_env.core.position import PositionError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.core.scene import Circle, Polygon, Rect, Scene, Segments, Text
from naval_env.core.sketch import SIDE_FILL
from naval_env.envs.match import Match
from naval_tactics.viewer import replay_movie, replay_page, replay_to_html, write_replay_html
from naval_tactics.viewer.frames import chosen
from tests.helpers import played_replay

SVG = "{http://www.w3.org/2000/svg}"
RULESETS = ["pantheon", "crew_phase", "flotilla", "broadside", "pursuit"]
#: Name of the first bar (the hull, in each ruleset's words).
HULL_BAR = {"pantheon": "health", "crew_phase": "hull", "flotilla": "cohesion", "broadside": "hull",
            "pursuit": "hull"}

#: A short-form position per ruleset: blue_0 damaged to a known fraction, red_0 to move.
POSITIONS: dict[str, dict[str, Any]] = {
    "pantheon": {"ruleset": "pantheon", "scenario": "duel", "wind": "SW", "ships": [
        {"id": "red_0", "vessel": "trireme", "x": 4, "y": 5, "facing": "E"},
        {"id": "blue_0", "vessel": "trireme", "x": 6, "y": 5, "facing": "W", "health": 5}]},
    "crew_phase": {"ruleset": "crew_phase", "scenario": "duel", "phase": "attack", "to_move": "red_0", "ships": [
        {"id": "red_0", "vessel": "sailing_ship", "x": 10, "y": 12, "facing": "N",
         "weapons": [{"weapon": "ballista", "arc": "port"}, {"weapon": "ballista", "arc": "starboard", "operator": 3},
                     {"weapon": "harpoon", "arc": "bow"}]},
        {"id": "blue_0", "vessel": "sailing_ship", "x": 11, "y": 12, "facing": "N", "hull": 20}]},
    "flotilla": {"ruleset": "flotilla", "scenario": "duel", "wind": "N", "ships": [
        {"id": "red_0", "ship_class": "frigate", "x": 5, "y": 7},
        {"id": "blue_0", "ship_class": "brig", "x": 9, "y": 7, "cohesion": 2}]},
    "broadside": {"ruleset": "broadside", "scenario": "galley_vs_sailing_ship", "phase": "gunnery",
                  "to_move": "blue_0", "ships": [
                      {"id": "red_0", "vessel": "galley", "x": 28, "y": 20, "heading": 0},
                      {"id": "blue_0", "vessel": "sailing_ship", "x": 20, "y": 20, "heading": 0, "hull": 12}]},
    "pursuit": {"ruleset": "pursuit", "scenario": "duel", "ships": [
        {"id": "red_0", "ship_class": "galley", "x": 0, "y": 0},
        {"id": "blue_0", "ship_class": "galley", "x": 60, "y": 0, "damage": 40}]},
}
#: blue_0's first bar in POSITIONS: value / maximum.
BLUE_HULL = {"pantheon": 5 / 12, "crew_phase": 20 / 60, "flotilla": 2 / 4, "broadside": 12 / 36,
             "pursuit": 40 / 80}


def svg_of(ruleset: str) -> ET.Element:
    return ET.fromstring(picture_of_position(POSITIONS[ruleset]).to_svg())


def elements(root: ET.Element, role: str, ref: str | None = None) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == role and (ref is None or e.get("data-ref") == ref)]


# ------------------------------------------------------------------ the scene


def test_scene_writes_each_shape_as_svg_and_draws_it_with_pillow() -> None:
    scene = Scene(40, 30, background="#000000")
    scene.add(Rect(x=0, y=0, w=10, h=10, fill="#ff0000", role="a", ref="r"),
              Circle(cx=25, cy=8, r=4, fill="#00ff00", role="b"),
              Polygon(points=((0, 29), (39, 29)), closed=False, stroke="#0000ff", width=1, dash=(4, 4), role="c"),
              Segments(segments=(((30, 15), (30, 25)),), stroke="#ffffff", role="d"),
              Text(x=2, y=25, text="a<b & c", size=8, fill="#ffffff", role="e"))
    root = ET.fromstring(scene.to_svg())
    tags = [e.tag.removeprefix(SVG) for e in root]
    assert tags == ["rect", "rect", "circle", "polyline", "path", "text"]   # background first
    assert root[1].get("width") == "10" and root[1].get("data-ref") == "r" and root[1].get("class") == "a"
    assert root[3].get("stroke-dasharray") == "4 4" and root[5].text == "a<b & c"
    image = scene.to_rgb()
    assert image.shape == (30, 40, 3) and image.dtype == np.uint8
    assert tuple(image[5, 5]) == (255, 0, 0) and tuple(image[8, 25]) == (0, 255, 0)
    assert tuple(image[20, 30]) == (255, 255, 255)
    dashes = image[29, :, 2]
    assert 0 < np.count_nonzero(dashes == 255) < 40        # dashed: some pixels on, some off
    assert tuple(image[15, 15]) == (0, 0, 0)


# ------------------------------------------------------------------ board pictures


@pytest.mark.parametrize("ruleset", RULESETS)
def test_picture_shows_every_ship_its_bars_and_the_wind(ruleset: str) -> None:
    root = svg_of(ruleset)
    for ship in ("red_0", "blue_0"):
        assert len(elements(root, "ship", ship)) == 1
        assert len(elements(root, "card-title", ship)) == 1
    bar = elements(root, f"{HULL_BAR[ruleset]}-bar", "blue_0")
    assert len(bar) == 1 and float(bar[0].get("width", "nan")) == pytest.approx(BAR_W * BLUE_HULL[ruleset])
    full = elements(root, f"{HULL_BAR[ruleset]}-bar", "red_0")
    assert float(full[0].get("width", "nan")) == pytest.approx(BAR_W)
    assert elements(root, "wind") or ruleset == "crew_phase"
    assert elements(root, "status", "red_0" if ruleset != "broadside" else "blue_0")   # to move: ...
    assert [e.text for e in elements(root, "title")] == [f"{ruleset} \u00b7 {POSITIONS[ruleset]['scenario']}"]


def test_bar_widths_follow_the_hull_as_it_falls() -> None:
    widths = []
    for health in (12, 9, 3, 0, -4):
        position = json.loads(json.dumps(POSITIONS["pantheon"]))
        position["ships"][1]["health"] = health
        root = ET.fromstring(picture_of_position(position).to_svg())
        widths.append(float(elements(root, "health-bar", "blue_0")[0].get("width", "nan")))
    assert widths == [150, 112.5, 37.5, 0, 0]          # 150 px x health / 12, never below empty


def test_the_wind_arrow_points_where_the_wind_blows() -> None:
    root = svg_of("pantheon")                            # wind blows toward SW
    wind = [e for e in elements(root, "wind") if e.tag == f"{SVG}polyline" and len(e.get("points", "").split()) == 2]
    (tail, tip) = [tuple(map(float, p.split(","))) for p in wind[0].get("points", "").split()]
    assert wind[0].get("data-ref") == "225"
    assert tip[0] < tail[0] and tip[1] > tail[1]         # toward the west (left) and the south (down)
    calm = ET.fromstring(picture_of_position({**POSITIONS["flotilla"], "wind": "calm"}).to_svg())
    assert [e.get("data-ref") for e in elements(calm, "wind")] == ["calm"]


def test_the_bow_shows_the_facing() -> None:
    scene = picture_of_position(POSITIONS["pantheon"])      # red_0 faces E, blue_0 faces W
    for ship, sign in (("red_0", 1), ("blue_0", -1)):
        (hull,) = scene.find("ship", ship)
        (bow,) = scene.find("bow", ship)
        assert isinstance(hull, Polygon) and isinstance(bow, Circle)
        centre_x = sum(x for x, _ in hull.points) / len(hull.points)
        assert sign * (bow.cx - centre_x) > 5
        assert sign * (hull.points[0][0] - centre_x) > 10    # the pointed bow


def test_pantheon_draws_the_fire_range_and_a_ram_line_when_the_rules_allow_a_ram() -> None:
    rules = get_ruleset("pantheon")
    game = rules.load_position({
        "ruleset": "pantheon", "scenario": "duel", "phase": "attack", "to_move": "red_0", "ships": [
            {"id": "red_0", "vessel": "trireme", "x": 5, "y": 5, "facing": "E", "moved_forward": True},
            {"id": "blue_0", "vessel": "trireme", "x": 6, "y": 5, "facing": "N"}]}, seed=0)
    scene = picture_of(game)
    (reach,) = scene.find("fire-range", "red_0")
    assert isinstance(reach, Rect)
    cell = 600 // 12
    assert (reach.w, reach.h) == (7 * cell, 7 * cell)      # Fire! range 3: 3 squares each way
    assert len(scene.find("ram-line", "red_0>blue_0")) == 2   # the line and its arrow head
    still = rules.load_position({**game.position(), "ships": [
        {**s, "moved_forward": False} for s in game.position()["ships"]]}, seed=0)
    assert picture_of(still).find("ram-line") == []          # no Ram! without moving forward


def test_crew_phase_draws_one_arc_per_weapon_that_can_fire() -> None:
    scene = picture_of_position(POSITIONS["crew_phase"])
    assert sorted(s.ref for s in scene.find("weapon-arc")) == ["red_0.w0", "red_0.w1", "red_0.w2"]
    assert len(scene.find("long-range")) == 3
    (bow,) = scene.find("weapon-arc", "red_0.w2")            # the harpoon looks north: ahead is up
    assert isinstance(bow, Polygon)
    (hull,) = scene.find("ship", "red_0")
    assert isinstance(hull, Polygon)
    centre_y = sum(y for _, y in hull.points) / len(hull.points)
    assert max(y for _, y in bow.points) <= centre_y + 0.01


def test_flotilla_draws_footprints_and_the_gun_range() -> None:
    scene = picture_of_position(POSITIONS["flotilla"])       # frigate and brig: two squares each
    assert len(scene.find("footprint", "red_0")) == 2 and len(scene.find("footprint", "blue_0")) == 2
    rows = scene.find("gun-range", "red_0")
    assert len(rows) == 2 * 3 + 1                            # range 3 round a ship lying east-west: 7 rows


def test_broadside_draws_the_gun_arcs_of_the_ship_to_move() -> None:
    scene = picture_of_position(POSITIONS["broadside"])
    arcs = sorted(s.ref for s in scene.find("gun-arc"))
    game = get_ruleset("broadside").load_position(POSITIONS["broadside"], seed=0)
    guns = game.position()["ships"][1]["guns"]
    assert arcs == sorted(f"blue_0.{b}" for b, n in guns.items() if n)
    assert arcs


def test_pursuit_has_a_range_ladder_in_yards() -> None:
    scene = picture_of_position(POSITIONS["pursuit"])
    assert [s.text for s in scene.find("ladder-yards") if isinstance(s, Text)] == ["60 yd"]
    assert [s.text for s in scene.find("distance-label") if isinstance(s, Text)] == ["60 yd"]
    reaches = scene.find("reach")
    assert {s.ref.split(".")[0] for s in reaches} == {"red_0", "blue_0"}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_last_frame_of_a_played_game_shows_its_result(ruleset: str, tmp_path: Path) -> None:
    replay = load_replay(played_replay(ruleset, tmp_path))
    movie = replay_movie(replay)
    last = ET.fromstring(movie.svg(-1))
    (banner,) = elements(last, "result")
    winner = replay.result.winner
    assert banner.text is not None and banner.text.startswith(f"{winner} wins" if winner else "draw")
    first = ET.fromstring(movie.svg(0))
    assert elements(first, "result") == []
    assert len(movie.frames) == len(replay.decisions) + 1


def test_a_bad_position_is_refused_with_the_field_at_fault() -> None:
    with pytest.raises(ValueError, match="a position is a JSON object with a 'ruleset' field"):
        picture_of_position(["pantheon"])  # type: ignore[arg-type]
    off = json.loads(json.dumps(POSITIONS["pantheon"]))
    off["ships"][0]["x"] = 40
    with pytest.raises(PositionError, match=r"ships\.0\.x"):
        picture_of_position(off)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_painting_leaves_the_game_untouched(ruleset: str, tmp_path: Path) -> None:
    replay = load_replay(played_replay(ruleset, tmp_path))
    match = Match(ruleset)
    match.reset(replay.header.seed)
    game = match.game
    for decision in replay.decisions[: len(replay.decisions) // 2]:
        game.apply(decision.agent, list(decision.action))
    before = json.dumps(game.state_dict(), sort_keys=True)
    mask = game.legal_mask(game.current_agent).copy()
    picture_of(game).to_rgb()
    assert json.dumps(game.state_dict(), sort_keys=True) == before
    np.testing.assert_array_equal(game.legal_mask(game.current_agent), mask)


# ------------------------------------------------------------------ rgb frames


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rgb_frame_is_the_picture_and_changes_when_a_ship_moves(ruleset: str) -> None:
    scene = picture_of_position(POSITIONS[ruleset])
    image = scene.to_rgb()
    assert image.shape == (scene.height, scene.width, 3) and image.dtype == np.uint8
    packed = image.astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
    assert len(np.unique(packed)) > 20                                  # not a bare square
    moved = json.loads(json.dumps(POSITIONS[ruleset]))
    for ship in moved["ships"] if ruleset != "pursuit" else moved["ships"][:1]:   # the sea plot follows the ships
        ship["y"] += {"broadside": 2, "pursuit": 30}.get(ruleset, -2)          # north, whichever way y grows
    other = picture_of_position(moved).to_rgb()
    changed = np.argwhere(np.any(image != other, axis=2))
    assert len(changed) > 50
    assert changed[:, 1].max() < 640                                   # only the board changed, not the panel
    (hull,) = scene.find("ship", "red_0")
    x, y = _inside(hull)
    assert tuple(image[y, x]) == tuple(int(SIDE_FILL[0][i:i + 2], 16) for i in (1, 3, 5))


def _inside(shape: Any) -> tuple[int, int]:
    """A pixel well inside a ship shape, clear of its number and bow mark."""
    if isinstance(shape, Circle):
        return round(shape.cx - shape.r * 0.6), round(shape.cy)
    xs, ys = [p[0] for p in shape.points], [p[1] for p in shape.points]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    bow = shape.points[0]
    return round(cx - (bow[0] - cx) * 0.45), round(cy - (bow[1] - cy) * 0.45)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rgb_array_env_renders_the_picture_with_one_size_and_passes_the_checker(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    env = gym.make(rules.gym_id, render_mode="rgb_array", opponent="random")
    check_env(env.unwrapped, skip_render_check=False)
    env.reset(seed=1)
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    np.testing.assert_array_equal(frame, picture_of(env.unwrapped.game).to_rgb())
    shapes = {frame.shape}
    frames = [frame]
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = env.unwrapped.action_masks()
        action = env.unwrapped.action_spec.sample(mask, rng)
        _, _, terminated, truncated, _ = env.step(action)
        frames.append(env.render())
        shapes.add(frames[-1].shape)
        if terminated or truncated:
            break
    assert len(shapes) == 1                                  # a video needs one frame size
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])
    env.close()


# ------------------------------------------------------------------ the page


@pytest.mark.parametrize("ruleset", RULESETS)
def test_replay_page_is_self_contained_and_holds_every_frame(ruleset: str, tmp_path: Path) -> None:
    path = played_replay(ruleset, tmp_path)
    out = replay_to_html(path, tmp_path / "game.html")
    page = out.read_text(encoding="utf-8")
    replay = load_replay(path)
    assert page.startswith("<!DOCTYPE html>")
    assert "<script src" not in page and "<link" not in page and "@import" not in page and "url(" not in page
    assert page.replace("http://www.w3.org/2000/svg", "").count("http") == 0   # only the SVG namespace
    data = json.loads(page.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    assert len(data["frames"]) == len(replay.decisions) + 1
    assert data["frames"][1]["actor"] == replay.decisions[0].agent
    assert data["frames"][-1]["events"] == [e.text() for e in replay.decisions[-1].events]
    assert all(0 <= f["picture"] < len(data["pictures"]) for f in data["frames"])
    assert all(0 <= i < len(data["parts"]) for picture in data["pictures"] for i in picture)


def test_page_text_cannot_close_the_script_element(tmp_path: Path) -> None:
    movie = replay_movie(played_replay("pantheon", tmp_path))
    hostile = movie.__class__(**{**movie.__dict__, "result": "</script><script>alert(1)</script>"})
    page = replay_page(hostile)
    assert page.count("</script>") == 3 and "alert(1)" in page       # data, board script, script; the text escaped
    data = json.loads(page.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    assert data["result"] == "</script><script>alert(1)</script>"


def test_bad_replays_are_refused_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    with pytest.raises(ReplayError, match="cannot read replay"):
        write_replay_html(tmp_path / "missing.jsonl", out)
    path = played_replay("pantheon", tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    decision = json.loads(lines[1])
    decision["agent"] = "blue_0" if decision["agent"] == "red_0" else "red_0"
    lines[1] = json.dumps(decision)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReplayMismatchError, match="decision 0"):
        write_replay_html(path, out)
    with pytest.raises(ReplayError, match="a replay is a path"):
        write_replay_html(42, out)  # type: ignore[arg-type]
    assert not out.exists()


def test_replay_records_give_the_same_page_as_the_file(tmp_path: Path) -> None:
    path = played_replay("flotilla", tmp_path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    a = write_replay_html(path, tmp_path / "a.html").read_text(encoding="utf-8")
    b = write_replay_html(records, tmp_path / "b.html").read_text(encoding="utf-8")
    assert a == b


def test_every_ruleset_has_a_picture() -> None:
    assert sorted(RULESETS) == ruleset_ids()


def test_a_value_0_choice_is_named_by_its_label_and_a_forced_no_op_is_left_out() -> None:
    match = Match("pantheon")
    match.reset(3)
    game, spec = match.game, match.action_spec
    agent = game.current_agent
    mask = game.legal_mask(agent)
    choices = chosen(spec, mask, [0] * len(spec.components))
    offered = {name for name, labels in legal_options(game, agent).items() if len(labels) > 1}
    assert offered and set(choices) == offered                     # what could be chosen, and only that
    assert all(choices[name] == spec.components[k].labels[0]
               for k, name in enumerate(c.name for c in spec.components) if name in choices)


def test_an_unfinished_game_is_shown_up_to_where_it_stops(tmp_path: Path) -> None:
    full = load_replay(played_replay("flotilla", tmp_path))
    lines = [json.loads(line) for line in (tmp_path / "flotilla.jsonl").read_text().splitlines()]
    kept = 4
    match = Match("flotilla")
    match.reset(full.header.seed)
    for decision in full.decisions[:kept]:
        match.game.apply(decision.agent, list(decision.action))
    result = {**lines[-1], "winner": None, "winner_captain": None, "truncated": False, "rounds": match.game.round,
              "decisions": kept, "state": match.game.state_dict()}
    movie = replay_movie([lines[0], *lines[1:1 + kept], result])
    assert len(movie.frames) == kept + 1
    assert movie.result == f"unfinished: the record stops in round {match.game.round} after {kept} decisions"
    page = replay_page(movie)
    assert "unfinished" in page


@pytest.mark.parametrize("ruleset", ["pantheon", "crew_phase", "flotilla"])
def test_square_boards_number_their_edges_from_0(ruleset: str) -> None:
    match = Match(ruleset)
    match.reset(1)
    scene = picture_of(match.game)
    columns = [s for s in scene.find("coordinate") if s.ref.startswith("x")]
    rows = [s for s in scene.find("coordinate") if s.ref.startswith("y")]
    assert columns and rows
    assert [t.text for t in columns][:2] in (["0", "1"], ["0", "2"], ["0", "3"])   # every square, or every k-th
    edge = scene.find("board-edge")[0]
    assert all(t.y < edge.y for t in columns) and all(t.x < edge.x for t in rows)  # in the margins
