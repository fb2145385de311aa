"""`eaglekit bench`: report JSON with acceptance, TPOT, speed-up and crossover, PNG plots, and the
endpoint path against a live embedded server."""
import json

from click.testing import CliRunner

from serving.bench import BenchConfig, run_bench
from eaglekit.cli.bench import bench
from serving.engine import EagleEngine
from serving.server import create_app, running_server
from serving.testing import random_head


def test_bench_embedded_cli_writes_json_and_png(tmp_path):
    r = CliRunner().invoke(bench, ["--model", "tiny", "--num-prompts", "3", "--max-tokens", "6", "--setting", "2,1,3",
                                   "--setting", "2,2,4,0.1", "--concurrency", "1", "--concurrency", "2",
                                   "--output", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    runs = report["runs"]
    assert {json.dumps(r["setting"]) for r in runs} == {'"baseline"', "[2, 1, 3]", "[2, 2, 4, 0.1]"}
    eagle = [r for r in runs if r["setting"] != "baseline"]
    assert all(r["identical_to_baseline"] and r["speedup"] > 0 and r["accept_length"] >= 1 for r in eagle)
    assert all(r["tpot_median_ms"] > 0 and r["failed"] == 0 for r in runs)
    assert set(runs[0]["per_category"]) == {"chat", "code", "math"}
    assert "UNTRAINED" in report["head"] and "crossover_concurrency" in report
    for png in ("concurrency.png", "categories.png"):
        assert (tmp_path / "out" / png).read_bytes()[:4] == b"\x89PNG"


def test_bench_rejects_malformed_settings_before_running():
    for bad in ("3,4", "3,4,8,x", "3,4,8,1.5", "3,4,8,0.1,2"):
        r = CliRunner().invoke(bench, ["--model", "tiny", "--setting", bad, "--output", ""])
        assert r.exit_code == 2 and "STEPS,TOPK,NUM_DRAFT_TOKENS" in r.output and "baseline" not in r.output, bad


def test_autotune_picks_the_fastest_setting_per_concurrency_with_its_serve_flags():
    from serving.bench import autotune_pick
    runs = [{"setting": "baseline", "concurrency": 1, "output_tok_s": 50.0},
            {"setting": [3, 1, 4], "concurrency": 1, "output_tok_s": 60.0, "accept_length": 1.8, "speedup": 1.2},
            {"setting": [5, 4, 12, 0.05], "concurrency": 1, "output_tok_s": 70.0, "accept_length": 2.1, "speedup": 1.4},
            {"setting": [3, 1, 4], "concurrency": 8, "output_tok_s": 90.0, "accept_length": 1.8, "speedup": 0.9},
            {"setting": [5, 4, 12, 0.05], "concurrency": 8, "output_tok_s": 80.0, "accept_length": 2.1, "speedup": 0.8}]
    pick = autotune_pick({"runs": runs})
    assert pick["1"]["serve_flags"] == "--num-steps 5 --topk 4 --num-draft-tokens 12 --min-draft-prob 0.05"
    assert pick["8"]["setting"] == [3, 1, 4] and pick["8"]["serve_flags"] == "--num-steps 3 --topk 1 --num-draft-tokens 4"


def test_bench_against_endpoint(tiny_target, tmp_path):
    engine = EagleEngine(tiny_target, random_head(tiny_target), 2, 1, 3)
    app = create_app(engine, model_name="tiny")
    with running_server(app) as base:
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"prompt": "What is", "category": "a"}\n{"messages": [{"role": "user", "content": "Hi"}], '
                           '"category": "b"}\n')
        url = f"{base}/v1"
        rep = run_bench(BenchConfig(model="tiny", endpoint=url, baseline_endpoint=url, prompts=str(prompts),
                                    max_tokens=5, concurrency=[2], output=None))
    ep = next(r for r in rep["runs"] if r["setting"] == "endpoint")
    assert ep["failed"] == 0 and ep["output_tokens"] == 10 and ep["accept_length"] == 1.0
    assert set(ep["per_category"]) == {"a", "b"} and "speedup" in ep
