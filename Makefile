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

.PHONY: setup system-packages demo test bench clean

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

test: setup system-packages
	$(PY) -m pytest -n $(WORKERS)

bench: setup
	$(PY) bench/env_speed.py

clean:
	rm -rf $(VENV) runs .pytest_cache
