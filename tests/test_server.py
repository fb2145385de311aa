"""OpenAI-compatible HTTP API over the embedded engine, exercised with the official `openai` client
against a real uvicorn server on 127.0.0.1: completions, chat, streaming, models, metrics, bad requests,
API key, and concurrent streaming clients getting exactly their sequential outputs."""
from concurrent.futures import ThreadPoolExecutor

import httpx
import openai
import pytest

from serving.engine import EagleEngine, SamplingParams
from serving.server import create_app, running_server
from serving.testing import self_distilled_head

KEY = "sk-test-123"


@pytest.fixture(scope="module")
def server(tiny_target):
    prompts = [tiny_target.tokenizer(t)["input_ids"] for t in ["What is the capital of France?", "Solve 12 * 7 ="]]
    head = self_distilled_head(tiny_target, prompts, steps=80)
    engine = EagleEngine(tiny_target, head, 3, 2, 6)
    app = create_app(engine, model_name="tiny-eagle", api_key=KEY, max_tokens_limit=64)
    with running_server(app) as url:
        yield url, engine


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=server[0] + "/v1", api_key=KEY, max_retries=0, timeout=60)


def test_models_health_and_completion(server, client, tiny_target):
    assert [m.id for m in client.models.list().data] == ["tiny-eagle"]
    assert httpx.get(server[0] + "/health").json() == {"status": "ok"}
    r = client.completions.create(model="tiny-eagle", prompt="What is the capital of France?", max_tokens=20,
                                  temperature=0, extra_body={"ignore_eos": True})
    ids = tiny_target.tokenizer("What is the capital of France?", add_special_tokens=False)["input_ids"]
    ref = EagleEngine(tiny_target, None).generate(ids, SamplingParams(max_new_tokens=20, ignore_eos=True)).output_ids
    assert r.choices[0].text == tiny_target.tokenizer.decode(ref, skip_special_tokens=True)
    assert r.usage.completion_tokens == 20 and r.choices[0].finish_reason == "length"
    auth = {"Authorization": f"Bearer {KEY}"}  # every endpoint but /health needs the key
    assert httpx.get(server[0] + "/metrics").status_code == 401
    metrics = httpx.get(server[0] + "/metrics", headers=auth).text
    line = next(l for l in metrics.splitlines() if l.startswith("eaglekit_mean_accept_length "))
    assert float(line.split()[1]) >= 1.0
    info = httpx.get(server[0] + "/server_info", headers=auth).json()
    assert info["internal_states"][0]["avg_spec_accept_length"] >= 1.0


def test_chat_and_streaming_agree(client):
    msgs = [{"role": "user", "content": "Explain speculative decoding"}]
    full = client.chat.completions.create(model="tiny-eagle", messages=msgs, max_tokens=24, temperature=0,
                                          extra_body={"ignore_eos": True})
    text = full.choices[0].message.content
    pieces, finish = [], None
    for chunk in client.chat.completions.create(model="tiny-eagle", messages=msgs, max_tokens=24, temperature=0,
                                                stream=True, extra_body={"ignore_eos": True}):
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        if chunk.choices and chunk.choices[0].finish_reason:
            finish = chunk.choices[0].finish_reason
    assert "".join(pieces) == text and finish == "length" and len(pieces) > 1
    stream = client.completions.create(model="tiny-eagle", prompt="Solve 12 * 7 =", max_tokens=16, temperature=0,
                                       stream=True, stream_options={"include_usage": True},
                                       extra_body={"ignore_eos": True})
    chunks = list(stream)
    assert chunks[-1].usage.completion_tokens == 16


def test_stop_strings(client):
    base = client.completions.create(model="tiny-eagle", prompt="The quick brown fox", max_tokens=30, temperature=0,
                                     extra_body={"ignore_eos": True}).choices[0].text
    stop = base[5:8]
    r = client.completions.create(model="tiny-eagle", prompt="The quick brown fox", max_tokens=30, temperature=0,
                                  stop=[stop], extra_body={"ignore_eos": True})
    assert r.choices[0].text == base[: base.index(stop)] and r.choices[0].finish_reason == "stop"


def test_bad_requests_are_clear_4xx(server, client):
    url = server[0]
    h = {"Authorization": f"Bearer {KEY}"}
    with pytest.raises(openai.BadRequestError, match="max_tokens 1000 exceeds"):
        client.completions.create(model="tiny-eagle", prompt="hi", max_tokens=1000)
    with pytest.raises(openai.NotFoundError, match="not served here"):
        client.completions.create(model="gpt-9", prompt="hi", max_tokens=4)
    with pytest.raises(openai.BadRequestError, match="temperature"):
        client.completions.create(model="tiny-eagle", prompt="hi", max_tokens=4, temperature=-1)
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model="tiny-eagle", messages=[], max_tokens=4)
    r = httpx.post(url + "/v1/completions", headers=h, content=b"{not json")
    assert r.status_code == 400 and "error" in r.json()
    r = httpx.post(url + "/v1/completions", headers=h, json={"prompt": [1, 99999], "max_tokens": 2})
    assert r.status_code == 400 and "within" in r.json()["error"]["message"]
    r = httpx.post(url + "/v1/completions", headers=h, json={"prompt": "", "max_tokens": 2})
    assert r.status_code == 400
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=url + "/v1", api_key="wrong", max_retries=0).models.list()
    assert httpx.get(url + "/v1/models").status_code == 401
    assert httpx.get(url + "/health").status_code == 200  # health stays open for load balancers


def test_concurrent_streaming_clients_match_sequential(client, server):
    prompts = [f"Question {i}: what is {i} plus {i}?" for i in range(12)]

    def stream(p):
        out = []
        for ch in client.completions.create(model="tiny-eagle", prompt=p, max_tokens=12, temperature=0, stream=True,
                                            extra_body={"ignore_eos": True}):
            if ch.choices:
                out.append(ch.choices[0].text)
        return "".join(out)

    sequential = [stream(p) for p in prompts]
    with ThreadPoolExecutor(12) as pool:
        concurrent = list(pool.map(stream, prompts))
    assert concurrent == sequential
    assert server[1].stats["requests"] >= 24
