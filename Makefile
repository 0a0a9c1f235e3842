# Two entry points for a fresh machine (see README): `make sample` and `make test`.
# Both create the virtual environment on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: sample test lint clean-sandbox

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

## The sample sync: apply the sample campaign to the built-in sandbox, write reports.
sample: $(STAMP)
	$(BIN)/linksync apply samples/campaign.xlsx --yes \
		--report out/sample-results.xlsx --report out/sample-results.csv

## The tests (what CI runs after lint and type checks).
test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src

clean-sandbox: $(STAMP)
	$(BIN)/linksync sandbox reset
