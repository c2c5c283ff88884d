# Two entry points for a fresh machine: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pytest-xdist workers for `make test`: one per core (`make test WORKERS=0` runs in one process).
WORKERS ?= auto

# Debian packages the tests use: chromium + its WebDriver (the HTML replay test), node (the Node.js client
# example) and a font for screenshots. Installed with apt-get when missing (as root, as CI runs); otherwise
# the command to run is printed.
SYSTEM_PACKAGES := chromium chromium-driver nodejs fonts-dejavu-core
SYSTEM_COMMANDS := chromium chromedriver node

.PHONY: setup system-packages demo test test-fast lint typecheck test-min test-sb3-stock bench screenshots clean

setup: $(STAMP)

system-packages:
	@missing=""; for c in $(SYSTEM_COMMANDS); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages for:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SYSTEM_PACKAGES); \
	  else echo "error: run as root: apt-get install $(SYSTEM_PACKAGES)"; exit 1; fi; \
	fi

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, pinned, so no resolver step can reach for a CUDA build.
	$(PY) -m pip install --quiet -c constraints.txt torch
	$(PY) -m pip install --quiet -c constraints.txt -e ".[train,dev,ray]"
	touch $(STAMP)

demo: setup
	$(PY) evaluate.py --demo

# Lint and types first: a style or type error fails the run before the suite's minutes. Every extra and system
# package is installed here, so NAVAL_NO_SKIPS=1 turns any skip into a failure (tests/conftest.py).
test: setup system-packages lint typecheck
	NAVAL_NO_SKIPS=1 $(PY) -m pytest -n $(WORKERS)

# The core of the suite (rules, envs, captains, server, CLI) in under two minutes on 2 cores: every layer marker
# left out (pyproject.toml: markers; docs/install.md: Test layers). No lint, types or system packages; skips allowed.
FAST := not slow and not browser and not train and not ray and not node
test-fast: setup
	$(PY) -m pytest -n $(WORKERS) -m "$(FAST)"

lint: setup
	$(PY) -m ruff check .

# The three packages a user imports, and the ruleset template a user copies; mypy's settings are in pyproject.toml.
typecheck: setup
	$(PY) -m mypy naval_env naval_agents naval_tactics examples/ruleset_template/skirmish

# The browser tests' screenshots into docs/play (docs/play.md shows them); a plain test run keeps them in a temp folder.
screenshots: setup system-packages
	NAVAL_SCREENSHOTS=$(CURDIR)/docs/play $(PY) -m pytest -n 0 -q tests/browser/test_play_browser.py tests/browser/test_play_controls_browser.py

bench: setup
	$(PY) bench/env_speed.py

# Version floors, tested: a second venv with every direct dependency at the floor pyproject.toml declares
# (tools/version_floors.py writes the ==floor constraints; transitive dependencies stay newest, as with
# `uv pip compile --resolution lowest-direct`), then the Gymnasium, PettingZoo and SB3 checkers, the SB3
# training smoke run, the stock-SB3 export and the CleanRL example on it. torch is the exception: it stays at
# constraints.txt's CPU build, the one on these machines' disk (torch 2.3's PyPI wheel is a CUDA build of GBs).
VENV_MIN := .venv-min
PY_MIN := $(VENV_MIN)/bin/python
MIN_TESTS := tests/envs/test_conformance.py tests/envs/test_sb3_conformance.py tests/training/test_training.py \
	tests/training/test_export_sb3.py tests/install/test_version_floors.py \
	tests/envs/test_rl_libraries.py::test_the_cleanrl_style_example_trains_on_the_mask_in_the_observation

$(VENV_MIN)/.installed: pyproject.toml constraints.txt tools/version_floors.py
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY_MIN) || $(PYTHON) -m venv $(VENV_MIN)
	$(PY_MIN) -m pip install --quiet packaging
	$(PY_MIN) tools/version_floors.py --skip torch > $(VENV_MIN)/floors.txt
	grep '^torch==' constraints.txt > $(VENV_MIN)/torch.txt
	$(PY_MIN) -m pip install --quiet -c $(VENV_MIN)/torch.txt torch
	$(PY_MIN) -m pip install --quiet -c $(VENV_MIN)/floors.txt -c $(VENV_MIN)/torch.txt -e ".[train]" pytest
	$(PY_MIN) -m pip check
	touch $@

test-min: $(VENV_MIN)/.installed
	$(PY_MIN) -m pip freeze --exclude-editable | grep -iE '^(numpy|gymnasium|pettingzoo|stable.baselines3|sb3.contrib|torch)=='
	NAVAL_FLOORS_FILE=$(VENV_MIN)/floors.txt $(PY_MIN) -m pytest -p no:cacheprovider $(MIN_TESTS)

# The --sb3 export loaded where only sb3-contrib is installed: a venv (kept under build/, reused on rerun) with
# sb3-contrib, its dependencies and constraints.txt's CPU torch, whose python tests/training/test_export_sb3.py loads the
# exported zip with (`make test` runs the same tests with this package blocked from import instead).
SB3_STOCK := build/sb3-stock-venv

$(SB3_STOCK)/.installed: constraints.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(SB3_STOCK)/bin/python || $(PYTHON) -m venv $(SB3_STOCK)
	grep '^torch==' constraints.txt > $(SB3_STOCK)/torch.txt
	$(SB3_STOCK)/bin/python -m pip install --quiet -c $(SB3_STOCK)/torch.txt torch sb3-contrib
	touch $@

test-sb3-stock: setup $(SB3_STOCK)/.installed
	NAVAL_SB3_STOCK_PYTHON=$(SB3_STOCK)/bin/python $(PY) -m pytest -n 0 tests/training/test_export_sb3.py

clean:
	rm -rf $(VENV) $(VENV_MIN) $(SB3_STOCK) runs .pytest_cache
