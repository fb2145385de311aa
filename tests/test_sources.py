"""Sources and their terms (issue 30): the sources file and the terms policy refuse an input before any work,
naming the file and the fix; a row's source and licence travel clean -> generate -> featurize -> train, and
the shards open in Hugging Face `datasets`."""
import glob
import json
import os

import pyarrow.parquet as pq
import pytest

from beam_jobs.clean import CleanConfig, run_clean
from eaglekit.config import ConfigError
from eaglekit.sources import ALLOW_UNKNOWN_ENV, SourcesError, TermsPolicy, check_terms, load_sources, merge


@pytest.fixture
def strict(monkeypatch):
    """The default policy as a user gets it: the suite's explicit allowance of unknown terms removed."""
    monkeypatch.delenv(ALLOW_UNKNOWN_ENV, raising=False)


def _write(path, prompts):
    path.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in prompts))
    return path


def _sources(tmp_path, *entries):
    import yaml
    f = tmp_path / "sources.yaml"
    f.write_text(yaml.safe_dump({"sources": list(entries)}))
    return f


def test_sources_file_errors_name_the_file_and_the_record(tmp_path):
    bad = _sources(tmp_path, {"name": "a", "path": "a.jsonl", "licence": "MIT"},
                   {"name": "b", "path": "b.jsonl", "licence": "Apache 2"})
    with pytest.raises(SourcesError, match=r"sources\.yaml: sources\[1\] \(b\)\.licence: 'Apache 2' is not an SPDX"):
        load_sources(str(bad))
    bad = _sources(tmp_path, {"name": "a", "path": "a.jsonl", "licence": "MIT", "licenze": "x"})
    with pytest.raises(SourcesError, match=r"sources\[0\] \(a\): unknown key 'licenze'"):
        load_sources(str(bad))
    ok = _sources(tmp_path, {"name": "a", "path": "sub/*.jsonl", "licence": "MIT", "url": "https://x.org"})
    (src,) = load_sources(str(ok))
    assert src.path == os.path.join(str(tmp_path), "sub/*.jsonl") and src.terms == ""
    with pytest.raises(ConfigError, match="licence"):
        CleanConfig(inputs=["x.jsonl"], output="o", licence="Apache 2")


def test_one_off_inputs_become_sources_by_name():
    from eaglekit.sources import Source, resolve
    stem = lambda f: f.rsplit("/", 1)[-1].split(".")[0]  # noqa: E731
    got = resolve(["/a/x.jsonl", "/b/x.jsonl", "/a/y.jsonl"], [], "MIT", stem)
    assert [(s["name"], s["files"], s["licence"]) for s in got] == \
        [("x", ["/a/x.jsonl", "/b/x.jsonl"], "MIT"), ("y", ["/a/y.jsonl"], "MIT")]
    declared = [(Source(name="x", path="/a/x.jsonl", licence="CC0-1.0"), ["/a/x.jsonl"])]
    with pytest.raises(SourcesError, match="/b/x.jsonl: named 'x' like a source of the sources file"):
        resolve(["/a/x.jsonl", "/b/x.jsonl"], declared, None, stem)
    with pytest.raises(SourcesError, match="claimed by sources 'x' and 'z'"):
        resolve(["/a/x.jsonl"], declared + [(Source(name="z", path="/a/*", licence="MIT"), ["/a/x.jsonl"])], None, stem)


def test_policy_decides_by_licence_terms_and_explicit_allowances():
    def src(name, licence, terms=""):
        return {"name": name, "url": None, "licence": licence, "terms": terms, "files": [f"/d/{name}.jsonl"]}
    policy = TermsPolicy()
    assert check_terms([src("a", "MIT"), src("b", "MIT OR GPL-3.0")], policy, env={})[0]["allowed_by"] == "policy"
    for bad, why in ((src("u", "unknown"), "no licence declared"), (src("nc", "CC-BY-NC-4.0"), "-NC-"),
                     (src("gpt", "MIT", "Written by model X, whose terms forbid training competing models"),
                      "competing model"), (src("gpl", "GPL-3.0"), "not among the allowed licences")):
        with pytest.raises(SourcesError, match=f"/d/{bad['name']}.jsonl: .*{why}"):
            check_terms([bad], policy, env={})
    assert check_terms([src("u", "unknown")], TermsPolicy(allow_unknown=True), env={})[0]["allowed_by"] == \
        "terms.allow_unknown"
    assert check_terms([src("nc", "CC-BY-NC-4.0")], TermsPolicy(allow_sources=["nc"]), env={})[0]["allowed_by"] == \
        "terms.allow_sources"
    assert check_terms([src("g", "GPL-3.0"), src("m", "MIT")], TermsPolicy(also_allowed=["GPL-3.0"]), env={})
    with pytest.raises(SourcesError, match="'internal only'"):
        check_terms([src("i", "MIT", "Internal only.")], TermsPolicy(also_refused=["internal only"]), env={})
    with pytest.raises(SourcesError, match="two sets of terms"):
        merge([{**src("a", "MIT"), "allowed_by": "policy"}], [{**src("a", "CC-BY-4.0"), "allowed_by": "policy"}])


