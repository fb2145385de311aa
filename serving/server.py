"""OpenAI-compatible HTTP API over the embedded engine (FastAPI): /v1/completions, /v1/chat/completions
(both with streaming), /v1/models, /health, /metrics (Prometheus text, incl. mean acceptance length) and
/server_info (SGLang's shape, so `eaglekit bench` reads acceptance the same way from both).

One scheduler thread owns the engine and interleaves the steps of all running requests round-robin, so
concurrent clients are served fairly and safely; each request decodes exactly as it would alone.
"""
from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from serving.engine import EagleEngine, EngineError, Generation, SamplingParams, load_head


class APIError(Exception):
    def __init__(self, status: int, message: str, param: str | None = None, kind: str = "invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.param, self.kind = status, message, param, kind


def _error(status: int, message: str, param=None, kind="invalid_request_error") -> JSONResponse:
    return JSONResponse(status_code=status,
                        content={"error": {"message": message, "type": kind, "param": param, "code": status}})


# ---------------------------------------------------------------------------------------------
# Request bodies (unknown fields are ignored, as OpenAI-compatible servers do)

class _Common(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float = Field(default=1.0, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    n: int = Field(default=1, ge=1, le=1)
    seed: int | None = None
    stop: str | list[str] | None = None
    stream: bool = False
    stream_options: dict | None = None
    ignore_eos: bool = False


class CompletionRequest(_Common):
    prompt: str | list[str] | list[int]
    echo: bool = False


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict] | None = None


class ChatRequest(_Common):
    messages: list[ChatMessage] = Field(min_length=1)


# ---------------------------------------------------------------------------------------------
# Scheduler

@dataclass
class _Job:
    gen: Generation
    loop: asyncio.AbstractEventLoop
    out: asyncio.Queue
    cancelled: threading.Event = field(default_factory=threading.Event)


class Histogram:
    """A Prometheus histogram (cumulative buckets, sum, count) fed from the scheduler thread."""

    def __init__(self, buckets: tuple[float, ...]):
        self.buckets = tuple(sorted(buckets))
        self.counts = [0] * len(self.buckets)
        self.sum, self.count = 0.0, 0
        self._lock = threading.Lock()

    def observe(self, value: float) -> None:
        with self._lock:
            for i, b in enumerate(self.buckets):
                if value <= b:
                    self.counts[i] += 1
            self.sum += value
            self.count += 1

    def render(self, name: str, help_text: str) -> list[str]:
        with self._lock:
            lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
            lines += [f'{name}_bucket{{le="{b:g}"}} {c}' for b, c in zip(self.buckets, self.counts)]
            lines += [f'{name}_bucket{{le="+Inf"}} {self.count}', f"{name}_sum {self.sum}", f"{name}_count {self.count}"]
        return lines


TTFT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
TPOT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Scheduler:
    """Owns the engine; runs one step of every active request in turn on a single thread. Long prompts are
    prefilled a chunk per step (EagleEngine.prefill_chunk), so other requests keep decoding meanwhile."""

    def __init__(self, engine: EagleEngine, max_running: int = 64):
        self.engine, self.max_running = engine, max_running
        self.incoming: queue.Queue[_Job] = queue.Queue()
        self.active: list[_Job] = []
        self.failures = 0
        self.cancelled = 0
        self.ttft = Histogram(TTFT_BUCKETS)   # request start -> first token (queueing and prefill included)
        self.tpot = Histogram(TPOT_BUCKETS)   # mean time per output token after the first, per request
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="eaglekit-scheduler", daemon=True)
        self.thread.start()

    def submit(self, job: _Job) -> None:
        self.incoming.put(job)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)

    @property
    def waiting(self) -> int:
        return self.incoming.qsize()

    def _observe(self, gen: Generation) -> None:
        if gen.first_token_time is None:
            return
        self.ttft.observe(gen.first_token_time - gen.started)
        if len(gen.output_ids) > 1:
            self.tpot.observe((time.perf_counter() - gen.first_token_time) / (len(gen.output_ids) - 1))

    def _emit(self, job: _Job, item) -> None:
        job.loop.call_soon_threadsafe(job.out.put_nowait, item)

    def _run(self) -> None:
        while not self._stop.is_set():
            while len(self.active) < self.max_running:
                try:
                    self.active.append(self.incoming.get(timeout=0.05 if not self.active else 0))
                except queue.Empty:
                    break
            for job in list(self.active):
                if job.cancelled.is_set():  # the client went away: stop spending steps on it
                    if not job.gen.finished:
                        self.cancelled += 1
                        job.gen.target_kv = job.gen.draft_kv = None
                    self.active.remove(job)
                    self._emit(job, None)  # ends a reader still waiting on it
                    continue
                try:
                    new = self.engine.step(job.gen)
                    if new:
                        self._emit(job, new)
                    if job.gen.finished:
                        self._observe(job.gen)
                        self._emit(job, None)
                        self.active.remove(job)
                except Exception as err:  # one bad request must not stop the others
                    self.failures += 1
                    self._emit(job, err)
                    self.active.remove(job)


