"""The GPU-check path of the bench scripts, run on CPU: bench/tiny_target.py distils a loadable target, and
bench/serve.py --no-concurrency (what a GPU box without the HTTP stack runs) ends with its JSON line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(*args: str, timeout: int = 300) -> dict:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_tiny_target_trains_a_loadable_chat_model(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    pairs = [("What is the capital of France?", "The capital of France is Paris."),
             ("Write a haiku about rain.", "Soft rain on the roof, the garden drinks, slow and calm."),
             ("How many legs does a spider have?", "A spider has eight legs.")] * 40
    corpus.write_text("".join(json.dumps({"user": u, "assistant": a}) + "\n" for u, a in pairs))
    out = run_script("bench/tiny_target.py", "train", "--corpus", str(corpus), "--out", str(tmp_path / "t"),
                     "--device", "cpu", "--quick", "--layers", "2", "--hidden", "64", "--vocab", "400",
                     "--seq-len", "64", "--batch", "4", "--epochs", "1")
    assert out["bench"] == "tiny_target" and out["figures"]["steps"] >= 1
    from eaglekit.models import load_target
    from serving.engine import EagleEngine, SamplingParams
    target = load_target(str(tmp_path / "t"))
    assert target.model_id == "eaglekit/tiny-distilled-smollm2" and target.model.config.num_hidden_layers == 2
    ids = target.tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], add_generation_prompt=True,
                                               return_dict=False)
    assert target.tokenizer.decode(ids).endswith("<|im_start|>assistant\n")
    gen = EagleEngine(target, None).generate(ids, SamplingParams(max_new_tokens=4, ignore_eos=True))
    assert len(gen.output_ids) == 4


def test_serve_bench_without_http_stack_reports_speedup_and_identity():
    out = run_script("bench/serve.py", "--quick", "--target", "tiny", "--no-concurrency", "--device", "cpu")
    assert out["bench"] == "serve" and out["figures"]["device"] == "cpu"
    assert set(out["targets"]) == {"decode_speedup_vs_greedy", "greedy_identical"}
    assert out["targets"]["greedy_identical"]["value"] == 1
    assert out["figures"]["concurrency_target"] == "not measured"


def test_generate_bench_compares_beam_with_generate_batch():
    out = run_script("bench/generate.py", "--quick", "--records", "24", "--max-new-tokens", "6", "--batch-size", "8")
    assert out["bench"] == "generate"
    t = out["targets"]["beam_vs_generate_batch"]
    assert t["op"] == ">=" and t["goal"] == 0.8 and t["value"] > 0
    f = out["figures"]
    assert f["beam_new_tokens"] == f["direct_new_tokens"] == 24 * 6 and f["inference_batch"] == 64


def _load_bench(name: str):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_vs_speculators_converts_identical_rows(tmp_path):
    """Same tokens, the mask shifted by one, eaglekit's split with training rows first, the contiguous ratio
    that cuts there, token counts of training rows only, and prepare-data's shuffle undone."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    b = _load_bench("train_vs_speculators")
    convs = [{"id": f"row-{i}", "turns": [{"prompt_ids": [1, 10 + i, 2], "response_ids": [100 + i, 7, 2]}]}
             for i in range(12)]
    pq.write_table(pa.Table.from_pylist(convs), tmp_path / "conversations-00000-of-00001.parquet")
    rows = []
    for c in convs:
        ids, mask = b.generate_ids(c["turns"])
        rows.append({"id": c["id"], "input_ids": ids, "loss_mask": mask})
    assert rows[0]["input_ids"] == [1, 10, 2, 100, 7, 2] and rows[0]["loss_mask"] == [0, 0, 0, 1, 1, 1]
    b.check_against_generate(rows, tmp_path)
    bad = [dict(rows[0], loss_mask=[0, 0, 1, 1, 1, 1])]
    try:
        b.check_against_generate(bad, tmp_path)
        raise AssertionError("a mask that differs from the turns must be refused")
    except SystemExit:
        pass

    train, held = b.split_rows(rows, 0.3)
    assert held and train and len(train) + len(held) == 12
    assert {r["id"] for r in held} == {r["id"] for r in rows if b.is_heldout(r["id"], 0.3)}
    from eaglekit.train.data import is_heldout
    assert all(b.is_heldout(r["id"], 0.3) == is_heldout(r["id"], 0.3) for r in rows)

    spec = b.speculators_rows(train, held)
    assert [r["id"] for r in spec] == [r["id"] for r in train + held]
    assert spec[0]["input_ids"] == train[0]["input_ids"]
    assert spec[0]["loss_mask"] == [0, 0, 1, 1, 1, 0]   # m'[i] = m[i+1]: predicts x[i+1] iff it is a response token
    ratio = b.train_data_ratio(len(train), len(rows))
    assert int(len(rows) * ratio) == len(train)

    freq = b.token_freq(train)
    assert freq[7] == len(train) and freq[2] == len(train)          # the closing 2 is supervised, the prompt's not
    assert 1 not in freq and all(10 + int(r["id"][4:]) not in freq for r in train)
    assert all(100 + int(r["id"][4:]) not in freq for r in held)    # held-out rows are not counted

    shuffled = [spec[i]["input_ids"] for i in (3, 0, 11, 5, 1, 2, 4, 6, 7, 8, 9, 10)]
    idx = b.restore_order(shuffled, [r["input_ids"] for r in spec])
    assert [shuffled[i] for i in idx] == [r["input_ids"] for r in spec]


