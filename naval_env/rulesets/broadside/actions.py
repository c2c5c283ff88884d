"""The `broadside` action codec: named MultiDiscrete components and what each value means.

Every decision uses the same MultiDiscrete action; components that do not belong to
the current decision (see ``state.Phase``) are masked to value 0, so each component's
mask is exact on its own. Target slots are ships in side order (enemies; for
reinforcing, the captain's own other ships).
"""

from __future__ import annotations

from dataclasses import dataclass

from naval_env.core.spaces import ActionComponent, ActionSpec
from naval_env.rulesets.broadside.config import BroadsideConfig
from naval_env.rulesets.broadside.geometry import Battery
from naval_env.rulesets.broadside.state import Speed

#: Share of the marines at home a boarding sends (value 0 sends none).
BOARDER_SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
BOARDER_LABELS = ("none", "quarter", "half", "three_quarters", "all")
HERO_LABELS = ("stay", "board_first", "board_last")
MELEE_LABELS = ("fight", "fight_heroes_first", "withdraw")
TIE_LABELS = ("stay", "retreat")

HEROES_STAY, HEROES_FIRST, HEROES_LAST = 0, 1, 2
MELEE_FIGHT, MELEE_HEROES_FIRST, MELEE_WITHDRAW = 0, 1, 2


def _turn_label(degrees: float) -> str:
    if degrees == 0:
        return "straight"
    return f"{'port' if degrees < 0 else 'starboard'} {abs(degrees):g}"


@dataclass(frozen=True)
class BroadsideActions:
    """Component indices and lookup tables for one config."""

    spec: ActionSpec
    turn_choices: tuple[float, ...]
    max_enemies: int
    max_allies: int
    speed: int
    turns: tuple[int, ...]
    batteries: dict[Battery, int]
    archers: int
    board: int
    boarders: int
    heroes: int
    melee: int
    on_tie: int

    def board_target(self, value: int) -> tuple[str, int] | None:
        """("enemy" | "ally", slot) of a ``board`` value; None for value 0."""
        if value == 0:
            return None
        if value <= self.max_enemies:
            return "enemy", value - 1
        return "ally", value - 1 - self.max_enemies


def build_actions(config: BroadsideConfig) -> BroadsideActions:
    rules = config.house_rules
    n = rules.max_ships_per_side
    turns = config.turn_choices
    enemies = tuple(f"enemy{i}" for i in range(n))
    components = [
        ActionComponent("speed", tuple(s.name.lower() for s in Speed),
                        "MANEUVER: speed for the whole turn (hold, cruising, battle, ramming)"),
        *(
            ActionComponent(f"turn_{gap}", tuple(_turn_label(t) for t in turns),
                            f"MANEUVER: turn in place between legs {gap} and {gap + 1} (degrees, port or starboard)")
            for gap in range(1, rules.legs_per_turn)
        ),
        *(
            ActionComponent(battery.value, ("hold", *(f"fire@{e}" for e in enemies)),
                            f"GUNNERY: the {battery.value} battery's target, or hold fire")
            for battery in (Battery.PORT, Battery.STARBOARD, Battery.TURRET)
        ),
        ActionComponent("archers", ("hold", *(f"shoot@{e}" for e in enemies)),
                        "GUNNERY or BOARDING: archers' target now (hold: keep them for the melee phase)"),
        ActionComponent("board", ("none", *(f"board@{e}" for e in enemies),
                                  *(f"reinforce@ally{i}" for i in range(n - 1))),
                        "COLLISION_BOARD or BOARDING: ship to board, or a friend in a melee to reinforce"),
        ActionComponent("boarders", BOARDER_LABELS, "share of the marines at home that go (rounded up)"),
        ActionComponent("heroes", HERO_LABELS, "heroes stay, or go and roll first or last"),
        ActionComponent("melee", MELEE_LABELS, "MELEE: fight on (heroes last or first) or withdraw every boarder"),
        ActionComponent("on_tie", TIE_LABELS, "MELEE: a boarder whose die ties stays on deck or goes home"),
    ]
    names = [c.name for c in components]
    return BroadsideActions(
        spec=ActionSpec(tuple(components)),
        turn_choices=turns,
        max_enemies=n,
        max_allies=n - 1,
        speed=names.index("speed"),
        turns=tuple(names.index(f"turn_{gap}") for gap in range(1, rules.legs_per_turn)),
        batteries={b: names.index(b.value) for b in (Battery.PORT, Battery.STARBOARD, Battery.TURRET)},
        archers=names.index("archers"),
        board=names.index("board"),
        boarders=names.index("boarders"),
        heroes=names.index("heroes"),
        melee=names.index("melee"),
        on_tie=names.index("on_tie"),
    )
