"""Measure the size of new venvs (``du -sm``) for each Python given: the base install, and with ``[train]``.

    python tools/install_sizes.py dist/naval_tactics-*.whl python3.11 python3.12 python3.13

Packages come from pip's cache or the index, pinned by constraints.txt. For ``[train]`` torch goes in first,
pinned: from ``--torch-index`` when given (https://download.pytorch.org/whl/cpu, torch's CPU wheels), else
where pip finds it. When that would be a CUDA build (nothing offers the CPU wheel for this Python), the
``[train]`` venv gets every package but torch and the CUDA ones it brings (nvidia-*, triton, cuda-*), whose size is then
to be added from a Python where the CPU wheel installs. No CUDA build is installed, but pip's dry run still
downloads its wheels (2.7 GB for torch 2.13.0) to read their metadata where the index serves none apart.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
#: What torch's CUDA build brings besides torch (nvidia-*, triton, cuda-bindings and kin): left out when only the
#: CUDA build can be had.
CUDA_ONLY = ("nvidia-", "triton", "cuda-")


def du_mb(path: Path) -> int:
    return int(subprocess.run(["du", "-sm", str(path)], check=True, capture_output=True, text=True).stdout.split()[0])


def pip(env: Path, *args: str, capture: bool = False) -> str:
    done = subprocess.run([str(env / "bin" / "python"), "-m", "pip", *args], check=True, text=True,
                          stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.PIPE)
    return done.stdout or ""


def new_venv(python: str, where: Path) -> Path:
    subprocess.run([python, "-m", "venv", str(where)], check=True)
    return where


def torch_pin() -> str:
    return next(line for line in CONSTRAINTS.read_text().splitlines() if line.startswith("torch=="))


def resolved(env: Path, *requirements: str, extra: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """``(name, version)`` of everything pip would install for ``requirements`` (a dry run: nothing fetched
    beyond metadata)."""
    report = pip(env, "install", "--dry-run", "--quiet", "--ignore-installed", "--report", "-",
                 "-c", str(CONSTRAINTS), *extra, *requirements, capture=True)
    return [(item["metadata"]["name"], item["metadata"]["version"]) for item in json.loads(report)["install"]]


def measure(python: str, wheel: Path, torch_index: str | None, work: Path) -> list[str]:
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             check=True, capture_output=True, text=True).stdout.strip()
    lines = []
    base = new_venv(python, work / "base")
    pip(base, "install", "--quiet", "-c", str(CONSTRAINTS), str(wheel))
    lines.append(f"Python {version}: base {du_mb(base)} MB")
    train = new_venv(python, work / "train")
    index = ("--index-url", torch_index) if torch_index else ()
    torch = dict(resolved(train, torch_pin(), extra=index))
    cpu = not any(name.startswith(CUDA_ONLY) for name in torch)
    if cpu:
        pip(train, "install", "--quiet", *index, torch_pin())
        pip(train, "install", "--quiet", "-c", str(CONSTRAINTS), f"{wheel}[train]")
        lines.append(f"Python {version}: [train] {du_mb(train)} MB with torch {torch['torch']}")
    else:
        keep = [str(wheel) if name == "naval-tactics" else f"{name}=={v}"
                for name, v in resolved(train, f"{wheel}[train]") if name != "torch" and not name.startswith(CUDA_ONLY)]
        pip(train, "install", "--quiet", "--no-deps", *keep)
        lines.append(f"Python {version}: [train] without torch {du_mb(train)} MB (pip finds only torch "
                     f"{torch['torch']}'s CUDA build here: {sum(n.startswith(CUDA_ONLY) for n in torch)} "
                     "nvidia/triton/cuda packages; left out)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="the naval-tactics wheel to install")
    parser.add_argument("pythons", nargs="+", help="interpreters to make the venvs with (python3.12, ...)")
    parser.add_argument("--torch-index", help="index torch is installed from (default: where pip finds it)")
    args = parser.parse_args(argv)
    for python in args.pythons:
        with tempfile.TemporaryDirectory() as work:
            for line in measure(python, args.wheel.resolve(), args.torch_index, Path(work)):
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
