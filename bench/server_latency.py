"""The captain server's cost, in one run: ``decide`` over loopback next to the same call in process,
decisions/s with 16 concurrent clients, the server's memory over 10,000 games, plain decides while
searches run, and whole games with 16 clients on 1 and 2 worker processes side by side.

The server runs as ``python -m naval_tactics serve`` in its own process (one uvicorn worker unless
said, games kept in an SQLite store file in a temp folder, the default), on
127.0.0.1, with a throwaway ONNX captain exported into a temp folder (an untrained 32x32
MaskablePPO: a real graph and sidecar, the size of a small trained captain). Requests carry real positions: every decision of random
``pantheon`` games, in their full form.

1. Latency, one client, keep-alive: ``POST /v1/decide`` for the scripted ``gunner`` and the ONNX
   captain, alternating with the in-process call the route makes (load the position, ask the
   captain, name its move: ``naval_tactics.server.play.decide``). Targets: loopback p50 <= 5 ms,
   p99 <= 20 ms.
2. Throughput: 16 client threads, each with its own connection, send ``decide`` for ``gunner``
   as fast as answers come. Target: >= 200 decisions/s on 2 cores, zero errors.
3. Memory: the server's resident set (``/proc/<pid>/status`` VmRSS) before and after 10,000 games,
   each created, moved a few times by a captain and then deleted (half) or abandoned to the idle
   limit (half, dropped when room is needed). Target: flat (the kept games are bounded; the table
   of dropped ids, kept to say why a game is gone, is bounded at 10,000 ids, about 1.5 MB).
4. Searches: a plain ``decide`` (gunner)'s p50 alone, then while 8 clients each keep asking
   ``expert:2000ms``. The searches run in the server's search processes, at low CPU priority.
   Target: p50 under searches within 2x of alone (in the server's thread pool it was about 8x).
5. Workers: whole games (create, the app's moves by label, ``gunner``'s captain-moves, delete) by 16
   clients for a fixed time (:mod:`game_load`: asyncio tasks speaking HTTP/1.1 over keep-alive
   connections, in 2 processes, so the load takes little of the cores it shares with the server),
   against ``serve --store memory`` (the old single process, for reference), then ``--workers 1`` and
   ``--workers 2`` over one store file, one after the other. Each row has the server's CPU per decision
   (every process of the server) and the clients' own, and the last line the ceiling those imply on
   this machine's cores. Targets: 2 workers >= 1.5x one worker's decisions/s, p99 <= 50 ms, zero
   errors. The load average is printed before each: other jobs on the machine take cores from both.

    python bench/server_latency.py [--decisions 1000] [--games 10000] [--clients 16]
                                   [--sections latency,throughput,memory,searches,workers]
                                   [--seconds 20] [--client-processes 2]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import game_load
import httpx
import numpy as np

from naval_env.core.moves import encode, legal_options
from naval_env.core.ruleset import get_ruleset
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import play
from naval_tactics.testing import export_tiny_captain

RULESET = "pantheon"
TARGET_P50_MS, TARGET_P99_MS, TARGET_RATE = 5.0, 20.0, 200.0
REPO = Path(__file__).resolve().parents[1]


def positions(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """Every decision's position of random-label pantheon games, until ``count``."""
    ruleset = get_ruleset(RULESET)
    config = ruleset.load_config()
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    game_seed = seed
    while len(found) < count:
        game = ruleset.new_game(config, seed=game_seed)
        game_seed += 1
        while not game.is_over and len(found) < count:
            found.append(game.position())
            agent = game.current_agent
            move = {c: rng.choice(labels) for c, labels in legal_options(game).items()}
            game.apply(agent, encode(game.action_spec, move, game.legal_mask(agent)))
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(captains_dir: Path, port: int, idle_seconds: float, max_games: int, store: Path | str,
                 workers: int = 1) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "naval_tactics", "serve", "--port", str(port), "--captains-dir", str(captains_dir),
         "--idle-seconds", str(idle_seconds), "--max-games", str(max_games), "--log-level", "warning",
         "--store", str(store), "--workers", str(workers)], env=env)
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).raise_for_status()
            return process
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start") from None
            time.sleep(0.2)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (``/proc/<pid>/stat`` fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    return float(np.percentile(samples_ms, 50)), float(np.percentile(samples_ms, 99))


# ------------------------------------------------------------------ 1. latency
def latency(http: httpx.Client, catalogue: Catalogue, captain: str, bodies: list[dict[str, Any]], server: int,
            rounds: int = 2) -> tuple[list[float], list[float], float, float]:
    """Milliseconds per decision over loopback and in process, in alternating rounds; and the CPU
    milliseconds per loopback decision spent by the server process and by this client."""
    for body in bodies[:50]:  # warm both paths
        http.post("/v1/decide", json={**body, "captain": captain}).raise_for_status()
        play.decide(catalogue, RULESET, body["position"], captain, None, None)
    wire: list[float] = []
    local: list[float] = []
    server_cpu = client_cpu = 0.0
    for _ in range(rounds):
        server_start, client_start = cpu_seconds(server), time.process_time()
        for body in bodies:
            start = time.perf_counter()
            response = http.post("/v1/decide", json={**body, "captain": captain})
            wire.append((time.perf_counter() - start) * 1000)
            response.raise_for_status()
        server_cpu += cpu_seconds(server) - server_start
        client_cpu += time.process_time() - client_start
        for body in bodies:
            start = time.perf_counter()
            play.decide(catalogue, RULESET, body["position"], captain, None, None)
            local.append((time.perf_counter() - start) * 1000)
    return wire, local, server_cpu * 1000 / len(wire), client_cpu * 1000 / len(wire)


# ------------------------------------------------------------------ 2. throughput
def throughput(url: str, bodies: list[dict[str, Any]], clients: int, per_client: int,
               server: int) -> tuple[float, int, int, float]:
    """(decisions/s, answered, errors, server CPU ms per decision) with ``clients`` threads each sending
    ``per_client`` decides."""
    errors = [0] * clients
    answered = [0] * clients
    barrier = threading.Barrier(clients + 1)

    def client(index: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            http.get("/v1/health")  # connect before the clock starts
            barrier.wait()
            for i in range(per_client):
                body = bodies[(index * per_client + i) % len(bodies)]
                try:
                    ok = http.post("/v1/decide", json={**body, "captain": "gunner"}).status_code == 200
                except httpx.HTTPError:
                    ok = False
                answered[index] += ok
                errors[index] += not ok

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start, server_start = time.perf_counter(), cpu_seconds(server)
    for thread in threads:
        thread.join()
    elapsed, server_cpu = time.perf_counter() - start, cpu_seconds(server) - server_start
    done = sum(answered)
    return done / elapsed, done, sum(errors), server_cpu * 1000 / max(done, 1)


# ------------------------------------------------------------------ 3. memory
def churn(url: str, games: int, workers: int, pid: int) -> list[tuple[int, float]]:
    """Create ``games`` games (each moved three times by captains), delete every other one and leave the
    rest to the idle limit; the server's RSS every tenth of the way."""
    marks: list[tuple[int, float]] = [(0, rss_mb(pid))]
    done = [0]
    lock = threading.Lock()
    step = max(games // 10, 1)

    def worker(index: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            for n in range(index, games, workers):
                created = http.post("/v1/games", json={"ruleset": RULESET, "seed": n})
                if created.status_code == 429:  # full of live games: wait for the idle limit
                    time.sleep(float(created.headers.get("retry-after", "1")))
                    created = http.post("/v1/games", json={"ruleset": RULESET, "seed": n})
                created.raise_for_status()
                game_id = created.json()["id"]
                for _ in range(3):
                    answer = http.post(f"/v1/games/{game_id}/captain-moves", json={"captain": "gunner"})
                    if answer.status_code == 409:  # over already
                        break
                    answer.raise_for_status()
                if n % 2 == 0:
                    http.delete(f"/v1/games/{game_id}").raise_for_status()
                with lock:
                    done[0] += 1
                    if done[0] % step == 0:
                        marks.append((done[0], rss_mb(pid)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return marks


# ------------------------------------------------------------------ 4. searches
def under_searches(url: str, bodies: list[dict[str, Any]], searchers: int, think_ms: int,
                   decides: int) -> tuple[list[float], list[float], int, int]:
    """Plain ``decide`` milliseconds alone, then while ``searchers`` clients keep asking ``expert:<think_ms>ms``;
    and the searches answered and refused meanwhile."""
    def timed(http: httpx.Client) -> list[float]:
        samples = []
        for body in bodies[:decides]:
            start = time.perf_counter()
            http.post("/v1/decide", json={**body, "captain": "gunner"}).raise_for_status()
            samples.append((time.perf_counter() - start) * 1000)
        return samples

    stop = threading.Event()
    answered, refused = [0], [0]

    def searcher(index: int) -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            while not stop.is_set():
                body = bodies[index % len(bodies)]
                answer = http.post("/v1/decide", json={**body, "captain": f"expert:{think_ms}ms"})
                if answer.status_code == 200:
                    answered[0] += 1
                else:
                    refused[0] += 1
                    time.sleep(float(answer.headers.get("retry-after", "1")))

    with httpx.Client(base_url=url, timeout=60) as http:
        timed(http)   # warm
        alone = timed(http)
        threads = [threading.Thread(target=searcher, args=(i,)) for i in range(searchers)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)   # every searcher has asked
        loaded = timed(http)
        stop.set()
    for thread in threads:
        thread.join()
    return alone, loaded, answered[0], refused[0]


# ------------------------------------------------------------------ 5. workers
def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and every process under it (a server's workers and search processes)."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += cpu_seconds(current)
            todo.extend(int(child) for task in Path(f"/proc/{current}/task").iterdir()
                        for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def settle(pid: int, quiet_cpu_s: float = 0.02, every_s: float = 0.5, longest_s: float = 90.0) -> None:
    """Wait until the server (every process under ``pid``) is idle: its workers and their search processes
    started (health answers once one worker does), so their start-up is not counted as serving."""
    deadline = time.monotonic() + longest_s
    before = tree_cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(every_s)
        now = tree_cpu_seconds(pid)
        if now - before <= quiet_cpu_s:
            return
        before = now


def compare_workers(captains: Path, folder: Path, clients: int, seconds: float, processes: int) -> None:
    rows = []
    for workers, store in ((1, "memory"), (1, folder / "workers1.sqlite3"), (2, folder / "workers2.sqlite3")):
        port = free_port()
        server = start_server(captains, port, idle_seconds=60, max_games=1000, store=store, workers=workers)
        try:
            settle(server.pid)
            load = os.getloadavg()[0]
            server_start = tree_cpu_seconds(server.pid)
            result = game_load.whole_games("127.0.0.1", port, clients, seconds, processes)
            server_cpu = tree_cpu_seconds(server.pid) - server_start
            p50, p99 = percentiles(result.samples_ms)
            per = max(result.decisions, 1)
            rows.append((workers, "memory" if store == "memory" else "file", result.decisions / seconds, p50, p99,
                         result.errors, server_cpu * 1000 / per, result.cpu_seconds * 1000 / per, load))
        finally:
            server.terminate()
            server.wait(30)
    print(f"{'workers':>9}{'store':>8}{'decisions/s':>13}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
          f"{'server CPU ms':>15}{'client CPU ms':>15}{'load avg':>10}")
    print(f"{'':>62}{'per decision':>15}{'per decision':>15}{'before':>10}")
    for workers, kind, rate, p50, p99, errors, server_ms, client_ms, load in rows:
        print(f"{workers:>9}{kind:>8}{rate:>13.0f}{p50:>9.1f}{p99:>9.1f}{errors:>8}{server_ms:>15.2f}{client_ms:>15.2f}"
              f"{load:>10.1f}")
    one, two = rows[1], rows[2]
    ratio = two[2] / one[2]
    met = ratio >= 1.5 and two[4] <= 50 and two[5] == 0
    cores = os.cpu_count() or 1
    ceiling = cores * 1000 / (two[6] + two[7])
    print(f"   2 workers / 1 worker: {ratio:.2f}x   {'meets' if met else 'MISSES'} the target (>= 1.5x, p99 <= 50 ms, "
          f"zero errors)")
    print(f"   on {cores} cores shared with the clients: at these CPU costs per decision (server {two[6]:.2f} ms + "
          f"client {two[7]:.2f} ms) the machine's ceiling is {ceiling:.0f} decisions/s, {ceiling / one[2]:.2f}x "
          "one worker's rate")


def single_server_sections(args: argparse.Namespace, sections: set[str], bodies: list[dict[str, Any]],
                           captains: Path, folder: Path) -> None:
    """Sections 1-4, on one server (one worker, an SQLite store in ``folder``)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(captains, port, idle_seconds=2.0, max_games=500, store=folder / "games.sqlite3")
    try:
        catalogue = Catalogue.load(captains)
        size = sum(len(str(b["position"])) for b in bodies) / len(bodies)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"server: python -m naval_tactics serve (one uvicorn worker, h11, SQLite store), pid {server.pid}; "
              f"{len(bodies)} real {RULESET} positions (~{size:.0f} bytes each)")
        print(f"machine: {os.cpu_count()} cores, load average {load} (1, 5, 15 min) before the run")
        if "latency" in sections:
            print("\n1. decide latency, one client, keep-alive (ms per decision; in-process = the route's own call)")
            print(f"{'captain':<10}{'path':<12}{'p50':>8}{'p99':>8}")
            with httpx.Client(base_url=url, timeout=60) as http:
                for captain in ("gunner", "tiny"):
                    wire, local, server_ms, client_ms = latency(http, catalogue, captain, bodies, server.pid)
                    (w50, w99), (l50, l99) = percentiles(wire), percentiles(local)
                    print(f"{captain:<10}{'loopback':<12}{w50:>8.2f}{w99:>8.2f}")
                    print(f"{'':<10}{'in-process':<12}{l50:>8.2f}{l99:>8.2f}")
                    verdict = "meets" if w50 <= TARGET_P50_MS and w99 <= TARGET_P99_MS else "MISSES"
                    print(f"{'':<10}{'ratio':<12}{w50 / l50:>7.1f}x{w99 / l99:>7.1f}x   {verdict} the target "
                          f"(loopback p50 <= {TARGET_P50_MS:g} ms, p99 <= {TARGET_P99_MS:g} ms)")
                    print(f"{'':<10}CPU per loopback decision: server {server_ms:.2f} ms + client {client_ms:.2f} ms "
                          "(what a decision costs without other jobs' queues)")

        if "throughput" in sections:
            print(f"\n2. throughput, {args.clients} concurrent clients x {args.per_client} decides (gunner), "
                  f"{os.cpu_count()} cores shared by server and clients")
            rate, answered, errors, per_decision = throughput(url, bodies, args.clients, args.per_client,
                                                              server.pid)
            verdict = "meets" if rate >= TARGET_RATE and errors == 0 else "MISSES"
            print(f"   {rate:.0f} decisions/s, {answered} answered, {errors} errors   {verdict} the target "
                  f"(>= {TARGET_RATE:g}/s, zero errors)")
            print(f"   server CPU {per_decision:.2f} ms per decision: one core of its own serves "
                  f"{1000 / per_decision:.0f} decisions/s (one process, one core at most: the GIL)")

        if "memory" in sections:
            print(f"\n3. server memory over {args.games} games (each created, 3 captain moves, then deleted or "
                  "left to the 2 s idle limit; at most 500 kept)")
            marks = churn(url, args.games, workers=8, pid=server.pid)
            print("   " + ", ".join(f"{n}: {mb:.1f} MB" for n, mb in marks))
            warm = next((mb for n, mb in marks if n >= args.games // 10), marks[0][1])
            growth = marks[-1][1] - warm
            print(f"   after the first tenth {warm:.1f} MB, at the end {marks[-1][1]:.1f} MB: "
                  f"{growth:+.1f} MB over the last {args.games - args.games // 10} games "
                  f"({'flat' if abs(growth) < 0.1 * warm else 'GROWING'})")
            health = httpx.get(f"{url}/v1/health").json()
            print(f"   games kept at the end: {health['games']} (max {health['max_games']})")
        if "searches" in sections:
            print(f"\n4. plain decide (gunner) p50 alone and while {args.searchers} clients keep asking "
                  f"expert:{args.think_ms}ms (searches in the server's search processes)")
            alone, loaded, answered, refused = under_searches(url, bodies, args.searchers, args.think_ms, 300)
            (a50, a99), (s50, s99) = percentiles(alone), percentiles(loaded)
            verdict = "meets" if s50 <= 2 * a50 else "MISSES"
            print(f"   alone p50 {a50:.2f} ms, p99 {a99:.2f} ms; under searches p50 {s50:.2f} ms, p99 {s99:.2f} ms: "
                  f"{s50 / a50:.1f}x   {verdict} the target (<= 2x)")
            print(f"   searches meanwhile: {answered} answered, {refused} refused (503, retried after Retry-After); "
                  f"load average {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1000, help="decisions timed per captain and path per round")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--per-client", type=int, default=150, help="decides each concurrent client sends")
    parser.add_argument("--games", type=int, default=10_000, help="games created for the memory check")
    parser.add_argument("--searchers", type=int, default=8, help="clients asking expert:<think-ms>ms in section 4")
    parser.add_argument("--think-ms", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each whole-game load in section 5")
    parser.add_argument("--client-processes", type=int, default=2, help="processes the section 5 clients run in")
    parser.add_argument("--sections", default="latency,throughput,memory,searches,workers")
    args = parser.parse_args()
    sections = set(args.sections.split(","))

    bodies = [{"ruleset": RULESET, "position": p} for p in positions(args.decisions)]
    with tempfile.TemporaryDirectory() as tmp:
        captains = Path(tmp) / "captains"
        export_tiny_captain(Path(tmp) / "build", name="tiny")
        captains.mkdir()
        for suffix in (".onnx", ".json"):
            (captains / f"tiny{suffix}").write_bytes((Path(tmp) / "build" / f"tiny{suffix}").read_bytes())
        if sections - {"workers"}:
            single_server_sections(args, sections, bodies, captains, Path(tmp))
        if "workers" in sections:
            print(f"\n5. whole games, {args.clients} clients (asyncio, raw HTTP/1.1 keep-alive) in "
                  f"{args.client_processes} processes, {args.seconds:g} s each: serve --store memory, then "
                  "--workers 1 and --workers 2 over one SQLite store")
            compare_workers(captains, Path(tmp), args.clients, args.seconds, args.client_processes)


if __name__ == "__main__":
    main()