# ---------------------------------------------------------------------------------------------
# Incremental detokenisation and stop strings

class _TextStream:
    """Turns token chunks into text deltas; holds back partial UTF-8 and possible stop-string prefixes."""

    def __init__(self, tokenizer, stops: list[str]):
        self.tok, self.stops = tokenizer, [s for s in stops if s]
        self.ids: list[int] = []
        self.sent = 0
        self.stopped = False

    def push(self, ids: list[int], final: bool = False) -> str:
        self.ids.extend(ids)
        text = self.tok.decode(self.ids, skip_special_tokens=True)
        for s in self.stops:
            at = text.find(s)
            if at >= 0:
                text, self.stopped, final = text[:at], True, True
        if not final:
            if text.endswith("\ufffd"):
                text = text.rstrip("\ufffd")
            hold = max([len(s) - 1 for s in self.stops] + [0])
            for k in range(min(hold, len(text)), 0, -1):
                if any(s.startswith(text[-k:]) for s in self.stops):
                    text = text[:-k]
                    break
        delta = text[self.sent:] if len(text) > self.sent else ""
        self.sent = max(self.sent, len(text))
        return delta


# ---------------------------------------------------------------------------------------------
# App

# Totals that only grow (Prometheus counters); every other number in /metrics is a gauge.
COUNTERS = {"requests_finished", "verify_steps", "output_tokens", "failures", "requests", "errors_4xx",
            "prompt_tokens", "completion_tokens", "cancelled"}


