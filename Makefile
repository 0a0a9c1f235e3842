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
## linksync exits 1 because the sample has 4 deliberately bad rows; that is the demo.
sample: $(STAMP)
	@$(BIN)/linksync apply samples/campaign.xlsx --yes --no-progress \
		--report out/sample-results.xlsx --report out/sample-results.csv \
		--annotate out/sample-annotated.xlsx; \
	code=$$?; echo "linksync exit code: $$code"; test $$code -le 1

## The tests (what CI runs after lint and type checks), one worker per core (pytest-xdist;
## a test file stays on one worker, so a browser is launched once per browser module).
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks action
	$(BIN)/ruff format --check src tests benchmarks action
	$(BIN)/mypy src
	$(BIN)/mypy --strict action

clean-sandbox: $(STAMP)
	$(BIN)/linksync sandbox reset
