"""Boarding, Melees, Grapples, Multiple and Reinforcing Melees (document). Red's galley at (10, 20) and blue's
sailing ship at (12.25, 20), both heading north: half an inch of sea between their sides.

Boarding dice: the defender's heroes' d10s then marines' d8s at once, then the attacker's one at a time.
Melee dice: the defender's heroes (d10), marines (d8), lieutenants, archers and crew (d6) at once, then the
attacker's one at a time."""

from __future__ import annotations

import pytest

from naval_env.rulesets.broadside.boarding import split_defenders
from naval_env.rulesets.broadside.events import (
    BoardingAttempt,
    Casualties,
    GrappleCut,
    MeleeFought,
    Reinforced,
    ShipLost,
    Withdrew,
)
from naval_env.rulesets.broadside.state import Party, Phase
from naval_env.testing import allowed_labels, script

from .helpers import act, decision, make_game, of, pass_until, ship

RED = [ship("galley", (10, 20), 0)]
BLUE = [ship("sailing_ship", (12.25, 20), 0)]


def to_boarding(red=RED, blue=BLUE, dice=(), grappled=False, **kwargs):
    """Everyone holds and keeps their archers; red holds the first BOARDING decision."""
    game = make_game(red, blue, dice=dice, **kwargs)
    if grappled:
        r, b = game.state.ships["red_0"], game.state.ships["blue_0"]
        r.grappled, b.grappled = ["blue_0"], ["red_0"]
        game._advance([])
    pass_until(game, "red_0", Phase.BOARDING)
    return game


def test_boarding_only_after_all_ships_have_moved():
    """'Resolve boarding only after ALL ships have completed their moves.'"""
    game = make_game(RED, BLUE)
    seen = []
    while game.state.phase is not Phase.BOARDING:
        seen.append(decision(game))
        act(game)
    assert seen == [("red_0", "MANEUVER"), ("red_0", "GUNNERY"), ("blue_0", "MANEUVER"), ("blue_0", "GUNNERY")]
    assert decision(game) == ("red_0", "BOARDING")


@pytest.mark.parametrize("x, reach", [(12.25, True), (12.75, True), (12.76, False)])
def test_ships_must_be_within_an_inch(x, reach):
    """'Ships must be within 1" of each other to attempt a boarding action.'"""
    game = make_game(RED, [ship("sailing_ship", (x, 20), 0)])
    if reach:
        pass_until(game, "red_0", Phase.BOARDING)
        assert "board@enemy0" in allowed_labels(game, "board")
    else:
        while not game.is_over and game.state.round == 1:
            assert decision(game) != ("red_0", "BOARDING") or allowed_labels(game, "board") == ["none"]
            act(game)


def test_the_boarding_dice_duel_exactly_as_written():
    """Defender 'rolls a d8 for each marine and a d10 for each hero ... all the dice at the same time'; the
    attacker 'rolls his dice one at time': lower is thrown back; a tie picks up the defender's die and the same
    marine rolls again; higher boards and the defender picks up his highest die; with no defenders left the rest
    board."""
    game = to_boarding()
    act(game, board="board@enemy0", boarders="all")          # 10 marines; the hero stays
    script(game, 7, 5, 8, 2, 3, 4, 1,                          # defender: hero 7; marines 5 8 2 3 4 1
           8, 6,                                               # 1st: ties the 8, rolls again: 6 < 7, thrown back
           8,                                                  # 2nd: 8 > 7, aboard
           5, 4, 5,                                            # 3rd: ties 5, ties 4, then 5 > 3, aboard
           1,                                                  # 4th: 1 < 2, thrown back
           3,                                                  # 5th: 3 > 2, aboard
           1)                                                  # 6th: ties the last die; none left: aboard
    events = act(game)                                         # blue declares nothing: the stage resolves
    [attempt] = of(events, BoardingAttempt)
    assert attempt == BoardingAttempt("red_0", "blue_0", 10, 0, (8, 7, 5, 4, 3, 2, 1),
                                      (8, 6, 8, 5, 4, 5, 1, 3, 1), 8, 2, False)
    red, blue = game.state.ships["red_0"], game.state.ships["blue_0"]
    assert (blue.boarders["red_0"].marines, red.people.marines) == (8, 2)
    assert red.grappled == ["blue_0"] and blue.grappled == ["red_0"]
    assert decision(game) == ("red_0", "MELEE")                # 'immediately roll to adjudicate the melee'