def create_app(engine: EagleEngine, model_name: str | None = None, api_key: str | None = None,
               max_tokens_limit: int = 2048, max_running: int = 64, max_prompt_tokens: int | None = None) -> FastAPI:
    """The API app. With `api_key` every endpoint but GET /health (a bare liveness answer for load
    balancers) needs `Authorization: Bearer <key>`. `max_prompt_tokens`: longer prompts get a 400."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app):
        yield
        api.sched.stop()

    app = FastAPI(title="eaglekit embedded EAGLE-3 server", lifespan=lifespan)
    api = Api(engine, model_name or engine.target.model_id, Scheduler(engine, max_running=max_running),
              max_tokens_limit, max_prompt_tokens)
    app.state.scheduler, app.state.engine = api.sched, engine
    _add_error_handlers(app, api)
    if api_key:
        _add_auth(app, api, api_key)
    _add_info_routes(app, api)
    _add_generation_routes(app, api)
    return app


class Api:
    """What the endpoints share: the engine and its scheduler, the served name and limits, and the running
    request counters."""

    def __init__(self, engine: EagleEngine, name: str, sched: Scheduler, max_tokens_limit: int,
                 max_prompt_tokens: int | None):
        self.engine, self.name, self.sched = engine, name, sched
        self.max_tokens_limit, self.max_prompt_tokens = max_tokens_limit, max_prompt_tokens
        self.context = int(getattr(engine.model.config, "max_position_embeddings", 2048) or 2048)
        self.counters = {"requests": 0, "errors_4xx": 0, "prompt_tokens": 0, "completion_tokens": 0}
        self.started = time.time()

    def metrics(self) -> dict:
        s, sched, engine = self.engine.stats, self.sched, self.engine
        return {"requests_finished": s["requests"], "running": len(sched.active), "waiting": sched.waiting,
                "verify_steps": s["verify_steps"], "output_tokens": s["output_tokens"],
                "mean_accept_length": engine.mean_accept_length(), "failures": sched.failures,
                "cancelled": sched.cancelled, **self.counters, **engine.describe()}

    def params(self, body: _Common, prompt_len: int) -> SamplingParams:
        name, limit, max_prompt = self.name, self.max_tokens_limit, self.max_prompt_tokens
        if body.model is not None and body.model != name:
            raise APIError(404, f"model {body.model!r} is not served here; GET /v1/models lists {name!r}", "model",
                           "not_found_error")
        max_tokens = body.max_completion_tokens or body.max_tokens or min(256, limit)
        if max_tokens > limit:
            raise APIError(400, f"max_tokens {max_tokens} exceeds this server's limit of {limit}", "max_tokens")
        if max_prompt is not None and prompt_len > max_prompt:
            raise APIError(400, f"the prompt has {prompt_len} tokens; this server takes at most {max_prompt} "
                                f"(--max-prompt-tokens)", "messages" if isinstance(body, ChatRequest) else "prompt")
        if prompt_len + max_tokens > self.context:
            raise APIError(400, f"prompt ({prompt_len} tokens) + max_tokens ({max_tokens}) exceeds the "
                                f"context length {self.context}", "max_tokens")
        return SamplingParams(max_new_tokens=max_tokens, temperature=body.temperature, top_p=body.top_p,
                              seed=body.seed, ignore_eos=body.ignore_eos)

    async def start(self, prompt_ids: list[int], params: SamplingParams) -> _Job:
        try:
            gen = self.engine.start(prompt_ids, params)
        except EngineError as err:
            raise APIError(400, str(err))
        job = _Job(gen, asyncio.get_running_loop(), asyncio.Queue())
        self.sched.submit(job)
        self.counters["requests"] += 1
        self.counters["prompt_tokens"] += len(prompt_ids)
        return job

    async def respond(self, body: _Common, prompt_ids: list[int], chat: bool, echo_text: str = "",
                      request: Request | None = None):
        job = await self.start(prompt_ids, self.params(body, len(prompt_ids)))
        reply = _Reply(self, job, body, chat)
        if not body.stream:
            return await reply.whole(echo_text, request)
        return StreamingResponse(reply.events(echo_text), media_type="text/event-stream")


class _Reply:
    """One request's answer, whole (JSON) or streamed (server-sent events), in the completions or the chat
    shape."""

    def __init__(self, api: Api, job: _Job, body: _Common, chat: bool):
        self.api, self.job, self.body, self.chat = api, job, body, chat
        self.text = _TextStream(api.engine.tokenizer, [body.stop] if isinstance(body.stop, str) else list(body.stop or []))
        self.rid = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex[:24]
        self.created = int(time.time())
        self.obj = "chat.completion" if chat else "text_completion"

    def finish_reason(self) -> str:
        return "stop" if self.text.stopped else (self.job.gen.finish_reason or "stop")

    def meta(self) -> dict:
        gen = self.job.gen
        return {"spec_accept_length": gen.accept_length, "spec_verify_ct": gen.verify_steps,
                "prompt_tokens": len(gen.prompt_ids), "completion_tokens": len(gen.output_ids)}

    def usage(self) -> dict:
        gen = self.job.gen
        return {"prompt_tokens": len(gen.prompt_ids), "completion_tokens": len(gen.output_ids),
                "total_tokens": len(gen.prompt_ids) + len(gen.output_ids)}

    async def drain(self):
        """Yield token chunks until the request finishes; cancel the job if the client goes away."""
        job = self.job
        try:
            while True:
                item = await job.out.get()
                if item is None:
                    return
                if isinstance(item, Exception):
                    raise item
                yield item
        finally:
            job.cancelled.set()

    async def watch_disconnect(self, request: Request | None) -> None:
        """Cancel the job once its client has gone (a non-streaming client that timed out or hung up)."""
        if request is None:
            return
        while not self.job.cancelled.is_set():
            if await request.is_disconnected():
                self.job.cancelled.set()
                return
            await asyncio.sleep(0.2)

    async def whole(self, echo_text: str, request: Request | None):
        job, text, chat = self.job, self.text, self.chat
        out = echo_text
        watcher = asyncio.create_task(self.watch_disconnect(request))
        try:
            async for chunk in self.drain():
                out += text.push(chunk)
                if text.stopped:
                    break
        finally:
            watcher.cancel()
        if job.cancelled.is_set() and not job.gen.finished and not text.stopped:
            return JSONResponse({"error": {"message": "client disconnected", "code": 499}}, status_code=499)
        out += text.push([], final=True)
        self.api.counters["completion_tokens"] += len(job.gen.output_ids)
        choice = ({"index": 0, "message": {"role": "assistant", "content": out}, "finish_reason": self.finish_reason()}
                  if chat else {"index": 0, "text": out, "logprobs": None, "finish_reason": self.finish_reason()})
        return JSONResponse({"id": self.rid, "object": self.obj, "created": self.created, "model": self.api.name,
                             "choices": [choice], "usage": self.usage(), "meta_info": self.meta()})

    def chunk(self, delta: str | None, reason=None, role=False) -> str:
        if self.chat:
            d = {"role": "assistant", "content": ""} if role else ({"content": delta} if delta is not None else {})
            choice = {"index": 0, "delta": d, "finish_reason": reason}
        else:
            choice = {"index": 0, "text": delta or "", "logprobs": None, "finish_reason": reason}
        payload = {"id": self.rid, "object": self.obj + (".chunk" if self.chat else ""), "created": self.created,
                   "model": self.api.name, "choices": [choice]}
        if reason is not None:
            payload["meta_info"] = self.meta()
        return f"data: {json.dumps(payload)}\n\n"

    async def events(self, echo_text: str):
        text, chunk = self.text, self.chunk
        include_usage = bool((self.body.stream_options or {}).get("include_usage"))
        try:
            if self.chat:
                yield chunk(None, role=True)
            elif echo_text:
                yield chunk(echo_text)
            async for ids in self.drain():
                delta = text.push(ids)
                if delta:
                    yield chunk(delta)
                if text.stopped:
                    break
            tail = text.push([], final=True)
            if tail:
                yield chunk(tail)
            self.api.counters["completion_tokens"] += len(self.job.gen.output_ids)
            yield chunk(None, reason=self.finish_reason())
            if include_usage:
                usage = {"id": self.rid, "object": self.obj, "created": self.created, "model": self.api.name,
                         "choices": [], "usage": self.usage()}
                yield f"data: {json.dumps(usage)}\n\n"
        except Exception as err:  # headers are sent: report in-band, as OpenAI does
            yield f"data: {json.dumps({'error': {'message': f'generation failed: {err}', 'code': 500}})}\n\n"
        yield "data: [DONE]\n\n"


def _add_error_handlers(app: FastAPI, api: Api) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(_req, exc: RequestValidationError):
        api.counters["errors_4xx"] += 1
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ())[1:]) or None
        return _error(400, f"invalid request: {where or 'body'}: {first.get('msg', 'bad value')}", where)

    @app.exception_handler(APIError)
    async def _api_error(_req, exc: APIError):
        api.counters["errors_4xx"] += 1
        return _error(exc.status, exc.message, exc.param, exc.kind)


def _add_auth(app: FastAPI, api: Api, api_key: str) -> None:
    # A plain ASGI middleware, not @app.middleware("http"): Starlette's BaseHTTPMiddleware wraps `receive`
    # so that a handler never sees the client's disconnect, and abandoned requests would run to the end.
    expected = f"Bearer {api_key}".encode()

    class _Auth:
        def __init__(self, inner):
            self.inner = inner

        async def __call__(self, scope, receive, send):
            if scope["type"] == "http" and scope["path"] != "/health" and \
                    dict(scope["headers"]).get(b"authorization", b"") != expected:
                api.counters["errors_4xx"] += 1
                response = _error(401, "missing or wrong API key (send 'Authorization: Bearer <key>')",
                                  kind="authentication_error")
                await response(scope, receive, send)
                return
            await self.inner(scope, receive, send)

    app.add_middleware(_Auth)


def _add_info_routes(app: FastAPI, api: Api) -> None:
    @app.get("/health")
    def health():
        return {"status": "ok"}

    @app.get("/v1/models")
    def models():
        return {"object": "list", "data": [{"id": api.name, "object": "model", "created": int(api.started),
                                            "owned_by": "eaglekit"}]}

    @app.get("/metrics")
    def metrics():
        lines = []
        for k, v in api.metrics().items():
            if isinstance(v, bool) or isinstance(v, (int, float)):
                lines.append(f"# TYPE eaglekit_{k} {'counter' if k in COUNTERS else 'gauge'}\neaglekit_{k} {float(v)}")
        lines += api.sched.ttft.render("eaglekit_time_to_first_token_seconds",
                                       "Request start (queueing and prefill included) to its first token.")
        lines += api.sched.tpot.render("eaglekit_time_per_output_token_seconds",
                                       "Per finished request: time per output token after the first.")
        return PlainTextResponse("\n".join(lines) + "\n", media_type="text/plain; version=0.0.4")

    @app.get("/server_info")
    def server_info():
        return {"model": api.name, "internal_states": [{"avg_spec_accept_length": api.engine.mean_accept_length()}],
                **api.metrics()}


def _add_generation_routes(app: FastAPI, api: Api) -> None:
    engine = api.engine

    @app.post("/v1/completions")
    async def completions(body: CompletionRequest, request: Request):
        p = body.prompt
        if isinstance(p, list) and p and all(isinstance(x, str) for x in p):
            if len(p) != 1:
                raise APIError(400, "batched prompts are not supported: send one prompt per request", "prompt")
            p = p[0]
        if isinstance(p, str):
            if not p:
                raise APIError(400, "prompt is empty", "prompt")
            ids = engine.tokenizer(p, add_special_tokens=False)["input_ids"]
        else:
            ids = [int(x) for x in p]
            vocab = engine.model.config.vocab_size
            if not ids or min(ids) < 0 or max(ids) >= vocab:
                raise APIError(400, f"prompt token ids must be non-empty and within 0..{vocab - 1}", "prompt")
        if not ids:
            raise APIError(400, "prompt encodes to no tokens", "prompt")
        echo = (p if isinstance(p, str) else engine.tokenizer.decode(ids)) if body.echo else ""
        return await api.respond(body, ids, chat=False, echo_text=echo, request=request)

    @app.post("/v1/chat/completions")
    async def chat(body: ChatRequest, request: Request):
        messages = []
        for i, m in enumerate(body.messages):
            content = m.content
            if isinstance(content, list):  # OpenAI content parts: keep the text ones
                if any(part.get("type") != "text" for part in content):
                    raise APIError(400, f"messages[{i}]: only text content parts are supported", "messages")
                content = "".join(part.get("text", "") for part in content)
            messages.append({"role": "system" if m.role == "developer" else m.role, "content": content or ""})
        try:
            ids = engine.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        except Exception as err:
            raise APIError(400, f"cannot apply the chat template to these messages: {err}", "messages")
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return await api.respond(body, list(ids), chat=True, request=request)


def serve_embedded(cfg, echo=print) -> None:
    """`eaglekit serve --backend embedded`: load target (+ head) and run the API with uvicorn."""
    import uvicorn
    engine = build_engine(cfg.model, cfg.draft, cfg.num_steps, cfg.topk, cfg.num_draft_tokens, cfg.min_draft_prob,
                          getattr(cfg, "prefill_chunk", 512))
    app = create_app(engine, cfg.served_model_name, cfg.api_key, cfg.max_tokens_limit,
                     cfg.max_running_requests or 64, getattr(cfg, "max_prompt_tokens", None))
    echo(f"embedded EAGLE-3 engine: {json.dumps(engine.describe())}")
    echo(f"OpenAI-compatible API at http://{cfg.host}:{cfg.port}/v1  (Ctrl-C stops it)")
    uvicorn.run(app, host=cfg.host, port=cfg.port, log_level="warning")


@contextmanager
def running_server(app, timeout: float = 30.0) -> Iterator[str]:
    """Run `app` with uvicorn on a free loopback port in a background thread; yields its base URL.
    Used by tests and benchmarks that talk to a real server through a real client."""
    import socket

    import uvicorn
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + timeout
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError(f"the test server on port {port} did not start within {timeout:.0f}s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def build_engine(model: str, draft: str | None, steps: int, topk: int, num_draft_tokens: int,
                 min_draft_prob: float = 0.0, prefill_chunk: int = 512) -> EagleEngine:
    from eaglekit.models import load_target
    target = load_target(model)
    head = load_head(draft, target) if draft else None
    return EagleEngine(target, head, steps, topk, num_draft_tokens, min_draft_prob, prefill_chunk=prefill_chunk)
