"""One tournament on each backend, side by side: 1 local process, local worker processes, Ray actors.

Every run plays the same schedule (a round robin of ``--captains``, ``--games`` seeds per pairing,
each from both sides) and must return the same results game for game; the bench checks that and
prints games per second of wall time with the ratio to the 1-process run. The pool's and the
actors' start-up (spawned interpreters importing the package, captains loaded) is inside their
times, as a user pays it; starting Ray itself is timed apart, since a cluster is joined once.
Wall time on a shared machine moves with the load, so the load average is printed beside it.

    python bench/tournament_backends.py                       # pantheon duel, scripted captains, 2 workers
    python bench/tournament_backends.py --games 200 --workers 2 --captains zoo gunner rammer
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from naval_agents.distributed.ray_runtime import ray_session
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import Tournament, build_tournament, run_tournament


def timed(play: Callable[[], list[GameResult]]) -> tuple[float, list[GameResult]]:
    start = time.perf_counter()
    results = play()
    return time.perf_counter() - start, results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="pantheon")
    parser.add_argument("--scenario", default="duel")
    parser.add_argument("--captains", nargs="+", default=["random", "gunner", "rammer"])
    parser.add_argument("--games", type=int, default=50, help="seeds per pairing (each played from both sides)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes and Ray actors")
    args = parser.parse_args(argv)

    tournament: Tournament = build_tournament(args.ruleset, args.captains, args.games, scenario=args.scenario)
    games = len(tournament.pairings) * args.games * 2
    print(f"{args.ruleset} {args.scenario}: {', '.join(args.captains)}, {len(tournament.pairings)} pairings x "
          f"{args.games} seeds x 2 sides = {games} games; {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the start")
    rows: list[tuple[str, float]] = []
    seconds, reference = timed(lambda: run_tournament(tournament, workers=1, progress=False))
    rows.append(("local, 1 process", seconds))
    seconds, pooled = timed(lambda: run_tournament(tournament, workers=args.workers, progress=False))
    rows.append((f"local, {args.workers} worker processes", seconds))
    started = time.perf_counter()
    with ray_session(num_cpus=args.workers):
        ray_start = time.perf_counter() - started
        seconds, on_ray = timed(lambda: run_tournament(tournament, workers=args.workers, progress=False,
                                                       backend="ray"))
    rows.append((f"ray, {args.workers} actors", seconds))
    same = pooled == reference and on_ray == reference
    print(f"{'backend':<28} {'seconds':>8} {'games/s':>8} {'vs 1 process':>13}")
    for name, seconds in rows:
        print(f"{name:<28} {seconds:8.2f} {games / seconds:8.1f} {rows[0][1] / seconds:12.2f}x")
    print(f"starting the local Ray took {ray_start:.1f} s (not in its row); load average "
          f"{os.getloadavg()[0]:.1f} at the end; same results game for game: {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit("the backends disagree: a determinism bug")


if __name__ == "__main__":
    main()