@pytest.mark.parametrize("heroes, first_die", [("board_first", 9), ("board_last", 4)])
def test_the_attacker_rolls_in_the_order_he_chooses(heroes, first_die):
    """'The attacking player rolls his dice one at time in any order he chooses (i.e. officer first, last or in
    the middle).' Heroes roll d10s: a 9 only fits the first die when the hero goes first."""
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=1)], blue=[ship("sailing_ship", (12.25, 20), 0,
                                                                                  marines=2, heroes=0)])
    act(game, board="board@enemy0", boarders="all", heroes=heroes)
    script(game, 8, 3, first_die, 9 if heroes == "board_last" else 4)
    [attempt] = of(act(game), BoardingAttempt)
    assert attempt.attacker_rolls == (first_die, 9 if heroes == "board_last" else 4)
    assert attempt.boarded == (2 if heroes == "board_first" else 1)


def test_grappled_ships_board_unopposed():
    """'When ships are grappled, boarding is unopposed - the attacking player can send as many marines / heroes as
    he would like onto the enemy vessel.'"""
    game = to_boarding(grappled=True)
    act(game, board="board@enemy0", boarders="half")
    [attempt] = of(act(game), BoardingAttempt)
    assert (attempt.marines, attempt.boarded, attempt.unopposed, attempt.defender_dice) == (5, 5, True, ())


@pytest.mark.parametrize("share, marines", [("quarter", 3), ("half", 5), ("three_quarters", 8), ("all", 10)])
def test_how_many_marines_board(share, marines):
    game = to_boarding(grappled=True)
    act(game, board="board@enemy0", boarders=share)
    [attempt] = of(act(game), BoardingAttempt)
    assert attempt.marines == marines


def test_boarding_is_simultaneous_each_side_defended_by_who_stayed_home():
    """'All boarding actions are considered simultaneous': each side sends its marines at once, so only the hero
    left at home defends each ship."""
    game = make_game(RED, BLUE)
    pass_until(game, "red_0", Phase.BOARDING)
    act(game, board="board@enemy0", boarders="all")
    script(game, 5, 6,          # blue's hero alone repels red: 6 > 5, the other nine walk on
           3, 2, 3)             # red's hero alone repels blue: 2 is thrown back, 3 ties, then nobody is left
    events = act(game, board="board@enemy0", boarders="all")
    attempts = of(events, BoardingAttempt)
    assert [(a.ship, a.defender_dice, a.attacker_rolls, a.boarded, a.thrown_back) for a in attempts] == [
        ("red_0", (5,), (6,), 10, 0),
        ("blue_0", (3,), (2, 3), 5, 1),
    ]
    red, blue = game.state.ships["red_0"], game.state.ships["blue_0"]
    assert (blue.boarders["red_0"].marines, red.boarders["blue_0"].marines) == (10, 5)
    assert (red.people.marines, blue.people.marines) == (0, 1)
    assert not of(events, ShipLost)                            # both still have officers at home


def test_defenders_are_assigned_to_each_boarding_action():
    """'If a ship is boarded by more than one ship, defenders must be assigned to a specific boarding action.'
    Ours: dealt one at a time, heroes first, to the largest attempt first."""
    assert split_defenders(5, 1, [3, 6]) == [(3, 0), (2, 1)]
    assert split_defenders(0, 0, [4]) == [(0, 0)]
    assert split_defenders(2, 0, []) == []


def test_two_ships_boarding_at_once_each_meet_their_share_of_the_defenders():
    red = [ship("galley", (10, 20), 0, marines=2), ship("galley", (14.5, 20), 0, marines=1)]
    blue = [ship("sailing_ship", (12.25, 20), 0, marines=2, heroes=1)]
    game = make_game(red, blue)
    pass_until(game, "red_0", Phase.BOARDING)
    act(game, board="board@enemy0", boarders="all")
    act(game)                                                  # blue
    script(game, 9, 8, 1, 1,                                   # red_0 (2 boarders) meets the hero and a marine
           2, 3)                                               # red_1 (1 boarder) meets the other marine
    events = act(game, board="board@enemy0", boarders="all")   # red_1
    assert [(a.ship, a.defender_dice, a.attacker_rolls, a.boarded) for a in of(events, BoardingAttempt)] == [
        ("red_0", (9, 8), (1, 1), 0), ("red_1", (2,), (3,), 1)]