@pytest.mark.parametrize("how", ["unknown", "non-commercial", "sources-file"])
def test_refused_input_stops_clean_before_any_work(tmp_path, strict, monkeypatch, how):
    from beam_jobs import io as bio
    inp = _write(tmp_path / "scraped.jsonl", ["What is two plus two?"])
    ok = _write(tmp_path / "ok.jsonl", ["Name a colour."])
    kw = {"inputs": [str(inp)], "licence": None}
    if how == "non-commercial":
        kw["licence"] = "CC-BY-NC-4.0"
    if how == "sources-file":
        kw = {"sources": str(_sources(tmp_path, {"name": "ok", "path": "ok.jsonl", "licence": "MIT"},
                                      {"name": "chat", "path": "scraped.jsonl", "licence": "MIT",
                                       "terms": "answers by model X; its terms forbid training competing models"}))}
    work = []  # nothing may be read, checksummed or staged before the refusal
    monkeypatch.setattr(bio, "staging_path", lambda *a: work.append("staging"))
    monkeypatch.setattr("beam_jobs.clean.file_sha256", lambda *a: work.append("sha256"))
    before = set(os.listdir(tmp_path))
    with pytest.raises(SourcesError, match=str(inp)) as err:
        run_clean(CleanConfig(output=str(tmp_path / "out"), pii_enabled=False, **kw))
    assert "fix:" in str(err.value) and str(ok) not in str(err.value)  # the allowed input is not named
    assert not work and set(os.listdir(tmp_path)) == before


def test_cli_refusal_names_the_file(tmp_path, strict):
    from click.testing import CliRunner

    from eaglekit.cli import main
    inp = _write(tmp_path / "scraped.jsonl", ["What is two plus two?"])
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", str(inp), "--output", str(tmp_path / "o"),
                                  "--no-pii"])
    assert r.exit_code == 1 and str(inp) in r.output and "--licence" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", str(inp), "--output", str(tmp_path / "o"),
                                  "--no-pii", "--licence", "CC0-1.0"])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert m["sources"][0]["licence"] == "CC0-1.0" and m["sources"][0]["allowed_by"] == "policy"


def test_run_config_check_refuses_the_input(tmp_path, strict):
    """`eaglekit beam run --config run.yaml --check` applies the terms policy too (nothing runs)."""
    from click.testing import CliRunner

    from eaglekit.cli import main
    inp = _write(tmp_path / "scraped.jsonl", ["What is two plus two?"])
    run = tmp_path / "run.yaml"
    run.write_text(f"workdir: {tmp_path / 'w'}\nclean:\n  inputs: [{inp}]\n")
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(run), "--check"])
    assert r.exit_code == 1 and str(inp) in r.output and "clean.licence" in r.output
    run.write_text(f"workdir: {tmp_path / 'w'}\nclean:\n  inputs: [{inp}]\n  licence: MIT\n")
    assert CliRunner().invoke(main, ["beam", "run", "--config", str(run), "--check"]).exit_code == 0
    assert not (tmp_path / "w").exists()


def test_old_prompt_files_without_provenance_source_stay_valid(tmp_path):
    """Prompt files written before provenance.source existed still validate (the member is optional)."""
    import pyarrow as pa

    from eaglekit import __version__
    from eaglekit.contract import arrow_schema, validate_schema
    new = arrow_schema("prompt", {"eaglekit_version": __version__})
    prov = new.field("provenance").type
    old_prov = pa.struct([prov.field(i) for i in range(prov.num_fields) if prov.field(i).name != "source"])
    old = new.set(new.get_field_index("provenance"), pa.field("provenance", old_prov, nullable=False))
    assert validate_schema(old, "prompt", where="old.parquet")["eaglekit_version"] == __version__


