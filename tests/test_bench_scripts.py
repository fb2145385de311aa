"""The GPU-check path of the bench scripts, run on CPU: bench/tiny_target.py distils a loadable target, and
bench/serve.py --no-concurrency (what a GPU box without the HTTP stack runs) ends with its JSON line."""
import json
import os
import subprocess
import sys
from pathlib import Path

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
