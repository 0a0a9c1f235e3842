# Two entry points for a fresh machine (see README): `make sample` and `make test`.
# Both create the virtual environment on first use, from the lock file
# (requirements/dev.txt: every package pinned with its hashes), so a new release of a
# dependency never changes what the tests run with. pyproject.toml keeps the lower
# bounds users install against; `make lock` refreshes the pins, `make test-latest`
# runs the suite against the newest releases (not in CI) to see a drift before it bites.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/dev.txt

.PHONY: sample test lint lock test-latest clean-sandbox

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## The sample sync: apply the sample campaign to the built-in sandbox, write reports.
## linksync exits 1 because the sample has 4 deliberately bad rows; that is the demo.
sample: $(STAMP)
	@$(BIN)/linksync apply samples/campaign.xlsx --sandbox --yes --no-progress \
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

## Refresh the lock file from pyproject.toml (newest releases within its bounds, for
## every platform, Python 3.11 and later). Commit the result.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		--generate-hashes --no-header --upgrade -o $(LOCK)

## The suite against the newest releases of everything (a throwaway venv; not in CI).
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/python -m pip install --quiet --upgrade pip
	.venv-latest/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[dev]"
	.venv-latest/bin/python -m pytest -n auto --dist loadfile

clean-sandbox: $(STAMP)
	$(BIN)/linksync sandbox reset
