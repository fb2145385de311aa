"""Launcher: SGLang/vLLM command building, head-vs-target checks from config.json + safetensors names,
--dry-run, health wait and signal forwarding (all without SGLang installed)."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from safetensors.torch import save_file

from eaglekit.config import ConfigError
from eaglekit.models import save_target
from serving.launch import LaunchError, ServeConfig, check_head, sglang_command, vllm_command
from serving.testing import random_head


def _export(head, target, out: Path, rename=None, drop=(), cfg_patch=None) -> Path:
    """Write a head the way SGLang reads it (our own minimal writer, independent of eaglekit.export)."""
    out.mkdir(parents=True, exist_ok=True)
    sd = {k: v.contiguous() for k, v in head.state_dict().items() if k not in drop}
    if rename:
        sd = {rename.get(k, k): v for k, v in sd.items()}
    save_file(sd, str(out / "model.safetensors"))
    c, tc = head.cfg, target.model.config
    cfg = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "num_hidden_layers": 1,
           "hidden_size": c.hidden_size, "num_attention_heads": c.num_attention_heads,
           "num_key_value_heads": c.num_key_value_heads, "head_dim": c.head_dim,
           "intermediate_size": c.intermediate_size, "vocab_size": c.vocab_size, "draft_vocab_size": c.draft_vocab_size,
           "target_hidden_size": c.target_hidden_size, "max_position_embeddings": tc.max_position_embeddings,
           "rms_norm_eps": c.rms_norm_eps, "tie_word_embeddings": False,
           "eagle_config": {"eagle_aux_hidden_state_layer_ids": [v - 1 for v in c.aux_layer_ids_hf]}}
    cfg.update(cfg_patch or {})
    (out / "config.json").write_text(json.dumps(cfg))
    return out


@pytest.fixture(scope="module")
def dirs(tiny_target, tmp_path_factory):
    root = tmp_path_factory.mktemp("launch")
    tdir = save_target(tiny_target, root / "target")
    head = random_head(tiny_target, draft_vocab_size=256)
    return root, tdir, head


def test_good_head_passes(dirs, tiny_target):
    root, tdir, head = dirs
    hd = _export(head, tiny_target, root / "good")
    errors, warnings = check_head(hd, json.loads((tdir / "config.json").read_text()))
    assert errors == [], errors


def test_misnamed_missing_and_mismatched_heads_fail(dirs, tiny_target):
    root, tdir, head = dirs
    tcfg = json.loads((tdir / "config.json").read_text())
    bad = _export(head, tiny_target, root / "misnamed", rename={"midlayer.hidden_norm.weight": "midlayer.hnorm.weight"})
    errors, _ = check_head(bad, tcfg)
    assert any("hnorm" in e for e in errors) and any("missing" in e and "hidden_norm" in e for e in errors)
    # `layers.0.` and a `model.` prefix are names SGLang also loads
    ok = _export(head, tiny_target, root / "layers0", rename={k: "model." + k.replace("midlayer.", "layers.0.")
                                                               for k in head.state_dict()})
    assert check_head(ok, tcfg)[0] == []
    errors, _ = check_head(_export(head, tiny_target, root / "nodv", drop=("d2t",),
                                   cfg_patch={"draft_vocab_size": None}) , tcfg)
    assert any("d2t" in e for e in errors)
    short = _export(head, tiny_target, root / "ctx", cfg_patch={"max_position_embeddings": 128})
    assert any("max_position_embeddings" in e for e in check_head(short, tcfg)[0])
    other = dict(tcfg, hidden_size=128, vocab_size=1000, num_hidden_layers=3)
    errs = check_head(root / "good", other)[0]
    assert any("hidden size" in e for e in errs) and any("vocab_size" in e for e in errs)
    assert any("layer_ids" in e for e in errs)
    tied = _export(head, tiny_target, root / "tied", cfg_patch={"tie_word_embeddings": True,
                                                                 "architectures": ["LlamaForCausalLM"]})
    assert len(check_head(tied, tcfg)[0]) == 2


def test_sglang_and_vllm_commands(dirs):
    root, tdir, _ = dirs
    cfg = ServeConfig(model=str(tdir), draft=str(root / "good"), backend="sglang", port=31000, num_steps=5, topk=4,
                      num_draft_tokens=8, mem_fraction=0.8, cuda_graph_max_bs=16, max_running_requests=32,
                      extra_args=["--tp-size", "2"])
    cmd = sglang_command(cfg, python="python")
    assert cmd[:3] == ["python", "-m", "sglang.launch_server"]
    s = " ".join(cmd)
    for part in ["--speculative-algorithm EAGLE3", f"--speculative-draft-model-path {root / 'good'}",
                 "--speculative-num-steps 5", "--speculative-eagle-topk 4", "--speculative-num-draft-tokens 8",
                 "--mem-fraction-static 0.8", "--cuda-graph-max-bs-decode 16", "--max-running-requests 32",
                 "--port 31000"]:
        assert part in s
    assert s.endswith("--tp-size 2") and "--disable-overlap-schedule" not in s
    cfg.disable_overlap_schedule = True
    assert "--disable-overlap-schedule" in sglang_command(cfg)
    with pytest.raises(LaunchError):
        vllm_command(cfg)  # vLLM drafts chains only
    cfg.topk, cfg.num_steps, cfg.num_draft_tokens = 1, 3, 4
    v = vllm_command(cfg)
    spec = json.loads(v[v.index("--speculative-config") + 1])
    assert spec == {"method": "eagle3", "model": str(root / "good"), "num_speculative_tokens": 3}
    with pytest.raises(ConfigError, match="num_draft_tokens: a chain"):  # checked when built
        ServeConfig(num_steps=3, topk=1, num_draft_tokens=8)


def test_serve_dry_run_cli(dirs):
    from eaglekit.cli.serve import serve
    root, tdir, _ = dirs
    r = CliRunner().invoke(serve, ["--model", str(tdir), "--draft", str(root / "good"), "--backend", "sglang",
                                   "--topk", "4", "--num-steps", "4", "--dry-run", "--", "--tp-size", "2"])
    assert r.exit_code == 0, r.output
    assert "sglang.launch_server" in r.output and "--speculative-num-draft-tokens 8" in r.output
    assert "--tp-size 2" in r.output
    r = CliRunner().invoke(serve, ["--model", str(tdir), "--draft", str(root / "misnamed"), "--backend", "sglang",
                                   "--dry-run"])
    assert r.exit_code == 2 and "ERROR" in r.output and "hnorm" in r.output
    r = CliRunner().invoke(serve, ["--model", str(tdir), "--draft", str(root / "misnamed"), "--backend", "sglang"])
    assert r.exit_code != 0 and "hnorm" in r.output  # refuses to launch a head SGLang would half-load


FAKE_SERVER = r'''
import http.server, signal, sys, time
time.sleep(0.5)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *a): pass
def bye(signum, frame):
    open(sys.argv[2], "w").write(str(signum)); sys.exit(0)
signal.signal(signal.SIGINT, bye); signal.signal(signal.SIGTERM, bye)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def _free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_supervise_waits_for_health_and_forwards_signals(tmp_path, sig):
    port, marker = _free_port(), tmp_path / "got"
    (tmp_path / "fake.py").write_text(FAKE_SERVER)
    code = (f"import sys; from serving.launch import supervise; "
            f"sys.exit(supervise([sys.executable, {str(tmp_path / 'fake.py')!r}, '{port}', {str(marker)!r}], "
            f"'http://127.0.0.1:{port}/health', 'http://127.0.0.1:{port}/v1', timeout=30, grace=5))")
    # stdout a pipe and Python's own buffering on (no PYTHONUNBUFFERED), as a log file or `| tee` gets it: "ready"
    # must come through at once
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            cwd=str(Path(__file__).resolve().parents[1]), env=env)
    out = b""
    deadline = time.time() + 30
    while time.time() < deadline and b"ready" not in out:  # raw reads: a line left in a reader's buffer never wakes select
        if select.select([proc.stdout], [], [], max(0.0, deadline - time.time()))[0]:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            out += chunk
    if b"ready" not in out:
        proc.kill()
    assert "ready: OpenAI-compatible API at http://127.0.0.1" in out.decode(), out
    proc.send_signal(sig)
    assert proc.wait(timeout=20) == 0
    assert marker.read_text() == str(int(sig))  # the server got the same signal and shut down cleanly


def test_supervise_reports_early_exit():
    from serving.launch import supervise
    code = supervise([sys.executable, "-c", "import sys; sys.exit(3)"], "http://127.0.0.1:9/health",
                     "http://127.0.0.1:9/v1", timeout=10, grace=2, echo=lambda m: None)
    assert code == 3


PARSER_VENV = Path(os.environ.get("SGLANG_PARSER_VENV",
                                  Path(os.environ.get("EAGLEKIT_CACHE", Path.home() / ".cache" / "eaglekit"))
                                  / "sglang-parser-venv"))


@pytest.mark.skipif(not (PARSER_VENV / ".ready").is_file(), reason="SGLang parser venv absent (bench/sglang_parser_check.sh builds it)")
def test_sglang_own_parser_accepts_the_command(dirs):
    root, tdir, _ = dirs
    repo = Path(__file__).resolve().parents[1]
    args = ["--model", str(tdir), "--draft", str(root / "good"), "--topk", "4", "--num-steps", "5",
            "--num-draft-tokens", "8", "--cuda-graph-max-bs", "8", "--max-running-requests", "16"]
    r = subprocess.run([str(PARSER_VENV / "bin/python"), "-m", "eaglekit.cli.serve", "--parser-check", *args],
                       capture_output=True, text=True, cwd=str(repo), env={**os.environ, "PYTHONPATH": str(repo)},
                       timeout=120)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert r.returncode == 0 and out["accepted"], (r.stdout, r.stderr[-2000:])
    assert out["parsed"]["speculative_eagle_topk"] == 4 and out["parsed"]["cuda_graph_max_bs_decode"] == 8
    # and the parser does reject what SGLang does not know: the check can fail
    r = subprocess.run([str(PARSER_VENV / "bin/python"), "-m", "eaglekit.cli.serve", "--parser-check", *args, "--",
                        "--no-such-flag"], capture_output=True, text=True, cwd=str(repo),
                       env={**os.environ, "PYTHONPATH": str(repo)}, timeout=120)
    assert r.returncode != 0
