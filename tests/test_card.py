"""`eaglekit data card` (eaglekit/card.py): the card reads every number from the manifests, refuses numbers
that do not add up (naming the folder), and quotes the PII filter's figures as docs/pii.md states them."""
import json
import re

import pytest
import yaml
from click.testing import CliRunner

from eaglekit.card import PII_FIGURES, CardError, write_card


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    from beam_jobs.clean import CleanConfig, run_clean
    root = tmp_path_factory.mktemp("card")
    (root / "qa.jsonl").write_text("".join(json.dumps({"prompt": p}) + "\n" for p in
                                           ["What is two plus two?", "Name a colour.", "What is two plus two?"]))
    (root / "sources.yaml").write_text(yaml.safe_dump({"sources": [
        {"name": "qa", "path": "qa.jsonl", "url": "https://example.org/qa", "licence": "CC-BY-4.0",
         "terms": "attribution required"}]}))
    run_clean(CleanConfig(sources=str(root / "sources.yaml"), output=str(root / "clean"), pii_enabled=False))
    return root


def front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_card_of_a_clean_run(clean_run):
    text = write_card([str(clean_run / "clean")])
    assert front_matter(text)["license"] == "cc-by-4.0"
    assert front_matter(text)["source_datasets"] == ["https://example.org/qa"]
    m = json.loads((clean_run / "clean" / "manifest.json").read_text())
    src = m["sources"][0]
    row = next(line for line in text.splitlines() if line.startswith("| qa |"))
    assert f"| {src['files'][0]['sha256']} | 3 | 2 |" in row and "attribution required" in row
    assert "| clean | exact_dedupe | 3 | 2 | exact_duplicate: 1 |" in text
    assert "PII filter was off" in text and "bench/pii_eval.py" in text


def test_numbers_that_do_not_add_up_refuse_the_card(clean_run, tmp_path):
    import shutil
    bad = tmp_path / "clean"
    shutil.copytree(clean_run / "clean", bad)
    m = json.loads((bad / "manifest.json").read_text())
    m["sources"][0]["rows_out"] += 1
    m["stages"]["near_dedupe"]["in"] += 1
    (bad / "manifest.json").write_text(json.dumps(m))
    failed = re.escape(str(bad)) + r": clean/near_dedupe: in 3 = out 2.*sources: rows out 3"
    with pytest.raises(CardError, match=failed):
        write_card([str(bad)])
    r = CliRunner().invoke(__import__("eaglekit.cli", fromlist=["main"]).main, ["data", "card", str(bad)])
    assert r.exit_code == 1 and "do not add up" in r.output and "Traceback" not in r.output
    (tmp_path / "empty").mkdir()
    with pytest.raises(CardError, match="holds no stage output"):
        write_card([str(tmp_path / "empty")])


def test_cli_writes_the_card(clean_run, tmp_path):
    from eaglekit.cli import main
    r = CliRunner().invoke(main, ["data", "card", str(clean_run), "--out", str(tmp_path / "card.md")])
    assert r.exit_code == 0, r.output
    assert "card.md" in r.output and (tmp_path / "card.md").read_text().startswith("---\nlicense: cc-by-4.0")


def test_pii_figures_are_those_docs_pii_md_states():
    """The card quotes the figures file; its measurement line, header and every row must stand in the table of
    docs/pii.md (bold aside), so a re-measured docs/pii.md fails here until the file is updated with it."""
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[1] / "docs" / "pii.md").read_text().replace("**", "")
    fig = json.loads(PII_FIGURES.read_text())
    assert f"`{fig['command']}` ({fig['measured']}, {fig['hardware']}" in doc
    rows = {tuple(c.strip() for c in line.strip().strip("|").split("|")) for line in doc.splitlines()
            if line.startswith("|")}
    for row in [fig["columns"], *fig["rows"]]:
        assert tuple(row) in rows, f"docs/pii.md has no row {row}: update eaglekit/data/pii_figures.json from its table"
