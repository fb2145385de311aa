"""bench/pii_eval.py's scoring and bench/pii_corpora.py's readers, on tiny records and files written here
(no network, no fetched corpus, no NER model)."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "bench", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ev():
    return _load("pii_eval")


@pytest.fixture(scope="module")
def pc():
    return _load("pii_corpora")


# ---- scoring -----------------------------------------------------------------------------------------

def test_leak_strict_recall_and_precision(ev):
    text = "Call Ann Lee at 555-0100 now"
    rec = {"text": text, "spans": [("PERSON", 5, 12), ("PHONE_NUMBER", 16, 24)], "other_spans": []}
    full = ev.redact(text, [("PERSON", 5, 12), ("PHONE_NUMBER", 16, 24)])
    part = ev.redact(text, [("PERSON", 5, 8), ("PHONE_NUMBER", 16, 24), ("PERSON", 0, 4)])  # 'Call' is wrong
    none = ev.Result(text, [])
    got = ev.score_labelled([rec, rec, rec], [full, part, none])
    # the half-redacted name does not survive verbatim (leak-free) but is not wholly removed (strict)
    assert got["leak_free"] == round(2 / 3, 4) and got["strict"] == round(1 / 3, 4)
    assert got["recall"] == {"PERSON": round(2 / 3, 4), "PHONE_NUMBER": round(2 / 3, 4)}
    assert [v for _, v, _ in got["leaks"]] == ["Ann Lee", "555-0100"]
    # 5 redactions, 4 on a labelled value; 'Call' is the wrong one
    assert got["redactions"] == 5 and got["precision"] == 0.8
    assert [v for _, v, _ in got["wrong"]] == ["Call"]


def test_precision_handles_emails_and_unresolved_spans(ev):
    text = "@annlee wrote to bob@example.org about Pushpa Devi Vs. State and Ors."
    rec = {"text": text, "spans": [], "other_spans": [("USERNAME", 0, 7), ("PRECEDENT", 39, len(text))]}
    res = ev.redact(text, [("PERSON", 0, 7), ("EMAIL_ADDRESS", 17, 32), ("PERSON", 39, 50),
                           ("PERSON", text.index("Ors"), text.index("Ors") + 3)])
    got = ev.score_labelled([rec], [res])
    # the handle and the e-mail are personal; both redactions inside the cited case are left out
    assert got["redactions"] == 2 and got["precision"] == 1.0
    assert ev.score_labelled([rec], [ev.Result(text, [])])["precision"] is None


def test_person_free_altered_ignores_handles(ev):
    recs = [{"text": "ATLANTA 2 11 0 234 393", "spans": []},
            {"text": "thanks @joe", "spans": [], "other_spans": [("USERNAME", 7, 11)]},
            {"text": "plain words", "spans": []}]
    results = [ev.redact(recs[0]["text"], [("PHONE_NUMBER", 8, 22)]),
               ev.redact(recs[1]["text"], [("PERSON", 7, 11)]), ev.Result(recs[2]["text"], [])]
    got = ev.score_person_free(recs, results)
    assert got["altered"] == round(1 / 3, 4) and got["redactions"] == {"PHONE_NUMBER": 1}


def test_prompt_damage_counts_only_unlabelled_redactions(ev):
    prompts = [{"id": "1", "text": "Ask Ada Lovelace about New Zealand"},
               {"id": "2", "text": "Mail ada@example.org today"},
               {"id": "3", "text": "Die Werbung ist gut"}]
    labels = {"1": ["Ada Lovelace"], "2": ["ada@example.org"]}
    results = [ev.redact(prompts[0]["text"], [("PERSON", 4, 16), ("PERSON", 23, 34)]),
               ev.redact(prompts[1]["text"], [("EMAIL_ADDRESS", 5, 20)]),
               ev.redact(prompts[2]["text"], [("PERSON", 4, 11)])]
    got = ev.score_prompt_damage(prompts, results, labels)
    assert got["damaged_prompts"] == 2 and got["damaged"] == round(2 / 3, 4)
    assert [v for _, _, v in got["examples"]] == ["New Zealand", "Werbung"]


def test_whole_documents_rejoin_paragraph_records(ev):
    recs = [{"id": "D#0", "text": "Ann met Bo.", "spans": [("PERSON", 0, 3), ("PERSON", 8, 10)], "other_spans": []},
            {"id": "D#1", "text": "Bo left.", "spans": [("PERSON", 0, 2)], "other_spans": [("LOCATION", 3, 7)]},
            {"id": "E#0", "text": "No one.", "spans": [], "other_spans": []}]
    docs = ev.whole_documents(recs)
    assert [d["text"] for d in docs] == ["Ann met Bo.\n\nBo left.", "No one."]
    d = docs[0]
    assert [d["text"][s:e] for _, s, e in d["spans"]] == ["Ann", "Bo", "Bo"]
    assert [d["text"][s:e] for _, s, e in d["other_spans"]] == ["left"]
    assert recs[0]["spans"] == [("PERSON", 0, 3), ("PERSON", 8, 10)]  # the paragraph records are untouched
    assert len(ev.whole_documents(recs, max_chars=12)) == 3


def test_redact_keeps_longest_of_overlapping_spans(ev):
    r = ev.redact("Mr Ann Lee, 1 Main St", [("PERSON", 3, 6), ("PERSON", 3, 10), ("STREET_ADDRESS", 12, 21)])
    assert r.text == "Mr <PERSON>, <STREET_ADDRESS>" and r.spans == [("PERSON", 3, 10), ("STREET_ADDRESS", 12, 21)]


def _fig(leak, strict, prec, altered, n=30):
    return {"n": n, "leak_free": leak, "strict": strict, "precision": prec, "recall": {"PERSON": leak},
            "person_free": {"n": 10, "altered": altered}}


def test_targets_and_the_json_line(ev, capsys):
    figures = {"eaglekit": {"sets": {"legal/x": _fig(0.97, 0.92, 0.95, 0.1), "news/y": _fig(0.9, 0.85, 0.8, 0.3),
                                     "chat/tiny": _fig(0.0, 0.0, 0.0, 1.0, n=3),
                                     "long_docs/y": _fig(0.96, 0.95, 0.95, 1.0),
                                     "synthetic/presidio_synth": _fig(0.995, 0.98, 0.97, 0.0)},
                            "spec_bench_mt_bench": {"n": 480, "damaged": 0.004}},
               "presidio": {"sets": {"legal/x": _fig(0.9, 0.8, 0.5, 0.2), "news/y": _fig(0.95, 0.9, 0.6, 0.1),
                                     "chat/tiny": _fig(0.5, 0.5, 0.5, 0.0, n=3),
                                     "long_docs/y": _fig(0.9, 0.9, 0.9, 0.0),
                                     "synthetic/presidio_synth": _fig(0.8, 0.6, 0.9, 0.1)},
                            "spec_bench_mt_bench": {"n": 480, "damaged": 0.2}}}
    t = ev.targets_of(figures)
    # the 3-record set is printed but too small for a target; the synthetic set has its own
    assert t["min_leak_free_real"] == {"value": 0.9, "op": ">=", "goal": 0.95}
    assert t["min_strict_real"]["value"] == 0.85 and t["min_precision_real"]["value"] == 0.8
    assert t["min_leak_free_margin_over_presidio"]["value"] == -0.05
    assert t["leak_free_synthetic"]["value"] == 0.995
    assert t["spec_bench_mt_bench_non_person_redactions"] == {"value": 0.004, "op": "<=", "goal": 0.01}
    # pooled person-free altered over the real paragraph sets (whole documents repeat them): (1+3+10)/30 vs 3/30
    assert t["person_free_altered_minus_presidio"]["value"] == round(14 / 30 - 3 / 30, 4)
    line = json.loads(json.dumps({"bench": "pii_eval", "targets": t, "figures": figures}))
    assert line["bench"] == "pii_eval" and all({"value", "op", "goal"} <= set(v) for v in line["targets"].values())
    ev.print_table(figures)
    err = capsys.readouterr().err
    assert "legal/x" in err and "0.970 |  0.900" in err


def test_prompt_labels_file_is_our_annotation(ev):
    labels = ev.load_prompt_labels()
    assert labels, "bench/pii_eval_prompt_names.json is missing"
    assert all(isinstance(v, list) and all(isinstance(x, str) and x for x in v) for v in labels.values())
    assert "Elon Musk" in labels["91"]


# ---- corpus readers ----------------------------------------------------------------------------------

def test_detokenize_offsets(pc):
    toks = ["@", "ann", "said", ":", "it", "'", "s", "44", ".", "44", "%", "(", "ok", ")", '"', "hi", '"', "!"]
    text, offs = pc.detokenize(toks)
    assert text == '@ann said: it\'s 44.44% (ok) "hi"!'
    assert [text[s:e] for s, e in offs] == toks


def test_strip_titles(pc):
    text = "Shri Singhvi and Mr. A. B. Smith, "
    assert text[slice(*pc.strip_titles(text, 0, 12))] == "Singhvi"
    assert text[slice(*pc.strip_titles(text, 17, 34))] == "A. B. Smith"


def test_name_in_description(pc):
    text = ("Russian Foreign Minister Sergei Lavrov met the Foreign Secretary, the President of the United "
            "States and Minister for the Middle East Tobias Ellwood's aide. He left.")

    def name(value):
        a = text.index(value)
        got = pc.name_in_description(text, a, a + len(value))
        return got and text[got[0]:got[1]]
    assert name("Russian Foreign Minister Sergei Lavrov") == "Sergei Lavrov"
    assert name("Minister for the Middle East Tobias Ellwood's") == "Tobias Ellwood"
    assert name("the Foreign Secretary") is None and name("President of the United States") is None
    assert name("He") is None


def _write_wnut(root):
    os.makedirs(root)
    body = ("I\tO\nmet\tO\nJohn\tB-person\nSmith\tI-person\nin\tO\nParis\tB-location\n\n"
            "@\tB-person\nannlee\tB-person\nnice\tO\n\nno\tO\nnames\tO\nhere\tO\n")
    for f in ("wnut17train.conll", "emerging.dev.conll"):
        with open(os.path.join(root, f), "w") as fh:
            fh.write("other\tO\ntext\tO\n\nno\tO\nnames\tO\nhere\tO\n")
    with open(os.path.join(root, "emerging.test.annotated"), "w") as fh:
        fh.write(body)


def test_conll_reader_handles_and_spans(pc, tmp_path):
    _write_wnut(tmp_path / "wnut17")
    recs = pc.load("wnut17", "test", str(tmp_path))
    assert [r["text"] for r in recs] == ["I met John Smith in Paris", "@annlee nice", "no names here"]
    first = recs[0]
    assert [first["text"][s:e] for _, s, e in first["spans"]] == ["John Smith"]
    assert [(t, first["text"][s:e]) for t, s, e in first["other_spans"]] == [("LOCATION", "Paris")]
    # a labelled @handle is an account name, kept apart from the names the panel scores
    assert recs[1]["spans"] == [] and recs[1]["other_spans"] == [("USERNAME", 0, 7)]
    assert {r["domain"] for r in recs} == {"chat_forum"} and {r["split"] for r in recs} == {"test"}


def test_iob_reader_documents_roles_and_splits(pc, tmp_path):
    # SEC-filings style: 'token POS - tag', IOB1, -DOCSTART- per document; a party's role tagged I-PER is no name
    root = tmp_path / "sec_filings" / "data/SEC-filings/CONLL-format/data"
    (root / "train").mkdir(parents=True)
    (root / "test").mkdir(parents=True)
    lines = ["-DOCSTART- -X- O O", "", "Borrower NNP - I-PER", "shall VB - O", "pay VB - O", "Anna NNP - I-PER",
             "Kowalski NNP - I-PER", "of IN - O", "Acme NNP - I-ORG", ". . - O", "", "Signed VBD - O", ". . - O", ""]
    (root / "test" / "FIN3.txt").write_text("\n".join(lines) + "\n")
    (root / "train" / "FIN5.txt").write_text("\n".join(lines) + "\n")
    recs = pc.load("sec_filings", "test", str(tmp_path))
    assert [r["text"] for r in recs] == ["Borrower shall pay Anna Kowalski of Acme.\nSigned."]
    r = recs[0]
    assert [r["text"][s:e] for _, s, e in r["spans"]] == ["Anna Kowalski"]
    assert [(t, r["text"][s:e]) for t, s, e in r["other_spans"]] == [("ROLE", "Borrower"), ("ORGANIZATION", "Acme")]
    assert r["domain"] == "legal"
    # the train file is shared by train and dev (a hash split of its records): each record lands in exactly one
    got = [len(pc.load("sec_filings", sp, str(tmp_path))) for sp in ("train", "dev")]
    assert sorted(got) == [0, 1]
    # a damaged copy (a token without its tag) names the file and the line, never reads the token as a tag
    (root / "test" / "FIN3.txt").write_text("\n".join(lines[:4] + ["Kowalski"] + lines[4:]) + "\n")
    with pytest.raises(ValueError, match=r"FIN3.txt:5: 'Kowalski' has no tag column"):
        pc.load("sec_filings", "test", str(tmp_path))


def test_missing_names_repo_and_path(pc, tmp_path):
    msg = pc.missing("btc", str(tmp_path))
    assert "GateNLP/broad_twitter_corpus" in msg and "btc.test" in msg
    with pytest.raises(FileNotFoundError):
        pc.load("btc", "test", str(tmp_path))


def test_an_empty_cache_stops_the_bench_with_what_to_fetch(ev, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:  # before any model loads: no figures over no set
        ev.main(["--corpora-dir", str(tmp_path), "--no-presidio", "--quick"])
    assert "no labelled corpus" in str(stop.value) and str(tmp_path) in str(stop.value)
    assert "GateNLP/broad_twitter_corpus" in capsys.readouterr().err


def test_hash_split_is_stable_and_covers_all(pc):
    splits = [pc.split_of("presidio_synth", str(k)) for k in range(2000)]
    assert splits == [pc.split_of("presidio_synth", str(k)) for k in range(2000)]
    share = {s: splits.count(s) / 2000 for s in pc.SPLITS}
    assert abs(share["train"] - 0.6) < 0.05 and abs(share["test"] - 0.3) < 0.05


CONLLU = """# newdoc id = GUM_news_tiny
# meta::genre = news
# newpar
# sent_id = t-1
# text = Judge Ann Lee's clerk met the doctor.
1	Judge	Judge	PROPN	NNP	_	3	compound	_	Entity=(1-person-new-x-cf1-1-coref-Ann_Lee
2	Ann	Ann	PROPN	NNP	_	3	flat	_	_
3-4	Lee's	_	_	_	_	_	_	_	_
3	Lee	Lee	PROPN	NNP	_	5	nmod:poss	_	Entity=1)
4	's	's	PART	POS	_	3	case	_	_
5	clerk	clerk	NOUN	NN	_	6	nsubj	_	Entity=(2-person-new-x-cf2-1-sgl
6	met	meet	VERB	VBD	_	0	root	_	Entity=2)
7	the	the	DET	DT	_	8	det	_	Entity=(3-person-new-x-cf3-1-sgl
8	doctor	doctor	NOUN	NN	_	6	obj	_	Entity=3)|SpaceAfter=No
9	.	.	PUNCT	.	_	6	punct	_	_

