"""generate keeps the device busy: fixed-size model-step batches, device batches planned by tokens (not rows),
out-of-memory batches halved and retried instead of dead-lettered, Beam counters and a local progress display."""
import glob
import io as _io
import json

import pytest
import torch

from tests.test_generate import U, write_prompts


def test_plan_batches_counts_padded_tokens_not_rows():
    from beam_jobs.generate import plan_batches
    lengths = [10, 50, 12, 48, 11, 100]
    # budget 4 x (12 + 20): the three short rows fit together; 48 and 50 pad to 70 each -> 140 <= 160 ok
    batches = plan_batches(lengths, max_new_tokens=20, batch_tokens=160, max_rows=8)
    assert batches == [[0, 4, 2], [3, 1], [5]]
    for b in batches[:-1]:
        assert len(b) * (max(lengths[i] for i in b) + 20) <= 160
    # every row exactly once, sorted by length
    assert sorted(sum(batches, [])) == list(range(len(lengths)))
    # the row cap applies too
    assert plan_batches([5] * 10, 5, 10**9, max_rows=4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    # a row over the budget alone still gets a batch of its own
    assert plan_batches([500, 1], 10, 100, 8) == [[1], [0]]
    assert plan_batches([], 10, 100, 8) == []


def test_token_budget_from_free_gpu_memory(monkeypatch, tiny_target):
    from beam_jobs import generate as g
    cfg = tiny_target.config
    per = g.kv_bytes_per_token(cfg, "bfloat16")
    # 6 layers x 2 kv heads x 16 head dim x 2 (k, v) x 2 bytes, x1.5, + activations
    assert per == int(2 * 6 * 2 * 16 * 2 * 1.5) + 4 * 64
    assert g.batch_token_budget(10 * 2**30, per) == min(g.MAX_AUTO_BATCH_TOKENS, int(0.6 * 10 * 2**30) // per)
    assert g.batch_token_budget(0, per) == 1024
    assert g.default_batch_tokens(cfg, "cpu") == g.CPU_BATCH_TOKENS
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda index=None: (2 * 2**20, 80 * 2**30))
    assert g.default_batch_tokens(cfg, "cuda", "bfloat16") == g.batch_token_budget(2 * 2**20, per)
    assert g.GenerateConfig(input="", output="", device="cuda").rows_per_call() == 512
    assert g.GenerateConfig(input="", output="").rows_per_call() == 8
    assert g.GenerateConfig(input="", output="", batch_size=3).records_per_step() == 24


def test_model_step_batches_are_fixed_size():
    from beam_jobs.generate import GenerateConfig, _run_handler, load_backend
    from beam_jobs.handlers import LoadOnceHandler
    cfg = GenerateConfig(input="", output="", batch_size=4)
    h = LoadOnceHandler(cfg, load_backend, _run_handler, min_batch_size=cfg.records_per_step(),
                        max_batch_size=cfg.records_per_step())
    assert h.batch_elements_kwargs() == {"min_batch_size": 32, "max_batch_size": 32}


def _oom_above(monkeypatch, rows: int, poison: str | None = None):
    """Make HFBackend.generate raise CUDA out-of-memory for batches of more than `rows` prompts (and for any
    batch holding a prompt that decodes to contain `poison`); returns the list of batch sizes tried."""
    from beam_jobs.generate import HFBackend
    real = HFBackend.generate
    tried = []

    def generate(self, prompts):
        tried.append(len(prompts))
        if len(prompts) > rows:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        if poison and any(poison in self.tokenizer.decode(p) for p in prompts):
            raise RuntimeError("CUDA error: out of memory")
        return real(self, prompts)
    monkeypatch.setattr(HFBackend, "generate", generate)
    return tried


def test_out_of_memory_splits_the_batch_and_retries(monkeypatch, tiny_target):
    from beam_jobs.generate import GenerateConfig, generate_batch, load_backend
    cfg = GenerateConfig(input="", output="", target="tiny", max_new_tokens=4, batch_size=8)
    backend = load_backend(cfg)
    records = [{"id": f"r{i}", "source": "s", "messages": [U(f"Question number {i}?")]} for i in range(8)]
    tried = _oom_above(monkeypatch, 2)
    stats = {}
    out = generate_batch(records, backend, cfg, stats)
    assert all("conv" in r for r in out), out
    assert tried[0] == 8 and max(t for t in tried if t <= 2) == 2
    assert stats["oom_splits"] == 3 and stats["new_tokens"] > 0
    # after the out-of-memory, later batches are planned smaller
    assert backend.batch_tokens < 8 * (max(len(c["conv"]["turns"][0]["prompt_ids"]) for c in out) + 4)
    # the rest of a turn is re-planned with the lowered budget: one out-of-memory, not one per batch
    backend = load_backend(cfg)
    tried.clear()
    stats = {}
    out = generate_batch(records * 3, backend, cfg, stats)
    assert all("conv" in r for r in out) and tried.count(8) == 1 and stats["oom_splits"] == 3


def test_a_record_that_runs_out_of_memory_alone_is_the_only_dead_letter(monkeypatch, tiny_target):
    from beam_jobs.generate import GenerateConfig, generate_batch, load_backend
    cfg = GenerateConfig(input="", output="", target="tiny", max_new_tokens=4, batch_size=8)
    backend = load_backend(cfg)
    records = [{"id": f"r{i}", "source": "s", "messages": [U("HUGE" if i == 5 else f"Question {i}?")]}
               for i in range(8)]
    _oom_above(monkeypatch, 8, poison="HUGE")
    out = generate_batch(records, backend, cfg)
    dead = [r["dead"] for r in out if "dead" in r]
    assert [(d["id"], d["reason"]) for d in dead] == [("r5", "out_of_memory")]
    assert "out of memory" in dead[0]["detail"]
    assert sum("conv" in r for r in out) == 7


def test_other_errors_still_dead_letter_the_batch(monkeypatch, tiny_target):
    from beam_jobs.generate import GenerateConfig, HFBackend, generate_batch, load_backend
    cfg = GenerateConfig(input="", output="", target="tiny", max_new_tokens=4, batch_size=8)
    backend = load_backend(cfg)
    monkeypatch.setattr(HFBackend, "generate", lambda self, prompts: (_ for _ in ()).throw(ValueError("bad")))
    out = generate_batch([{"id": "a", "source": "s", "messages": [U("hi")]}], backend, cfg)
    assert out[0]["dead"]["reason"] == "generation_error"


def test_beam_run_survives_oom_reports_counters_and_progress(tmp_path, monkeypatch, tiny_target):
    from rich.console import Console

    from beam_jobs.generate import GenerateConfig, run_generate
    write_prompts(tmp_path / "clean", [[U(f"Tell me about the number {i}.")] for i in range(12)])
    tried = _oom_above(monkeypatch, 3)
    cfg = GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                         max_new_tokens=5, batch_size=6, inference_batch=12)
    buf = _io.StringIO()
    manifest = run_generate(cfg, progress=Console(file=buf, force_terminal=True, width=160))
    assert manifest["counts"]["generate"] == {"in": 12, "out": 12, "dropped": {}}
    assert tried.count(6) == 1 and max(tried) == 6  # one out-of-memory: halved, the rest re-planned smaller
    assert not glob.glob(str(tmp_path / "gen" / "dead_letters-*.jsonl")) or all(
        not open(f).read().strip() for f in glob.glob(str(tmp_path / "gen" / "dead_letters-*.jsonl")))
    t = manifest["throughput"]
    assert t["records"] == 12 and t["new_tokens"] > 0 and t["dead_letters"] == 0 and t["oom_splits"] == 1
    assert t["new_tokens_per_s"] > 0
    shown = buf.getvalue()
    assert "generate" in shown and "12/12" in shown and "new tok/s" in shown and "ETA" in shown
    json.dumps(manifest)


def test_no_progress_display_off_a_terminal(tmp_path, tiny_target, capsys):
    from beam_jobs.generate import GenerateConfig, _show_progress, run_generate
    assert _show_progress(None, "DirectRunner", ()) is False  # pytest's stderr is not a terminal
    assert _show_progress(True, "DataflowRunner", ()) is False
    assert _show_progress(True, "DirectRunner", ("--direct_running_mode=multi_processing",)) is False
    write_prompts(tmp_path / "clean", [[U("hi")]])
    run_generate(GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                                max_new_tokens=3))
    assert "new tok/s" not in capsys.readouterr().err