def test_a_melee_exchange_exactly_as_written():
    """Defender: 'a d6 for each crew or archer, d8 for each marine and a d10 for each officer (excluding
    lieutenants)'; each attacker against the highest die: lower is removed, a tie stays (the defender picks up his
    die), higher removes a corresponding defender."""
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=2, archers=1, marines=2, lieutenants=1, heroes=1)]
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=4)], blue=blue, grappled=True)
    act(game, board="board@enemy0", boarders="all", heroes="board_last")    # unopposed: 4 marines and the hero
    act(game)
    assert decision(game) == ("red_0", "MELEE")
    script(game, 6, 7, 3, 2, 5, 4, 1,       # hero 6; marines 7 3; lieutenant 2; archer 5; crew 4 1
           8, 6, 2, 5, 9)                   # 8 > 7 kills the marine; 6 ties the hero; 2 < 5 dies; 5 ties; 9 > 4
    events = act(game, melee="fight")
    assert of(events, MeleeFought) == [MeleeFought("blue_0", (6, 7, 3, 2, 5, 4, 1), (8, 6, 2, 5, 9), 1, 2, 0)]
    assert of(events, Casualties) == [Casualties("blue_0", (("crew", 1), ("marines", 1)), "melee")]
    party = game.state.ships["blue_0"].boarders["red_0"]
    assert (party.marines, party.heroes) == (3, 1)


def test_a_tied_boarder_may_retreat_to_his_own_ship():
    """'If the dice tie, that attacker remains on deck, or retreats to his own ship. (Attacker's choice.)'"""
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=2, archers=1, marines=2, lieutenants=1, heroes=1)]
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=4)], blue=blue, grappled=True)
    act(game, board="board@enemy0", boarders="all", heroes="board_last")
    act(game)
    script(game, 6, 7, 3, 2, 5, 4, 1, 8, 6, 2, 5, 9)
    events = act(game, melee="fight", on_tie="retreat")
    [melee] = of(events, MeleeFought)
    assert (melee.attackers_lost, melee.defenders_lost, melee.retreated) == (1, 2, 2)
    assert game.state.ships["blue_0"].boarders["red_0"].marines == 1
    assert game.state.ships["red_0"].people.marines == 2


def test_heroes_first_in_the_melee():
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=0, archers=0, marines=1, lieutenants=0, heroes=1)]
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=1)], blue=blue, grappled=True)
    act(game, board="board@enemy0", boarders="all", heroes="board_last")
    act(game)
    assert allowed_labels(game, "melee") == ["fight", "fight_heroes_first", "withdraw"]
    script(game, 9, 2, 10, 3)               # hero 9, marine 2; our hero's d10 first: 10 > 9; marine 3 > 2
    events = act(game, melee="fight_heroes_first")
    assert of(events, MeleeFought)[0].attacker_rolls == (10, 3)
    assert of(events, ShipLost) == [ShipLost("blue_0", "prize", "red")]


def test_no_marines_or_officers_left_the_ship_is_a_prize():
    """'When the defending ship no longer has marines or officers, the ship (and any remaining crew) is a prize
    of the attacker.'"""
    blue = [ship("sailing_ship", (12.25, 20), 0, marines=0, lieutenants=0, heroes=0), ship("galley", (40, 8), 270)]
    game = to_boarding(blue=blue)
    act(game, board="board@enemy0", boarders="quarter")        # nobody to repel: unopposed
    events = act(game)
    events += act(game)                                        # blue_1 declares nothing
    assert of(events, ShipLost) == [ShipLost("blue_0", "prize", "red")]
    assert game.state.ships["red_0"].people.marines == 10      # the boarders come home
    assert game.state.ships["red_0"].grappled == []


def test_the_attacker_may_withdraw_without_further_casualties():
    """'The attacking player may withdraw to his ship at any time without suffering further casualties.'"""
    game = to_boarding(grappled=True)
    act(game, board="board@enemy0", boarders="half")
    act(game)
    events = act(game, melee="withdraw")
    assert of(events, Withdrew) == [Withdrew("red_0", "blue_0", 5, 0)]
    assert not of(events, MeleeFought)
    assert game.state.ships["red_0"].people.marines == 10
    assert of(events, GrappleCut) == [GrappleCut("blue_0", "red_0")]   # nobody aboard at the end of the turn


def test_grappled_while_boarders_remain_at_the_end_of_the_turn_and_neither_moves():
    """'If the turn ends with attacking marines and/or heroes on the enemy vessel, the ships are considered
    grappled.' 'When grappled, neither ship may move'."""
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=0, archers=0, marines=3, lieutenants=0, heroes=1)]
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=2)], blue=blue, grappled=True)
    act(game, board="board@enemy0", boarders="all")
    act(game)
    script(game, 9, 8, 8, 8, 1, 1)           # both boarders roll 1 against the hero's 9 and fall
    events = act(game, melee="fight")
    assert of(events, MeleeFought)[0].attackers_lost == 2
    assert of(events, GrappleCut) == [GrappleCut("blue_0", "red_0")]     # the defenders won: cut
    assert decision(game) == ("blue_0", "MANEUVER")                      # free to move in round 2


