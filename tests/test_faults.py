"""Careless input and faults (issue #21): nothing runs silently wrong. Each test is one fault that used to
run (or end) wrongly; docs/faults.md lists every fault tried and what it gives now."""
import json
import os
import textwrap

import pytest
from click.testing import CliRunner

from eaglekit.cli import main


# ---------------------------------------------------------------------------------------------
# 1. A mistyped flag stops the run before any work (Beam only warned and carried on)

def test_typo_flag_with_config_stops_before_any_stage(tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text('{"prompt": "hello there"}\n')
    cfg = tmp_path / "run.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        workdir: {tmp_path / "w"}
        clean: {{inputs: ["{src}"], pii: {{model: "blank:en"}}}}
        featurize: {{target: tiny}}
        generate: {{target: tiny}}
        """))
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(cfg), "--chek"])
    assert r.exit_code == 2, r.output
    assert "--chek" in r.output and "--check" in r.output  # the near match is named
    assert not (tmp_path / "w").exists()  # no stage ran


@pytest.mark.parametrize("flag, hint", [("--bogus-flag", "no such option"),
                                        ("--direct_num_worker=2", "--direct_num_workers"),
                                        ("--max_chars", "--max-chars")])
def test_unknown_stage_flag_is_refused_with_near_matches(tmp_path, flag, hint):
    src = tmp_path / "p.jsonl"
    src.write_text('{"prompt": "hello"}\n')
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", str(src), "--output", str(tmp_path / "out"),
                                  flag])
    assert r.exit_code == 2 and hint in r.output and flag.split("=")[0] in r.output, r.output
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob("out.tmp-*"))


def test_real_beam_flags_still_pass_through():
    from click import Context, command

    from eaglekit.cli.beam import beam_flags
    ctx = Context(command("x")(lambda: None))
    ctx.args = ["--project", "p", "--region=eu", "--save_main_session", "--direct_running_mode",
                "multi_processing", "--direct_num_workers=2", "--setup_file", "./setup.py"]
    assert beam_flags(ctx) == tuple(ctx.args)


def test_beam_run_help_lists_the_config_options():
    r = CliRunner().invoke(main, ["beam", "run", "--help"])
    assert r.exit_code == 0
    for opt in ("--config", "--check", "--runner", "--workdir"):
        assert opt in r.output, opt


# ---------------------------------------------------------------------------------------------
# 2-3. Corrupt shards: train and inspect check every sha256 (remembered per size+mtime) and turn every
# pyarrow read error into one line naming the shard

@pytest.fixture
def shards(tmp_path, tiny_target, monkeypatch):
    from test_train_data import make_shards
    monkeypatch.setenv("EAGLEKIT_CACHE", str(tmp_path / "cache"))  # the checksum cache of this test only
    return make_shards(tmp_path / "feats", tiny_target)


def _shard(path):
    return sorted(path.glob("shard-*.arrow"))[0]


def _flip_middle_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF   # same size, footer intact: pyarrow reads it without complaint
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("command", [["train", "--target", "tiny", "--max-steps", "1", "--no-progress"],
                                     ["data", "inspect"]])
def test_corrupt_shard_is_refused_by_name(shards, tmp_path, command):
    shard = _shard(shards)
    _flip_middle_byte(shard)
    args = command[:1] + (["--data", str(shards), "--out", str(tmp_path / "run")] + command[1:]
                          if command[0] == "train" else command[1:] + [str(shards)])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert shard.name in r.output and "sha256" in r.output and "corrupt" in r.output
    assert not (tmp_path / "run" / "best").exists()


def test_checksums_are_hashed_once_until_the_file_changes(shards, monkeypatch):
    from eaglekit import shards as S
    calls = []
    real = S.file_sha256
    monkeypatch.setattr(S, "file_sha256", lambda p: calls.append(p) or real(p))
    ds = S.open_features(shards)
    ds.verify_checksums()
    n = len(calls)
    assert n == len(ds.shards) >= 1
    S.open_features(shards).verify_checksums()   # a second run trusts the remembered digests
    assert len(calls) == n
    shard = _shard(shards)
    st = shard.stat()
    _flip_middle_byte(shard)
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # same size, new mtime: hashed again
    from eaglekit.contract import ContractError
    with pytest.raises(ContractError, match="sha256"):
        S.open_features(shards).verify_checksums()
    assert len(calls) == n + 1


@pytest.mark.parametrize("command", [["train", "--target", "tiny", "--max-steps", "1", "--no-progress"],
                                     ["data", "inspect"]])
def test_damaged_arrow_footer_is_one_line(shards, tmp_path, command):
    shard = _shard(shards)
    data = bytearray(shard.read_bytes())
    data[-40:-10] = b"\xff" * 30   # inside the footer flatbuffer; size unchanged
    shard.write_bytes(bytes(data))
    args = command[:1] + (["--data", str(shards), "--out", str(tmp_path / "run")] + command[1:]
                          if command[0] == "train" else command[1:] + [str(shards)])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert shard.name in r.output and "not a readable Arrow IPC file" in r.output
    assert len([line for line in r.output.splitlines() if line.strip()]) == 1


# ---------------------------------------------------------------------------------------------
# 4. A stage that made nothing from something, or lost most of its records, fails

def test_generate_with_unreachable_server_exits_non_zero(tmp_path):
    from test_generate import PROMPTS, write_prompts
    write_prompts(tmp_path / "clean", PROMPTS[:2])
    r = CliRunner().invoke(main, ["beam", "run", "generate", "--input", str(tmp_path / "clean"), "--output",
                                  str(tmp_path / "gen"), "--target", "tiny", "--backend", "openai",
                                  "--api-base", "http://127.0.0.1:9"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert "2 records in, none out (generation_error=2)" in r.output
    assert not (tmp_path / "gen").exists()  # nothing for featurize to pick up


def test_generate_fails_above_the_dead_letter_share(tmp_path):
    from beam_jobs.generate import GenerateConfig, run_generate
    from beam_jobs.io import YieldError
    from test_generate import PROMPTS, write_prompts
    write_prompts(tmp_path / "clean", PROMPTS)  # 1 of 4 has no user turn: 25% dead letters
    cfg = GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                         max_new_tokens=2, batch_size=4, max_dead_letter_share=0.2)
    with pytest.raises(YieldError, match=r"1 of 4 records \(25%\) became dead letters \(bad_messages=1\)"):
        run_generate(cfg)
    assert not (tmp_path / "gen").exists()


def test_featurize_with_no_rows_fails(tmp_path):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from beam_jobs.generate import GenerateConfig, run_generate
    from beam_jobs.io import YieldError
    from test_generate import PROMPTS, write_prompts
    write_prompts(tmp_path / "clean", PROMPTS[:2])
    run_generate(GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                                max_new_tokens=2))
    with pytest.raises(YieldError, match=r"2 records in, none out \(too_long=2\)"):
        run_featurize(FeaturizeConfig(input=str(tmp_path / "gen"), output=str(tmp_path / "feat"), target="tiny",
                                      max_length=3, overflow="drop"))
    assert not (tmp_path / "feat").exists()


def test_check_yield_counts_only_error_reasons_for_clean():
    from beam_jobs.io import YieldError, check_yield
    # clean: duplicates, contamination and PII drops are the stage working, not failing
    check_yield("clean", 100, 20, {"exact_duplicate": 50, "near_duplicate": 25, "malformed_json": 5}, 0.5,
                count_reasons={"malformed_json"})
    with pytest.raises(YieldError, match="60 of 100"):
        check_yield("clean", 100, 20, {"exact_duplicate": 20, "malformed_json": 60}, 0.5,
                    count_reasons={"malformed_json"})
    with pytest.raises(YieldError, match="none out"):
        check_yield("clean", 3, 0, {"exact_duplicate": 3}, 0.5, count_reasons={"malformed_json"})
    check_yield("generate", 0, 0, {}, 0.5)  # nothing in, nothing out: not a failure
    check_yield("generate", 10, 5, {"generation_error": 5}, 0.5)  # exactly the share: allowed


# ---------------------------------------------------------------------------------------------
# 7. Staging folders of killed or failed runs are removed by the next run of the same output

def test_stale_staging_folders_are_removed_but_live_ones_kept(tmp_path, capsys):
    import subprocess
    import sys
    import threading
    import time

    from beam_jobs import io
    out = str(tmp_path / "out")
    # a run killed mid-way: its process is gone, its folder stays
    code = (f"import os; from beam_jobs import io; p = io.staging_path({out!r}); os.makedirs(p, exist_ok=True); "
            f"open(os.path.join(p, 'part'), 'w').write('x'); print(p)")
    dead = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.dirname(__file__))).stdout.strip().splitlines()[-1]
    assert os.path.isdir(dead)
    # a folder of an older eaglekit (no owner in its name), untouched for a day
    legacy = out + ".tmp-0123abcd"
    os.makedirs(legacy)
    os.utime(legacy, (time.time() - 86400, time.time() - 86400))
    # a job of this process still running in another thread
    made, done = [], threading.Event()
    t = threading.Thread(target=lambda: (made.append(io.staging_path(out)), done.wait(30)))
    t.start()
    while not made:
        time.sleep(0.01)
    live = made[0]
    try:
        mine = io.staging_path(out)
        err = capsys.readouterr().err
        assert not os.path.exists(dead) and not os.path.exists(legacy)
        assert os.path.isdir(live) and os.path.isdir(mine)
        assert f"removed stale staging folder {dead}" in err and "no longer running" in err and legacy in err
    finally:
        done.set()
        t.join()
    io.publish_output(mine, out)
    io.staging_path(out)  # the finished thread's folder is stale now
    assert not os.path.exists(live)


def test_failed_run_leaves_no_staging_folder(tmp_path):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from beam_jobs.generate import GenerateConfig, run_generate
    from test_generate import PROMPTS, write_prompts
    write_prompts(tmp_path / "clean", PROMPTS[:1])
    run_generate(GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                                max_new_tokens=2))
    with pytest.raises(Exception):  # noqa: B017 - any failure inside the run
        run_featurize(FeaturizeConfig(input=str(tmp_path / "gen"), output=str(tmp_path / "feat"), target="tiny",
                                      dtype="no-such-dtype"))
    assert not list(tmp_path.glob("feat*"))


# ---------------------------------------------------------------------------------------------
# 5-6 and the server items of 8: abandoned requests stop, long prompts do not stall short ones, every
# endpoint but /health needs the key, counters and latency histograms are typed as such

KEY = "sk-faults"


class _SlowEngine:
    """An EagleEngine whose target forward costs `per_token` seconds per input token (as a real one's
    prefill does), recording every Generation it starts."""

    def __new__(cls, target, per_token=0.002, **kw):
        from serving.engine import EagleEngine

        class Slow(EagleEngine):
            def _target(self, ids, positions, bias, cache, hidden):
                import time
                time.sleep(per_token * ids.shape[1])
                return super()._target(ids, positions, bias, cache, hidden)

            def start(self, prompt_ids, params=None):
                gen = super().start(prompt_ids, params)
                self.started_gens.append(gen)
                return gen

        eng = Slow(target, None, **kw)
        eng.started_gens = []
        return eng


@pytest.fixture
def slow_server(tiny_target):
    from serving.server import create_app, running_server
    engine = _SlowEngine(tiny_target, per_token=0.002, prefill_chunk=32)
    app = create_app(engine, model_name="tiny", api_key=KEY, max_tokens_limit=1800, max_prompt_tokens=1200)
    with running_server(app) as url:
        yield url, engine, app


H = {"Authorization": f"Bearer {KEY}"}


def test_abandoned_non_streaming_request_is_cancelled(slow_server):
    import time

    import httpx
    url, engine, app = slow_server
    with pytest.raises(httpx.TimeoutException):
        httpx.post(url + "/v1/completions", headers=H, timeout=1.0,
                   json={"prompt": "hi", "max_tokens": 1500, "ignore_eos": True})
    gen = engine.started_gens[-1]
    deadline = time.time() + 5
    while app.state.scheduler.active and time.time() < deadline:
        time.sleep(0.05)
    assert not app.state.scheduler.active  # stopped, not generating 1,500 tokens for nobody
    n = len(gen.output_ids)
    time.sleep(0.3)
    assert len(gen.output_ids) == n < 1500 and not gen.finished
    metrics = httpx.get(url + "/metrics", headers=H).text
    assert "eaglekit_cancelled 1.0" in metrics


def test_long_prompt_does_not_stall_short_requests(slow_server):
    import threading
    import time

    import httpx
    url, engine, _ = slow_server
    long_ids = [5 + (i % 400) for i in range(1000)]  # ~2 s of prefill at 2 ms a token
    done = {}

    def ask(name, prompt, max_tokens):
        t0 = time.perf_counter()
        r = httpx.post(url + "/v1/completions", headers=H, timeout=60,
                       json={"prompt": prompt, "max_tokens": max_tokens, "ignore_eos": True})
        done[name] = (time.perf_counter() - t0, r.status_code)

    long = threading.Thread(target=ask, args=("long", long_ids, 2))
    long.start()
    while not engine.started_gens:
        time.sleep(0.01)
    time.sleep(0.2)  # the long prefill is under way
    ask("short", "hi", 3)
    long.join()
    assert done["long"][1] == done["short"][1] == 200
    assert done["short"][0] < 0.6 * done["long"][0], done  # served between the long prompt's prefill chunks


def test_chunked_prefill_gives_the_same_tokens(tiny_target):
    from serving.engine import EagleEngine, SamplingParams
    from serving.testing import random_head
    ids = [5 + (i * 7) % 300 for i in range(70)]
    params = SamplingParams(max_new_tokens=12, ignore_eos=True)
    for head in (None, random_head(tiny_target)):
        whole = EagleEngine(tiny_target, head, 3, 1, 4, prefill_chunk=4096).generate(ids, params).output_ids
        chunked = EagleEngine(tiny_target, head, 3, 1, 4, prefill_chunk=16).generate(ids, params).output_ids
        assert chunked == whole


def test_prompt_over_max_prompt_tokens_is_a_clear_400(slow_server):
    import httpx
    url, _, _ = slow_server
    r = httpx.post(url + "/v1/completions", headers=H, json={"prompt": [7] * 1300, "max_tokens": 2})
    assert r.status_code == 400 and "1300 tokens" in r.json()["error"]["message"]
    assert "--max-prompt-tokens" in r.json()["error"]["message"]


def test_every_endpoint_but_health_needs_the_key_and_metrics_are_typed(slow_server):
    import httpx
    url, _, _ = slow_server
    for path in ("/metrics", "/server_info", "/v1/models"):
        assert httpx.get(url + path).status_code == 401, path
    assert httpx.get(url + "/health").status_code == 200  # a bare liveness answer, nothing else
    httpx.post(url + "/v1/completions", headers=H, json={"prompt": "hi", "max_tokens": 3, "ignore_eos": True})
    text = httpx.get(url + "/metrics", headers=H).text
    types = dict(line.split()[2:4] for line in text.splitlines() if line.startswith("# TYPE"))
    for counter in ("eaglekit_requests", "eaglekit_output_tokens", "eaglekit_prompt_tokens",
                    "eaglekit_completion_tokens", "eaglekit_errors_4xx", "eaglekit_requests_finished"):
        assert types[counter] == "counter", counter
    assert types["eaglekit_running"] == "gauge" and types["eaglekit_mean_accept_length"] == "gauge"
    for hist in ("eaglekit_time_to_first_token_seconds", "eaglekit_time_per_output_token_seconds"):
        assert types[hist] == "histogram"
        assert f'{hist}_bucket{{le="+Inf"}} 1' in text and f"{hist}_count 1" in text and f"{hist}_sum " in text


def test_serve_help_documents_the_api_key_env_var():
    from eaglekit.cli.serve import serve
    r = CliRunner().invoke(serve, ["--help"])
    assert "EAGLEKIT_API_KEY" in r.output


def test_serve_dry_run_on_a_cpu_box_prints_the_sglang_command_with_pass_through_args(monkeypatch):
    import torch

    from eaglekit.cli.serve import serve
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    r = CliRunner().invoke(serve, ["--model", "/models/llama", "--draft", "out/head", "--dry-run", "--", "--tp", "2"])
    assert "sglang.launch_server" in r.output and "--tp 2" in r.output, r.output
    assert "embedded engine" in r.output  # and says what this box would run without --dry-run
    r = CliRunner().invoke(serve, ["--backend", "embedded", "--model", "tiny", "--", "--tp", "2"])
    assert r.exit_code != 0 and "takes no pass-through args" in r.output


# ---------------------------------------------------------------------------------------------
# 8. Training leftovers: export of a run without best/, metrics.jsonl after a resume, the quickstart's
# acceptance length on the bench's scale

def test_export_of_a_run_without_best_and_metrics_after_resume(tmp_path, tiny_target, monkeypatch):
    from eaglekit.train import TrainConfig, train
    from test_train_data import make_shards
    monkeypatch.setenv("EAGLEKIT_CACHE", str(tmp_path / "cache"))
    data = make_shards(tmp_path, tiny_target)
    run = tmp_path / "run"
    cfg = TrainConfig(data=str(data), target="tiny", out=str(run), seq_len=48, batch_size=1, ttt_steps=2,
                      draft_vocab_size=512, heldout_fraction=0.0, log_every=1, eval_every=1000, save_every=3,
                      max_steps=7, stop_after=5, progress=False, prefetch=0)
    train(cfg, target=tiny_target)   # "killed" after step 5: checkpoints/step-3, no best/
    assert not (run / "best").exists() and (run / "checkpoints" / "step-00000003").is_dir()
    r = CliRunner().invoke(main, ["train", "export", str(run), str(tmp_path / "head")])
    assert r.exit_code == 0, r.output
    assert "latest step checkpoint" in r.output and "step-00000003" in r.output
    assert (tmp_path / "head" / "config.json").is_file()
    cfg.resume, cfg.stop_after = True, None
    train(cfg, target=tiny_target)   # resumes from step 3 and logs 4.. again
    steps = [json.loads(line)["step"] for line in open(run / "metrics.jsonl") if not json.loads(line).get("eval")]
    assert steps == list(range(1, 8)), steps


def test_quickstart_reports_acceptance_on_the_bench_scale(tmp_path):
    from rich.console import Console

    from eaglekit.cli.quickstart import QuickstartConfig, print_report
    console = Console(record=True, width=400)
    out = {"results": {"train": {"step": 300, "tokens": 1000, "best_step": 300, "sim_accept_len": 0.3351340405518395,
                                 "best_eval": {"acc": [0.4]}},
                       "bench": {"runs": [{"setting": [3, 1, 4], "output_tok_s": 20.0, "accept_length": 1.56,
                                           "speedup": 1.1}]}},
           "timings": {}, "total_s": 60.0}
    print_report(QuickstartConfig(workdir=str(tmp_path)), out, console)
    text = console.export_text()
    assert "0.3351340405518395" not in text
    assert "held-out simulated acceptance length 1.34 (tokens per verify step, bonus token included" in text
    assert "acceptance length 1.56" in text


def test_train_summary_gives_the_acceptance_length_with_the_bonus_token():
    import torch

    from eaglekit.train import summarize
    stats = torch.tensor([[0.0, 10, 5, 10, 5], [0.0, 10, 5, 5, 2]])  # cacc 0.5 then 0.4
    s = summarize(stats)
    assert abs(s["sim_accept_len"] - (0.5 + 0.5 * 0.4)) < 1e-9 and abs(s["sim_tau"] - 1.7) < 1e-9


def test_clean_fails_when_most_records_are_unreadable(tmp_path):
    """#21.4 for clean: unreadable records over the share stop the run; duplicates and PII drops never count."""
    from click.testing import CliRunner
    from eaglekit.cli import main
    src = tmp_path / "bad.jsonl"
    src.write_text('not json\n{bad\n[1,\n{"prompt": "What is 2+2?"}\n{"prompt": "What is 2+2?"}\n')
    args = ["beam", "run", "clean", "--input", str(src), "--no-pii", "--format", "jsonl"]
    res = CliRunner().invoke(main, [*args, "--output", str(tmp_path / "a")])
    assert res.exit_code == 1 and "malformed_json=3" in res.output and "--max-dead-letter-share" in res.output
    assert not (tmp_path / "a").exists()
    res = CliRunner().invoke(main, [*args, "--output", str(tmp_path / "b"), "--max-dead-letter-share", "0.7"])
    assert res.exit_code == 0 and (tmp_path / "b" / "manifest.json").exists(), res.output
