# The two commands of the README, `make run` and `make test`, each do every set-up step themselves:
# system packages (packaging/bootstrap), the virtualenv, the pinned dependencies, the project.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The embedding model, built at install time from the upstream weights (reproducible, pinned).
MODEL := app/model_files/minilm-l6-int8.onnx
# mypy sees the installed names (cairn.app, ...) through a tree of links, because an editable
# install resolves them with an import hook that mypy does not run.
TYPECHECK_ROOT := build/typecheck

.PHONY: run test check lint typecheck pytest bench bench-quality screenshots format install clean \
	install-desktop dist stress check-fast

install: $(STAMP) $(MODEL)

$(STAMP): pyproject.toml requirements.lock requirements-dev.lock packaging/bootstrap \
		packaging/build_embedding_model.py
	packaging/bootstrap
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		-r requirements.lock -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps \
		--no-build-isolation -e .
	touch $@

# Its own target, so that a model removed from the tree (git clean -X) is built again.
$(MODEL): $(STAMP) packaging/build_embedding_model.py
	$(BIN)/python packaging/build_embedding_model.py $@
	touch $@

run: install
	$(BIN)/cairn-desktop

# Puts this checkout's window in the desktop's application menu, for the current user.
install-desktop: install
	packaging/install-desktop $(CURDIR)/$(BIN)/cairn-desktop

test: check pytest

check: lint typecheck

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: install
	mkdir -p $(TYPECHECK_ROOT)/cairn
	for pkg in app storage ingest ui; do ln -sfn $(CURDIR)/$$pkg $(TYPECHECK_ROOT)/cairn/$$pkg; done
	cd $(TYPECHECK_ROOT) && MYPYPATH=. $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml \
		-p cairn.app -p cairn.storage -p cairn.ingest -p cairn.ui

# The whole suite in two passes: most tests on both cores (pytest-xdist, a file per worker so a
# module's fixtures are built once), then alone the tests that time themselves or kill and crash
# processes, which a busy neighbour would fail, with one trial each. The scenarios of a minute
# or more (marker `long`) and the further trials are `make stress`.
PARALLEL := -n 2 --dist loadfile
pytest: install
	$(BIN)/python -m pytest $(PARALLEL) -m "not (serial or crash or long)"
	CAIRN_STRESS_TRIALS=1 $(BIN)/python -m pytest -m "(serial or crash) and not long"

# The quick loop for a change: format, lint, types, and the tests that need no window, model, OCR,
# recording, crash trial or timing of their own (a few minutes on 2 cores; `make test` is the
# whole check, and what CI runs).
FAST := not (window or model or ocr or audio or crash or slow or serial or long)
check-fast: check
	$(BIN)/python -m pytest $(PARALLEL) -q -m "$(FAST)"

# The crash and stress tests (pytest markers `crash` and `long`), with many trials: `cairn ingest`
# killed with SIGKILL at random points, several times a trial, each trial checked and then finished;
# exports killed at random moments (no plaintext may be left once Cairn runs again); `cairn import`
# killed while it embeds, and imports damaged at random; the hostile and deeply nested files; `cairn
# ingest`, `cairn watch run` and the window killed while a file is read (their readers end quietly);
# every process kind crashed with SIGSEGV and SIGABRT (no core file); and 100 writes beside the
# ingest of a 6,000-page PDF and of a million-line chat (none refused; the waits are printed). `make
# test` runs 1 trial each and small documents, and leaves out the `long` scenarios; `make stress
# STRESS_TRIALS=50` runs more. A failure names the seed that replays it. About a quarter of an hour
# on 2 quiet cores, most of it the two long documents.
STRESS_TRIALS ?= 20
stress: install
	CAIRN_STRESS_TRIALS=$(STRESS_TRIALS) CAIRN_STRESS_FULL=1 $(BIN)/python -m pytest -m "crash or long" -rA

# Every line of bench/run.py, with each scale also built and probed by Cairn as it was at
# BENCH_BEFORE (the commit before compact vectors) in the same run. `make bench MILLION=1` adds
# the 1M line: a million synthetic memories written in bulk, then opened and searched (about
# five more minutes).
BENCH_BEFORE ?= a608722
MILLION ?=
bench: install
	$(BIN)/python -m bench.run --before $(BENCH_BEFORE) $(if $(MILLION),--million)

# Each main view of the window as a PNG for the README, drawn on a virtual screen (Xvfb).
screenshots: install
	xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python -m cairn.ui.shell.screenshots docs/screenshots

# nDCG@10, MAP and Recall@100 on the Vaswani collection, for lexical, vector, hybrid and graph;
# then the dedup gate's confusion table on the labelled pairs; then evidence Recall@5/10/20 on the
# LoCoMo conversations (the corpus README's protocol, beside plain BM25, dense and RRF) and
# 10,000 templated look-alike events (bench/conversations.py; `--quick` for a smoke run).
bench-quality: install
	$(BIN)/python -m bench.quality
	$(BIN)/python -m bench.dedup_quality
	$(BIN)/python -m bench.conversations

# dist/cairn/: `cairn` and `cairn-desktop` in one folder that runs without the source tree or a
# virtualenv (PyInstaller, packaging/cairn.spec), built afresh; then tests/bundle/ runs its
# programs. A few minutes on 2 cores.
dist: install
	rm -rf dist/cairn build/pyinstaller
	$(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
		packaging/cairn.spec
	cp -r packaging/install-desktop packaging/org.example.cairn.desktop \
		packaging/org.example.cairn.metainfo.xml packaging/icons dist/cairn/
	CAIRN_TEST_BUNDLE=1 $(BIN)/python -m pytest tests/bundle

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
