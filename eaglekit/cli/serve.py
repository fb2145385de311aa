"""`eaglekit serve`: serve a target with its EAGLE-3 head through SGLang, vLLM or the embedded engine.

Anything after `--` is passed to SGLang / vLLM unchanged.
"""
from __future__ import annotations

import json
import shlex
import sys

import click

from eaglekit.cli.options import build, config_options
from serving.launch import LaunchError, ServeConfig, sglang_args, sglang_command, sglang_resolved


def _config(ctx: click.Context) -> ServeConfig:
    """The ServeConfig of a parsed `eaglekit serve` command line (`--draft builtin` resolved to its folder)."""
    params = dict(ctx.params)
    cfg = build(ServeConfig, ctx, params, overrides={"extra_args": list(params["extra_args"])})
    from eaglekit.heads import HeadError, resolve_head
    try:
        cfg.draft = resolve_head(cfg.draft, cfg.model)
    except HeadError as err:
        raise LaunchError(f"--draft {err}") from None
    return cfg


def serve_config_from_cli(argv: list[str]) -> ServeConfig:
    """Parse `eaglekit serve` options without running anything (used by the SGLang parser check)."""
    return _config(serve.make_context("serve", list(argv)))


@click.command(context_settings={"ignore_unknown_options": False})
@config_options(ServeConfig)
@click.option("--dry-run", is_flag=True, help="Print the exact command (and SGLang's resolved settings) and exit.")
@click.argument("extra_args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def serve(ctx, **params):
    """Serve TARGET with an EAGLE-3 head: SGLang (GPU), vLLM (GPU, chain only) or the embedded engine (CPU/GPU).

    \b
    eaglekit serve --model meta-llama/Llama-3.1-8B-Instruct --draft out/head --topk 4 --num-draft-tokens 8
    eaglekit serve --model embedded --draft out/head --backend embedded --port 8000
    eaglekit serve --model /models/llama --draft out/head --dry-run -- --tp 2
    """
    dry = params["dry_run"]
    try:
        cfg = _config(ctx)
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