def test_grapple_holds_while_the_melee_goes_on():
    """'Ships remain grappled so long as one player is attempting a boarding action.'"""
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=0, archers=0, marines=3, lieutenants=0, heroes=1)]
    game = to_boarding(red=[ship("galley", (10, 20), 0, marines=2)], blue=blue, grappled=True)
    act(game, board="board@enemy0", boarders="all")
    act(game)
    script(game, 7, 3, 2, 1, 7, 1)           # hero 7, marines 3 2 1: the first boarder ties the 7 and stays;
    #                                          the second rolls 1 against the 3 and falls
    events = act(game, melee="fight")
    assert of(events, MeleeFought)[0].attackers_lost == 1
    assert not of(events, GrappleCut)
    assert game.state.round == 2
    seen = []
    while game.state.phase is not Phase.BOARDING:
        seen.append(decision(game))
        act(game)
    assert ("red_0", "MANEUVER") not in seen and ("blue_0", "MANEUVER") not in seen


def test_a_second_ship_boarding_a_ship_in_a_melee_meets_only_marines_and_heroes():
    """'If another ship attempts to board a ship involved in a melee or a boarding action, only defending marines
    or heroes may help repulse boarding actions or kill attackers.' 'After attackers are successfully on board a
    ship, all attackers are become one group to face the defenders.'"""
    red = [ship("galley", (10, 20), 0, marines=1), ship("galley", (14.5, 20), 0, marines=1)]
    blue = [ship("sailing_ship", (12.25, 20), 0, crew=5, archers=2, marines=1, lieutenants=1, heroes=0)]
    game = make_game(red, blue)
    for a in ("red_0", "red_1"):
        game.state.ships[a].grappled = ["blue_0"]
    game.state.ships["blue_0"].grappled = ["red_0", "red_1"]
    game._advance([])
    pass_until(game, "red_0", Phase.BOARDING)
    act(game, board="board@enemy0", boarders="all")            # both red ships board, unopposed
    assert decision(game) == ("blue_0", "BOARDING")
    act(game)
    assert decision(game) == ("red_1", "BOARDING")
    act(game, board="board@enemy0", boarders="all")
    assert decision(game) == ("red_0", "MELEE")
    act(game)
    script(game, 5, 6)                                         # only blue's marine rolls; red_0's marine beats it
    events = act(game)                                         # red_1's MELEE: now the melee is fought
    [melee] = of(events, MeleeFought)
    assert (melee.defender_dice, melee.attacker_rolls, melee.defenders_lost) == ((5,), (6,), 1)
    blue_0 = game.state.ships["blue_0"]
    assert not of(events, ShipLost) and blue_0.people.lieutenants == 1   # an officer still aboard: no prize yet
    assert blue_0.boarders["red_0"].marines == 1 and blue_0.boarders["red_1"].marines == 1


def test_friendly_ships_may_grapple_and_reinforce_a_melee():
    """'Ships may grapple friendly ships and reinforce marine strength in the melee.'"""
    blue = [ship("sailing_ship", (12.25, 20), 0), ship("galley", (14.5, 20), 0)]
    game = make_game(RED, blue)
    r, b = game.state.ships["red_0"], game.state.ships["blue_0"]
    r.grappled, b.grappled = ["blue_0"], ["red_0"]
    b.boarders["red_0"] = Party(marines=4)
    r.people.marines -= 4
    game._advance([])
    pass_until(game, "blue_1", Phase.BOARDING)
    assert "reinforce@ally0" in allowed_labels(game, "board")
    events = act(game, board="reinforce@ally0", boarders="half")
    assert of(events, Reinforced) == [Reinforced("blue_1", "blue_0", 5, 0)]
    assert (b.people.marines, game.state.ships["blue_1"].people.marines) == (6 + 5, 5)


def test_no_reinforcing_a_friend_that_is_not_in_a_melee():
    blue = [ship("sailing_ship", (12.25, 20), 0), ship("galley", (14.5, 20), 0)]
    game = make_game([ship("galley", (40, 8), 270)], blue)
    pass_until(game, "blue_1", Phase.MANEUVER)
    act(game)
    while not (game.current_agent == "blue_1" and game.state.phase is Phase.BOARDING) and game.state.round == 1:
        act(game)
    assert decision(game) != ("blue_1", "BOARDING") or "reinforce@ally0" not in allowed_labels(game, "board")