# newpar
# sent_id = t-2
# text = She thanked candidate Bo Ray in Oslo.
1	She	she	PRON	PRP	_	2	nsubj	_	Entity=(4-person-giv-x-cf1-1-ana)
2	thanked	thank	VERB	VBD	_	0	root	_	_
3	candidate	candidate	NOUN	NN	_	2	obj	_	Entity=(5-person-new-x-cf2-1-sgl-Bo_Ray
4	Bo	Bo	PROPN	NNP	_	3	flat	_	_
5	Ray	Ray	PROPN	NNP	_	3	flat	_	Entity=5)
6	in	in	ADP	IN	_	7	case	_	_
7	Oslo	Oslo	PROPN	NNP	_	2	obl	_	Entity=(6-place-new-x-cf3-1-sgl-Oslo)|SpaceAfter=No
8	.	.	PUNCT	.	_	2	punct	_	_

"""


def test_conllu_reader_takes_proper_noun_names(pc, tmp_path):
    root = tmp_path / "gum"
    (root / "dep").mkdir(parents=True)
    (root / "dep" / "GUM_news_tiny.conllu").write_text(CONLLU)
    (root / "splits.md").write_text("# Splits\n\n## test\n\n  * GUM_news_tiny\n")
    recs = pc.load("gum", "test", str(root.parent))
    assert len(recs) == 1 and pc.load("gum", "train", str(root.parent)) == []
    r = recs[0]
    assert r["text"] == "Judge Ann Lee's clerk met the doctor.\n\nShe thanked candidate Bo Ray in Oslo."
    # the title is dropped, 'the clerk' / 'the doctor' / 'She' are not names, a flat name under a noun is
    assert [r["text"][s:e] for _, s, e in r["spans"]] == ["Ann Lee", "Bo Ray"]
    assert [(t, r["text"][s:e]) for t, s, e in r["other_spans"]] == [("LOCATION", "Oslo")]
    assert r["domain"] == "news"


def test_presidio_reader_keeps_personal_types(pc, tmp_path):
    root = tmp_path / "presidio_synth" / "data"
    root.mkdir(parents=True)
    docs = [{"full_text": "I am Ann, ann@x.org", "spans": [
        {"entity_type": "PERSON", "start_position": 5, "end_position": 8},
        {"entity_type": "EMAIL_ADDRESS", "start_position": 10, "end_position": 19},
        {"entity_type": "ORGANIZATION", "start_position": 0, "end_position": 1}]}] * 50
    (root / "synth_dataset_v2.json").write_text(json.dumps(docs))
    recs = [r for sp in pc.SPLITS for r in pc.load("presidio_synth", sp, str(tmp_path))]
    assert len(recs) == 50 and len({r["id"] for r in recs}) == 50
    assert [t for t, _, _ in recs[0]["spans"]] == ["PERSON", "EMAIL_ADDRESS"]
    assert [t for t, _, _ in recs[0]["other_spans"]] == ["ORGANIZATION"]


def test_panel_sets_split_labelled_and_person_free(ev, tmp_path, capsys):
    _write_wnut(tmp_path / "wnut17")
    panel = ev.panel_sets(str(tmp_path))
    assert list(panel) == ["chat_forum/wnut17"]  # whole documents only for the multi-paragraph corpora
    s = panel["chat_forum/wnut17"]
    # 'no names here' is also a train post: left out of the test figures
    assert s["split"] == "wnut17:test" and len(s["labelled"]) == 1 and len(s["person_free"]) == 1
    assert "skipped" in capsys.readouterr().err  # the corpora not in the cache are named


def test_compare_ner_reads_a_model_folder(ev, tmp_path, monkeypatch):
    spacy = pytest.importorskip("spacy")
    import beam_jobs.pii as pii
    nlp = spacy.blank("en")
    # a rule-based 'NER' saved as a folder stands in for a trained person-name model
    ruler = nlp.add_pipe("entity_ruler", name="ner")
    ruler.add_patterns([{"label": "PERSON", "pattern": "Ann Lee"}, {"label": "PERSON", "pattern": "Paris"}])
    nlp.to_disk(tmp_path / "model")
    monkeypatch.setattr(pii, "ner_models", lambda: [])
    panel = {"x/y": {"labelled": [{"text": "I met Ann Lee and Bo Ray in Paris.", "domain": "x",
                                   "spans": [("PERSON", 6, 13), ("PERSON", 18, 24)]}],
                     "person_free": [{"text": "Nothing here.", "spans": [], "domain": "x"}]}}
    rows = ev.compare_ner(panel, {"spec_bench": [{"id": "1", "text": "Hello Ann Lee"}]},
                          [str(tmp_path / "model"), str(tmp_path / "absent")])
    got, missing = rows
    assert got["person_recall"] == 0.5 and got["person_precision"] == 0.5 and got["cpu_ms_per_prompt"] >= 0
    assert "error" in missing


def test_panel_sets_dev_split_is_the_one_rules_are_tuned_on(ev, tmp_path):
    _write_wnut(tmp_path / "wnut17")
    (tmp_path / "wnut17" / "emerging.dev.conll").write_text(
        "ask\tO\nAnna\tB-person\n\nno\tO\nnames\tO\nhere\tO\n\nquiet\tO\nday\tO\n")
    s = ev.panel_sets(str(tmp_path), split="dev")["chat_forum/wnut17"]
    # 'no names here' also stands in train: left out, as a test text in train or dev is
    assert s["split"] == "wnut17:dev"
    assert [r["text"] for r in s["labelled"]] == ["ask Anna"] and [r["text"] for r in s["person_free"]] == ["quiet day"]


def test_recipe_members_leave_out_declared_corpora_and_records_say_so(pc, tmp_path, monkeypatch):
    recipe = _load("name_model_recipe")
    assert recipe.MEMBERS[0]["without"] == ()  # the first member reads every corpus
    for member in recipe.MEMBERS:
        assert set(member["without"]) <= set(pc.CORPORA), member
    # a member's corpora: those it leaves out give no record and no source line
    _write_wnut(tmp_path / "wnut17")
    missing, load = pc.missing, pc.load
    monkeypatch.setattr(pc, "CORPORA", {"wnut17": pc.CORPORA["wnut17"]})
    monkeypatch.setattr(pc, "missing", lambda name, cache=str(tmp_path): missing(name, cache))
    monkeypatch.setattr(pc, "load", lambda name, split: load(name, split, str(tmp_path)))
    monkeypatch.setitem(sys.modules, "pii_corpora", pc)
    records, sources = recipe.corpus_records()
    assert {r["corpus"] for r in records} == {"wnut17"} and [s["corpus"] for s in sources] == ["wnut17"]
    records, sources = recipe.corpus_records(without=("wnut17",))
    assert records == [] and sources == []


def test_recased_panel_keeps_offsets_and_leaves_out_what_would_move_them(ev):
    rec = {"text": "Call Ann Lee now", "spans": [("PERSON", 5, 12)], "other_spans": []}
    odd = {"text": "İstanbul'da Ayşe", "spans": [("PERSON", 12, 16)], "other_spans": []}  # "İ".lower() is 2 chars
    panel = {"chat/x": {"split": "x:test", "labelled": [rec, odd], "person_free": []}}
    prompts = {"spec_bench": [{"id": "1", "text": "Ask Tom"}]}
    out, p2, labels = ev.recased(panel, prompts, {"1": ["Tom"]}, "lower")
    assert [r["text"] for r in out["chat/x"]["labelled"]] == ["call ann lee now"]
    r = out["chat/x"]["labelled"][0]
    assert r["text"][5:12] == "ann lee" and p2["spec_bench"][0]["text"] == "ask tom" and labels == {"1": ["tom"]}
    up, _, _ = ev.recased(panel, prompts, {}, "upper")
    assert up["chat/x"]["labelled"][0]["text"][5:12] == "ANN LEE" and rec["text"] == "Call Ann Lee now"


def test_tokenized_panel_moves_each_label_with_its_characters(ev):
    rec = {"text": "Mr. A. Lee, 28, said (twice): \"Ann's here.\"", "spans": [("PERSON", 4, 10), ("PERSON", 31, 34)],
           "other_spans": [("USERNAME", 0, 3)]}
    panel = {"news/x": {"split": "x:test", "labelled": [rec], "person_free": []}}
    out, prompts, labels = ev.relaid(panel, {"spec_bench": [{"id": "1", "text": "Ask Tom, then Ann."}]},
                                     {"1": ["Tom,"]}, "tokenized")
    r = out["news/x"]["labelled"][0]
    assert r["text"] == 'Mr. A. Lee , 28 , said ( twice ) : " Ann \'s here . "', r["text"]
    assert [r["text"][s:e] for _, s, e in r["spans"]] == ["A. Lee", "Ann"]
    assert [r["text"][s:e] for _, s, e in r["other_spans"]] == ["Mr."]
    assert prompts["spec_bench"][0]["text"] == "Ask Tom , then Ann ." and labels == {"1": ["Tom ,"]}
    # wrapped as mail wraps it (every character keeps its place), and quoted as a reply quotes it
    long = {"text": "Dear committee, " * 6 + "I write for Ann Lee.", "spans": [("PERSON", 108, 115)]}
    panel = {"mail/x": {"split": "x:test", "labelled": [long], "person_free": []}}
    for layout in ("wrapped", "quoted"):
        r = ev.relaid(panel, {}, {}, layout)[0]["mail/x"]["labelled"][0]
        assert "\n" in r["text"] and [r["text"][s:e] for _, s, e in r["spans"]] == ["Ann Lee"], r
        assert all(len(line) <= 72 + 2 for line in r["text"].split("\n"))
        assert layout == "wrapped" or all(line.startswith("> ") for line in r["text"].split("\n"))


def test_the_census_list_recipe_keeps_common_names_and_rare_word_names_out(tmp_path):
    recipe = _load("name_lists_recipe")
    (tmp_path / "dist.female.first").write_text("PEARL          0.050  1.000   100\nBRAIN          0.001  1.001  4000\n"
                                                "MABEL          0.006  1.007   900\n")
    (tmp_path / "dist.male.first").write_text("CLYDE          0.040  0.500   200\nSON            0.003  0.503  3000\n"
                                              "MAY            0.100  0.603    50\n")
    shares = recipe.read_shares(str(tmp_path))
    words = {"pearl", "brain", "son", "clyde", "may"}
    assert recipe.select(shares, lambda w: w.lower() in words) == ["Clyde", "Mabel", "Pearl"]
    (tmp_path / "dist.male.first").write_text("CLYDE oops\n")
    with pytest.raises(SystemExit) as stop:  # a damaged file names its line and the fix
        recipe.read_shares(str(tmp_path))
    assert "line 1" in str(stop.value) and "download the sdist again" in str(stop.value)


def test_hindi_names_are_romanized_as_indian_english_spells_them():
    romanize = _load("name_lists_recipe").romanize_hindi_name
    assert romanize("राजेश") == {"Rajesh"} and romanize("राहुल") == {"Rahul"}  # the last and a medial "a" go
    assert romanize("आदित्य") == {"Aditya"} and romanize("अरविन्द") == {"Arvind"}  # kept after a conjunct, not a nasal's
    assert romanize("सुनील") == {"Sunil", "Suneel"} and romanize("संदीप") == {"Sandeep", "Sandip"}
    assert romanize("ऐश्वर्या") == {"Aishwarya"} and romanize("लावण्य") == {"Lavanya"}
    assert romanize("Rajesh") == set()  # another script is no Devanagari name


def test_the_world_list_recipe_reads_romanized_names_and_keeps_words_and_particles_out(tmp_path):
    recipe = _load("name_lists_recipe")
    header = "Country,Rank,Index,Name Group,Localized Name,Romanized Name,Count,Percent\n"
    (tmp_path / recipe.WORLD_SURNAMES).write_text(
        "\ufeff" + header + "UA,2,2,UA-2,Мельник,Melnyk,,\nPH,3,3,PH-3,De Los Santos,De Los Santos,,\n"
        "GB,1,1,GB-1,Smith,Smith,,\nVN,1,1,VN-1,Huỳnh,Huỳnh/Hoàng,,\nXX,1,1,X,x,R2D2,,\n", encoding="utf-8")
    (tmp_path / recipe.WORLD_FORENAMES).write_text(
        "Country,Romanized Name\nRU,Dmitry\nMX,Marco Antonio\nGB,Grace\nCN,Ao\n", encoding="utf-8")
    surnames = recipe.read_world_names(str(tmp_path), recipe.WORLD_SURNAMES, split_entries=False)
    assert surnames == {"Melnyk", "Smith", "Huỳnh", "Hoàng"}  # no particle of a surname of several words, no code
    given = recipe.read_world_names(str(tmp_path), recipe.WORLD_FORENAMES, split_entries=True)
    assert given == {"Dmitry", "Marco", "Antonio", "Grace", "Ao"}
    words = {"grace", "smith"}
    assert recipe.select_world(given, lambda w: w.lower() in words) == ["Antonio", "Dmitry", "Marco"]
    (tmp_path / recipe.WORLD_FORENAMES).write_text("Country,Name\nRU,Dmitry\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:  # another file than the dataset's names its column and the fix
        recipe.read_world_names(str(tmp_path), recipe.WORLD_FORENAMES, split_entries=True)
    assert "'Romanized Name'" in str(stop.value) and "download it again" in str(stop.value)


def test_recipe_adds_the_third_member_and_keeps_the_trained_two(tmp_path):
    import filecmp
    import spacy
    from beam_jobs.pii import NAMES_MODEL, SECOND_NER, SPACY_NER
    recipe = _load("name_model_recipe")
    folder = tmp_path / "names"
    spacy.load(NAMES_MODEL, exclude=[SPACY_NER]).to_disk(folder)
    shutil.copy(os.path.join(NAMES_MODEL, "training.json"), folder)
    assert recipe.main(["--add-spacy-member", str(folder)]) == 0
    nlp = spacy.load(folder)
    assert SPACY_NER in nlp.disabled and SECOND_NER in nlp.disabled and nlp.pipe_names == ["ner"]
    for member in ("ner", SECOND_NER, SPACY_NER):  # the trained two saved again byte for byte; the third as shipped
        assert filecmp.cmp(folder / member / "model", os.path.join(NAMES_MODEL, member, "model"), shallow=False)
    added = json.loads((folder / "training.json").read_text())["members"][-1]
    assert added["component"] == SPACY_NER and "faker" in added["versions"]
    with pytest.raises(SystemExit, match="no ner_c"):  # added once only
        recipe.main(["--add-spacy-member", str(folder)])
