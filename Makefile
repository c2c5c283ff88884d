# Two entry points for a fresh machine: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# pytest-xdist workers for `make test`: one per core (`make test WORKERS=0` runs in one process).
WORKERS ?= auto

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch first, pinned, so no resolver step can reach for a CUDA build.
	$(PY) -m pip install --quiet -c constraints.txt torch
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

demo: setup
	$(PY) evaluate.py --demo

test: setup
	$(PY) -m pytest -n $(WORKERS)

bench: setup
	$(PY) bench/env_speed.py

clean:
	rm -rf $(VENV) runs .pytest_cache