@pytest.mark.slow
def test_a_row_carries_its_licence_from_input_to_head(tmp_path, strict):
    """One prompt followed clean -> generate -> featurize -> train on the tiny target: its source name on its
    provenance and its row at every stage, the licence in every manifest, file and the trained head's folder."""
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from beam_jobs.generate import GenerateConfig, run_generate
    from eaglekit.contract import read_metadata
    from eaglekit.train import TrainConfig, train

    (tmp_path / "data").mkdir()
    _write(tmp_path / "data" / "qa.jsonl", ["What is the capital of France?", "Name three primary colours.",
                                            "What is the capital of France?"])
    _write(tmp_path / "data" / "math.jsonl", ["What is 12 times 7?", "Is 91 a prime number?"])
    sources = _sources(tmp_path / "data",
                       {"name": "qa-set", "path": "qa.jsonl", "url": "https://example.org/qa", "licence": "CC-BY-4.0",
                        "terms": "attribution required"},
                       {"name": "math-set", "path": "math.jsonl", "url": "https://example.org/math", "licence": "MIT"})
    clean = run_clean(CleanConfig(sources=str(sources), output=str(tmp_path / "clean"), pii_enabled=False))
    by_name = {s["name"]: s for s in clean["sources"]}
    assert by_name["qa-set"]["rows_in"] == 3 and by_name["qa-set"]["rows_out"] == 2  # one exact duplicate
    assert by_name["math-set"]["licence"] == "MIT" and by_name["math-set"]["rows_out"] == 2
    assert by_name["qa-set"]["files"][0]["sha256"] == clean["inputs"][1]["sha256"]
    rows = [r for f in glob.glob(str(tmp_path / "clean" / "prompts-*.parquet")) for r in pq.read_table(f).to_pylist()]
    row = next(r for r in rows if "12 times 7" in r["messages"][-1]["content"])
    assert row["provenance"]["source"] == row["source"] == "math-set"

    gen = run_generate(GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                                      max_new_tokens=4, batch_size=4))
    licences = {"qa-set": "CC-BY-4.0", "math-set": "MIT"}
    assert {s["name"]: s["licence"] for s in gen["sources"]} == licences
    conv_file = glob.glob(str(tmp_path / "gen" / "conversations-*.parquet"))[0]
    assert {s["name"]: s["licence"] for s in read_metadata(pq.read_schema(conv_file))["sources"]} == licences
    conv = next(c for c in pq.read_table(conv_file).to_pylist() if c["id"] == row["id"])
    assert conv["source"] == "math-set"

    feat = run_featurize(FeaturizeConfig(input=str(tmp_path / "gen"), output=str(tmp_path / "feat"), target="tiny"))
    assert {s["name"]: s["licence"] for s in feat["sources"]} == licences
    from eaglekit.shards import open_features
    ds = open_features(str(tmp_path / "feat"))
    assert {s["name"]: s["licence"] for s in ds.meta["sources"]} == licences
    shard_row = next(r for _, b in ds.iter_tables() for r in b.to_pylist() if r["id"] == row["id"])
    assert shard_row["source"] == "math-set"
    import datasets  # the shards featurize wrote, their sources metadata included, open in Hugging Face datasets
    hf = datasets.load_dataset("arrow", data_files=ds.shards, split="train", cache_dir=str(tmp_path / "hf"))
    assert hf.num_rows == ds.num_rows and hf[hf["id"].index(row["id"])]["source"] == "math-set"

    summary = train(TrainConfig(data=str(tmp_path / "feat"), target="tiny", out=str(tmp_path / "draft"), max_steps=2,
                                seq_len=48, batch_size=2, ttt_steps=2, draft_vocab_size=512, heldout_fraction=0.0,
                                eval_every=1000, save_every=1000, progress=False))
    assert {s["name"]: s["licence"] for s in summary["sources"]} == licences
    head = json.loads((tmp_path / "draft" / "sources.json").read_text())
    assert {s["name"]: (s["licence"], s["url"]) for s in head} == \
        {"qa-set": ("CC-BY-4.0", "https://example.org/qa"), "math-set": ("MIT", "https://example.org/math")}
    from eaglekit.export import export_head
    exported = export_head(summary["best_checkpoint"], tmp_path / "head", fmt="sglang")
    assert {s["name"] for s in json.loads((exported / "eaglekit_export.json").read_text())["sources"]} == set(licences)


def test_shards_open_in_hugging_face_datasets(tmp_path, tiny_target):
    """The feature shards load with the real `datasets` library (its arrow builder), rows and metadata intact."""
    import datasets  # the test extra (setup.cfg) installs it: a missing library fails, never skips
    from test_train_data import make_shards  # the training tests' shards of the tiny target
    root = make_shards(tmp_path, tiny_target)
    files = sorted(glob.glob(str(root / "shard-*.arrow")))
    assert files
    d = datasets.load_dataset("arrow", data_files=files, split="train", cache_dir=str(tmp_path / "hf-cache"))
    from eaglekit.shards import open_features
    ds = open_features(str(root))
    assert d.num_rows == ds.num_rows and {"input_ids", "loss_mask", "aux_low", "source"} <= set(d.column_names)
    first = next(r for _, b in ds.iter_tables() for r in b.to_pylist())
    assert d[0]["input_ids"] == first["input_ids"] and d[0]["id"] == first["id"]
