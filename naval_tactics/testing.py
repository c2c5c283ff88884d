"""Helpers for tests and benches of the outward layer: a real server on a free loopback port, a tiny
ONNX captain made in seconds. Nothing here runs unless a test or bench calls it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from naval_env.core.ruleset import get_ruleset


@contextmanager
def serve_in_thread(app: FastAPI, host: str = "127.0.0.1", timeout: float = 20.0) -> Iterator[str]:
    """Run ``app`` with uvicorn in a daemon thread on a free port of ``host`` (port 0: the system picks
    one, so no race with other processes); yields its base URL.

    uvicorn binds the socket itself: a socket handed in through ``sockets=`` gets connections without
    TCP_NODELAY, and the response's second write then waits ~40 ms for a delayed ACK.
    """
    # the HTTP layer `serve` runs (its parse-failure 400s in the JSON error shape)
    from naval_tactics.server.http11 import PROTOCOL

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=0, log_level="warning", access_log=False,
                                           http=PROTOCOL))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on {host} within {timeout} s")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def export_tiny_captain(folder: Path, ruleset_id: str = "pantheon", name: str = "tiny", steps: int = 0) -> Path:
    """A throwaway MaskablePPO (32x32 net, trained ``steps`` steps: none by default) exported to
    ``folder/<name>.onnx`` with its sidecar: a real exported captain, its probabilities spread, for tests."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import naval_env  # noqa: F401 - registers the Gymnasium ids
    from naval_agents.export.onnx_export import export_run

    ruleset = get_ruleset(ruleset_id)
    run = Path(folder) / "runs" / name
    run.mkdir(parents=True)
    model = MaskablePPO("MlpPolicy", gym.make(ruleset.gym_id), n_steps=64, batch_size=64, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [32, 32]})
    if steps:
        model.learn(steps)
    model.save(run / "final_model.zip")
    manifest = {"ruleset": ruleset_id, "ruleset_version": ruleset.version, "scenario": None, "name": name,
                "created": None, "seed": 0, "versions": {}, "train_config": {"total_timesteps": steps}}
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return export_run(run, Path(folder) / f"{name}.onnx").onnx_path