def test_train_vs_speculators_reads_both_tools_metrics():
    b = _load_bench("train_vs_speculators")
    ek = [{"step": 1, "tokens": 500, "tok_s": 100.0}, {"step": 2, "tokens": 900, "tok_s": 400.0},
          {"step": 3, "tokens": 1500, "tok_s": 600.0}, {"step": 3, "eval": True, "acc": [0.5, 0.25], "cacc": [0.5, 0.5]}]
    f = b.eaglekit_figures(ek)
    assert f["steps"] == 3 and f["median_tok_s"] == 500.0 and f["median_step_ms"] == 1000.0
    assert f["heldout_acc"] == [0.5, 0.25]
    prof = lambda t, ms: {"tokens_per_s": t, "step_ms": ms}  # noqa: E731
    sp = [{"train": {}, "profile": prof(1.0, 9000)}, {"train": {}, "profile": prof(300.0, 1000)},
          {"train": {}, "profile": prof(500.0, 800)},
          {"val": {"full_acc_0_epoch": 0.4, "full_acc_1_epoch": 0.1, "cond_acc_0_epoch": 0.4, "cond_acc_1_epoch": 0.25}}]
    g = b.speculators_figures(sp, 2)
    assert g["steps"] == 3 and g["median_tok_s"] == 400.0 and g["median_step_ms"] == 900.0
    assert g["heldout_acc"] == [0.4, 0.1]


def test_train_vs_speculators_help_needs_no_speculators():
    proc = subprocess.run([sys.executable, "bench/train_vs_speculators.py", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--speculators-python" in proc.stdout and "speculators 0.9.0" in proc.stdout


def test_train_vs_speculators_aggregates_seeds():
    """Targets over seeds: the median of the per-seed tok/s ratios, the mean of the per-seed step-0 margins (in
    speculators' definition: eaglekit's acc_draft_vocab) with its standard error; None where a side is missing."""
    b = _load_bench("train_vs_speculators")
    def ek(t, strict, dv):
        return {"median_tok_s": t, "heldout_acc": [strict, 0.1], "heldout_acc_draft_vocab": [dv, 0.1]}
    def sp(t, a):
        return {"median_tok_s": t, "heldout_acc": [a, 0.05]}
    seeds = [{"seed": 0, "eaglekit": ek(600.0, 0.15, 0.16), "speculators": sp(400.0, 0.17)},
             {"seed": 1, "eaglekit": ek(600.0, 0.16, 0.17), "speculators": sp(300.0, 0.16)},
             {"seed": 2, "eaglekit": ek(660.0, 0.17, 0.18), "speculators": sp(400.0, 0.15)}]
    a = b.aggregate(seeds)
    assert a["seeds"] == [0, 1, 2]
    assert a["tok_s_ratio_per_seed"] == [1.5, 2.0, 1.65] and a["tok_s_ratio"] == 1.65
    assert a["step0_margin_per_seed"] == [-0.01, 0.01, 0.03] and a["step0_margin"] == 0.01
    assert a["step0_margin_se"] == round(0.02 / 3 ** 0.5, 4)      # sample sd 0.02 over 3 seeds
    assert a["eaglekit_step0_acc_draft_vocab_mean"] == 0.17 and a["eaglekit_step0_acc_mean"] == 0.16
    assert a["speculators_step0_acc_mean"] == 0.16

    one = b.aggregate(seeds[:1])
    assert one["tok_s_ratio"] == 1.5 and one["step0_margin"] == -0.01 and one["step0_margin_se"] is None
    missing = b.aggregate([seeds[0], dict(seeds[1], speculators=None)])
    assert missing["tok_s_ratio"] is None and missing["step0_margin"] is None
    assert missing["tok_s_ratio_per_seed"] == [1.5, None]
    assert b.parse_args(["--seeds", "3"]).seeds == [0, 1, 2] and b.parse_args([]).seeds == [0]
    with pytest.raises(SystemExit):
        b.parse_args(["--turn-s", "0"])


def test_train_vs_speculators_runs_trainings_in_turns(tmp_path):
    """run_in_turns: both processes finish, never hold the CPU together (their work comes in blocks, not
    interleaved tick by tick as free-running processes would), and a failure is reported with its log."""
    b = _load_bench("train_vs_speculators")
    tick = ("import sys, time\n"
            "with open(sys.argv[1], 'a') as f:\n"
            "    for _ in range(30):\n"
            "        f.write(f'{time.time()} {sys.argv[2]}\\n'); f.flush(); time.sleep(0.03)\n")
    stamps = tmp_path / "stamps"
    jobs = [b.Job([sys.executable, "-c", tick, str(stamps), name], tmp_path / f"{name}.log", dict(os.environ))
            for name in ("a", "b")]
    b.run_in_turns(jobs, turn_s=0.3)
    assert [j.rc for j in jobs] == [0, 0] and all(j.active_s > 0.5 for j in jobs)
    order = [line.split()[1] for line in sorted(stamps.read_text().splitlines(), key=lambda x: float(x.split()[0]))]
    assert order.count("a") == order.count("b") == 30
    switches = sum(x != y for x, y in zip(order, order[1:]))
    assert 2 <= switches <= 12          # turns of ~10 ticks; free-running processes would switch ~60 times

    bad = b.Job([sys.executable, "-c", "raise SystemExit('no data here')"], tmp_path / "bad.log", dict(os.environ))
    b.run_in_turns([bad], turn_s=0.3)
    assert bad.rc == 1 and "no data here" in bad.failure() and "bad.log" in bad.failure()
