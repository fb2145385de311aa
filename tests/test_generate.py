"""generate: token-exact conversations from the hf backend (tiny target) and from an OpenAI-compatible
server (a fake vLLM / SGLang on 127.0.0.1), dead letters and counts."""
import glob
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from eaglekit import __version__
from eaglekit.contract import arrow_schema, validate_schema

U = lambda t: {"role": "user", "content": t}  # noqa: E731


def write_prompts(folder, messages_list):
    os.makedirs(folder, exist_ok=True)
    schema = arrow_schema("prompt", {"eaglekit_version": __version__})
    rows = [{"id": f"p{i:03d}", "source": "src" if i % 2 else "other", "category": None if i % 3 else "qa",
             "messages": msgs, "provenance": {"file": "in.jsonl", "file_sha256": None, "record": i, "turn": 0},
             "pii": []} for i, msgs in enumerate(messages_list)]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), os.path.join(folder, "prompts-00000-of-00001.parquet"))


PROMPTS = [[U("What is the capital of France?")],
           [U("Write a Python function."), {"role": "assistant", "content": "old"}, U("Explain it.")],
           [{"role": "system", "content": "Be brief."}, U("How many days are in a week?")],
           [{"role": "assistant", "content": "no user turn"}]]


def read_convs(folder):
    files = glob.glob(os.path.join(folder, "conversations-*.parquet"))
    for f in files:
        validate_schema(pq.read_schema(f), "conversation", where=f)
    return sorted(sum((pq.read_table(f).to_pylist() for f in files), []), key=lambda r: r["id"])


def test_hf_generation_is_token_exact(tmp_path, tiny_target):
    from beam_jobs.generate import GenerateConfig, run_generate
    from eaglekit.chat import generation_stop_ids, next_prompt_ids, user_turns
    write_prompts(tmp_path / "clean", PROMPTS)
    cfg = GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                         max_new_tokens=6, batch_size=2)
    manifest = run_generate(cfg)
    c = manifest["counts"]["generate"]
    assert c == {"in": 4, "out": 3, "dropped": {"bad_messages": 1}}
    dead = [json.loads(l) for f in glob.glob(str(tmp_path / "gen" / "dead_letters-*.jsonl")) for l in open(f)]
    assert [(d["id"], d["reason"]) for d in dead] == [("p003", "bad_messages")]
    convs = read_convs(tmp_path / "gen")
    tok, model = tiny_target.tokenizer, tiny_target.model
    stops = generation_stop_ids(tok, model)
    for conv, msgs in zip(convs, PROMPTS):
        system, users = user_turns(msgs)
        turn = conv["turns"][0]
        assert turn["prompt_ids"] == next_prompt_ids(tok, system, users, [], stops)
        # batch-1 greedy from the same model: the stored ids are exactly what the target generates
        with torch.no_grad():
            out = model.generate(torch.tensor([turn["prompt_ids"]]), max_new_tokens=6, do_sample=False,
                                 eos_token_id=stops, pad_token_id=tok.pad_token_id)
        assert turn["response_ids"] == out[0, len(turn["prompt_ids"]):].tolist()[: len(turn["response_ids"])]
        assert conv["finish_reason"] in ("stop", "length")
        assert conv["sampling"]["temperature"] == 0.0 and conv["generator"]["backend"] == "hf"


class _FakeServer(BaseHTTPRequestHandler):
    """Answers every request with fixed ids plus the stop token; records what it was sent."""
    seen = []
    answer = [100, 101, 102]
    stop = 2

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, body))
        if self.path == "/v1/completions":
            out = {"choices": [{"text": "x", "token_ids": self.answer + [self.stop], "finish_reason": "stop"}]}
        elif self.path == "/generate":
            # SGLang reports the matched stop id; here it is left out of output_ids to test re-attaching it
            out = {"text": "x", "output_ids": list(self.answer),
                   "meta_info": {"finish_reason": {"type": "stop", "matched": self.stop}}}
        else:
            self.send_error(404)
            return
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _FakeServer.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("flavor", ["vllm", "sglang"])
def test_openai_backend_multi_turn_keeps_server_ids(tmp_path, fake_server, flavor, tiny_target):
    from beam_jobs.generate import GenerateConfig, run_generate
    from eaglekit.chat import join_turns
    write_prompts(tmp_path / "clean", PROMPTS[:2])
    cfg = GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                         backend="openai", api_base=fake_server, api_flavor=flavor, max_new_tokens=8)
    manifest = run_generate(cfg)
    assert manifest["counts"]["generate"] == {"in": 2, "out": 2, "dropped": {}}
    convs = read_convs(tmp_path / "gen")
    two = convs[1]
    assert len(two["turns"]) == 2 and all(t["response_ids"] == [100, 101, 102, 2] for t in two["turns"])
    # the second request carries the first turn's ids verbatim, then the template's next piece
    sent = [b for _, b in _FakeServer.seen]
    key = "prompt" if flavor == "vllm" else "input_ids"
    r = join_turns([t["prompt_ids"] for t in two["turns"]], [t["response_ids"] for t in two["turns"]])
    second_prompt = r.input_ids[: len(r.input_ids) - 4]
    assert second_prompt in [b[key] for b in sent]
    tok = tiny_target.tokenizer
    assert tok.decode(two["turns"][1]["prompt_ids"]).startswith("\n<|im_start|>user\nExplain it.")
    if flavor == "vllm":
        assert all(b["return_token_ids"] is True for b in sent)
    assert two["generator"]["backend"] == "openai"


def test_unreachable_server_goes_to_dead_letters(tmp_path):
    from beam_jobs.generate import GenerateConfig, run_generate
    from beam_jobs.io import YieldError
    write_prompts(tmp_path / "clean", PROMPTS[:1])
    cfg = GenerateConfig(input=str(tmp_path / "clean"), output=str(tmp_path / "gen"), target="tiny",
                         backend="openai", api_base="http://127.0.0.1:9", api_timeout_s=2)
    # every prompt a dead letter: the run fails (nothing published) and names what happened and where
    with pytest.raises(YieldError, match=r"1 records in, none out \(generation_error=1\)") as err:
        run_generate(cfg)
    assert not (tmp_path / "gen").exists()
    dead = [json.loads(line) for f in glob.glob(str(err.value).split("dead letters in ")[1]) for line in open(f)]
    assert [d["reason"] for d in dead] == ["generation_error"]
