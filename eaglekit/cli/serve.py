"""`eaglekit serve`: serve a target with its EAGLE-3 head through SGLang, vLLM or the embedded engine.

Anything after `--` is passed to SGLang / vLLM unchanged.
"""
from __future__ import annotations

import json
import shlex
import sys

import click

from serving.launch import (LaunchError, ServeConfig, default_draft_tokens, sglang_args, sglang_command,
                            sglang_resolved)


def _options(f):
    opts = [
        click.option("--model", default="embedded", show_default=True,
                     help="Target: HF folder or hub id; 'embedded' (SmolLM2) or 'tiny' for the embedded backend."),
        click.option("--draft", default=None, help="Exported EAGLE-3 head folder (SGLang format), or `builtin`: the "
                                                   "head shipped for the embedded target. None: no speculation."),
        click.option("--backend", type=click.Choice(["auto", "sglang", "vllm", "embedded"]), default="auto",
                     show_default=True, help="auto: sglang where a GPU is present, else embedded."),
        click.option("--host", default="127.0.0.1", show_default=True),
        click.option("--port", default=30000, show_default=True, type=int),
        click.option("--num-steps", default=3, show_default=True, type=int, help="--speculative-num-steps"),
        click.option("--topk", default=1, show_default=True, type=int,
                     help="--speculative-eagle-topk (1: chain; >1: tree verified in one target pass)"),
        click.option("--num-draft-tokens", default=None, type=int,
                     help="--speculative-num-draft-tokens [default: num_steps+1 for a chain, else 8 (capped)]"),
        click.option("--min-draft-prob", default=0.0, show_default=True, type=float,
                     help="Embedded backend: verify only draft nodes the head gives at least this path "
                          "probability, and stop drafting below it (0: SGLang's fixed tree; ~0.05 pays on CPU)."),
        click.option("--mem-fraction", default=None, type=float, help="--mem-fraction-static (vLLM: --gpu-memory-utilization)"),
        click.option("--cuda-graph-max-bs", default=None, type=int, help="--cuda-graph-max-bs-decode"),
        click.option("--max-running-requests", default=None, type=int),
        click.option("--disable-overlap-schedule", is_flag=True, help="Turn SGLang's overlap scheduler off."),
        click.option("--api-key", default=None, envvar="EAGLEKIT_API_KEY", show_envvar=True,
                     help="Require this bearer key on every endpoint but /health. Prefer the EAGLEKIT_API_KEY "
                          "environment variable: a key on the command line shows in `ps`."),
        click.option("--served-model-name", default=None),
        click.option("--max-tokens-limit", default=2048, show_default=True, type=int,
                     help="Embedded backend: largest max_tokens a request may ask for."),
        click.option("--max-prompt-tokens", default=None, type=click.IntRange(min=1),
                     help="Embedded backend: longest prompt a request may send (longer: HTTP 400) [default: the "
                          "context length minus max_tokens]."),
        click.option("--prefill-chunk", default=512, show_default=True, type=click.IntRange(min=1),
                     help="Embedded backend: prompt tokens prefilled per scheduler step; other requests decode "
                          "between chunks, so one long prompt does not stall every client."),
        click.option("--health-timeout", default=900.0, show_default=True, type=float),
        click.option("--dry-run", is_flag=True, help="Print the exact command (and SGLang's resolved settings) and exit."),
        click.argument("extra_args", nargs=-1, type=click.UNPROCESSED),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _config(params: dict) -> ServeConfig:
    p = dict(params)
    p.pop("dry_run", None)
    steps, topk = p["num_steps"], p["topk"]
    if p["num_draft_tokens"] is None:
        p["num_draft_tokens"] = default_draft_tokens(steps, topk)
    p["extra_args"] = list(p["extra_args"])
    from eaglekit.heads import HeadError, resolve_head
    try:
        p["draft"] = resolve_head(p["draft"], p["model"])
    except HeadError as err:
        raise LaunchError(f"--draft {err}") from None
    p["cuda_graph_max_bs"] = p.pop("cuda_graph_max_bs")
    return ServeConfig(**p)


def serve_config_from_cli(argv: list[str]) -> ServeConfig:
    """Parse `eaglekit serve` options without running anything (used by the SGLang parser check)."""
    ctx = serve.make_context("serve", list(argv))
    return _config(ctx.params)


@click.command(context_settings={"ignore_unknown_options": False})
@_options
def serve(**params):
    """Serve TARGET with an EAGLE-3 head: SGLang (GPU), vLLM (GPU, chain only) or the embedded engine (CPU/GPU).

    \b
    eaglekit serve --model meta-llama/Llama-3.1-8B-Instruct --draft out/head --topk 4 --num-draft-tokens 8
    eaglekit serve --model embedded --draft out/head --backend embedded --port 8000
    eaglekit serve --model /models/llama --draft out/head --dry-run -- --tp 2
    """
    dry = params["dry_run"]
    try:
        cfg = _config(params)
        backend = cfg.resolved_backend()
        from serving.launch import check_serve, dry_run, launch
        if dry and cfg.backend == "auto" and backend == "embedded":
            # --dry-run shows the launch a GPU box would make: the SGLang command, pass-through args included
            click.echo("# --backend auto picks SGLang where a GPU is present; this box has none, so without "
                       "--dry-run it would run the embedded engine (which takes no pass-through args). "
                       "The SGLang command:")
            cfg.backend = backend = "sglang"
        if backend == "embedded" and cfg.extra_args:
            raise LaunchError(f"the embedded engine takes no pass-through args ({' '.join(cfg.extra_args)} after --): "
                              f"they are for SGLang/vLLM (--backend sglang|vllm on a GPU box); remove them")
        if backend == "embedded":
            errors, warnings = check_serve(cfg) if cfg.draft else ([], [])
            for w in warnings:
                click.echo(f"warning: {w}", err=True)
            if errors:
                raise LaunchError("the head does not fit this target:\n  - " + "\n  - ".join(errors))
            if dry:
                click.echo(f"embedded engine: model={cfg.model} draft={cfg.draft} steps={cfg.num_steps} "
                           f"topk={cfg.topk} num_draft_tokens={cfg.num_draft_tokens} min_draft_prob={cfg.min_draft_prob} "
                           f"at http://{cfg.host}:{cfg.port}/v1")
                return
            from serving.server import serve_embedded
            serve_embedded(cfg, echo=click.echo)
            return
        if dry:
            errors, warnings = check_serve(cfg)
            for w in warnings:
                click.echo(f"# warning: {w}")
            for e in errors:
                click.echo(f"# ERROR: {e}")
            dry_run(cfg, echo=click.echo)
            if errors:
                sys.exit(2)
            return
        sys.exit(launch(cfg, echo=click.echo))
    except LaunchError as err:
        raise click.ClickException(str(err))


def _parser_check(argv: list[str]) -> int:
    """Entry for bench/sglang_parser_check.sh: build the command from `eaglekit serve` options and have
    SGLang's own parser accept it; print one JSON line."""
    cfg = serve_config_from_cli(argv)
    cfg.backend = "sglang"
    args = sglang_args(cfg)
    result = {"command": shlex.join(sglang_command(cfg)), "accepted": False}
    try:
        view = sglang_resolved(args)
        want = {"speculative_algorithm": "EAGLE3", "speculative_num_steps": cfg.num_steps,
                "speculative_eagle_topk": cfg.topk, "speculative_num_draft_tokens": cfg.num_draft_tokens}
        parsed = view["parsed"]
        mism = {k: parsed.get(k) for k, v in want.items() if cfg.draft and parsed.get(k) != v}
        result.update(view, accepted=not mism, mismatches=mism)
    except SystemExit as err:
        result["error"] = f"SGLang's parser exited with {err.code}"
    click.echo(json.dumps(result, default=str))
    return 0 if result["accepted"] else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--parser-check"]:
        sys.exit(_parser_check(sys.argv[2:]))
    serve()
