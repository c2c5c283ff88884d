"""The command starts fast and reads flags exactly: ``--help`` and ``list`` import neither the server nor
(for ``--help``) the rules; no parser takes an abbreviated flag; ``serve`` on a busy port says so before it
shows a URL to open."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from naval_tactics import cli
from tests.helpers import every_parser

REPO = Path(__file__).resolve().parents[2]

#: Runs the command in a fresh interpreter, then prints which packages it had imported.
PROBE = """
import json, sys
from naval_tactics.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in
      ("naval_env", "torch", "fastapi", "onnxruntime", "gymnasium") or m.startswith("naval_tactics.server"))))
"""


def imported_by(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_help_imports_no_rules_no_server_no_torch() -> None:
    assert imported_by("--help") == set()
    assert imported_by("play", "--help") == set()


def test_list_imports_the_rules_but_not_the_server_nor_torch() -> None:
    loaded = imported_by("list")
    assert "naval_env.core.ruleset" in loaded
    assert not {m for m in loaded if m.startswith(("naval_tactics.server", "fastapi", "torch"))}


def test_the_rulesets_named_before_import_are_the_registrys() -> None:
    code = ("from naval_tactics import cli; before = cli.ruleset_ids(); import naval_env; "
            "from naval_env.core.ruleset import ruleset_ids; print(before == ruleset_ids() != [], before)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=True)
    assert done.stdout.startswith("True "), done.stdout


def test_serve_gets_its_flags_when_asked_for() -> None:
    args = cli.build_parser(["serve", "--port", "9"]).parse_args(["serve", "--port", "9"])
    assert args.port == 9 and args.host == "127.0.0.1"
    help_text = cli.build_parser().format_help()   # the whole parser, as the docs and the flag tests read it
    assert "serve" in help_text


def test_no_parser_takes_an_abbreviated_flag(capsys: pytest.CaptureFixture[str]) -> None:
    lax = [name for name, parser in every_parser() if parser.allow_abbrev]
    assert lax == []
    with pytest.raises(SystemExit) as stopped:   # --captain is not --captains
        cli.main(["watch", "--ruleset", "pursuit", "--captain", "random", "hunter"])
    assert stopped.value.code == 2 and "--captains" in capsys.readouterr().err
    from naval_tactics.commands import evaluate

    with pytest.raises(SystemExit) as stopped:   # --game is not --games
        evaluate.main(["--ruleset", "pursuit", "--captains", "random", "hunter", "--game", "3"])
    assert stopped.value.code == 2 and "--game" in capsys.readouterr().err


def test_serve_on_a_busy_port_fails_before_showing_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port), "--store", "memory"]) == 2
    err = capsys.readouterr().err
    assert f"error: --port {port}: cannot listen on 127.0.0.1:{port}" in err and "choose another --port" in err
    assert "play in the browser" not in err
