"""One config system: each typed config's field declarations (eaglekit.config: @config, setting) give
the CLI options, the YAML keys, the help text and the JSON schema, so they agree by construction; and
every config is checked when it is built (unknown keys, choices, ranges), failing with a ConfigError
that names the key."""
from dataclasses import fields

import pytest

from eaglekit.config import ConfigError, from_mapping


def _configs():
    from beam_jobs.clean import CleanConfig
    from beam_jobs.featurize import FeaturizeConfig
    from beam_jobs.generate import GenerateConfig
    from eaglekit.cli.beam import clean_command, featurize_command, generate_command
    from eaglekit.cli.bench import bench
    from eaglekit.cli.data import synth_prompts_command
    from eaglekit.cli.quickstart import QuickstartConfig, quickstart
    from eaglekit.cli.serve import serve
    from eaglekit.cli.train import train
    from eaglekit.synth_prompts import SynthConfig
    from eaglekit.train import TrainConfig
    from serving.bench import BenchConfig
    from serving.launch import ServeConfig
    from eaglekit.cli.train import export_cmd
    from eaglekit.export import ExportOptions
    return [(CleanConfig, clean_command), (GenerateConfig, generate_command), (FeaturizeConfig, featurize_command),
            (TrainConfig, train), (ServeConfig, serve), (BenchConfig, bench), (QuickstartConfig, quickstart),
            (SynthConfig, synth_prompts_command), (ExportOptions, export_cmd)]


@pytest.mark.parametrize("index", range(9))
def test_cli_options_are_the_config_fields(index):
    from eaglekit.config import settings_of
    cls, command = _configs()[index]
    params = {p.name: p for p in command.params}
    assert "config_file" in params  # every command also reads its keys from --config FILE.yaml
    for s in settings_of(cls):
        if not s.cli or s.section is not None:
            continue
        assert s.name in params, s.name
        assert params[s.name].help == s.help and s.help, s.name
        if s.choices and not s.parse:
            assert list(params[s.name].type.choices) == list(s.choices), s.name


# (config, values it needs, a key with choices and a value outside them, a key with a range and a number outside it)
BAD = [
    ("beam_jobs.clean.CleanConfig", {"inputs": ["a.jsonl"], "output": "o"}, ("output_format", "csv"),
     ("decontam_threshold", 1.5)),
    ("beam_jobs.generate.GenerateConfig", {"input": "i", "output": "o"}, ("backend", "grpc"), ("top_p", 0.0)),
    ("beam_jobs.featurize.FeaturizeConfig", {"input": "i", "output": "o"}, ("teacher", "logits"), ("topk", 0)),
    ("eaglekit.train.TrainConfig", {"data": "d"}, ("nan_policy", "explode"), ("heldout_fraction", 7.0)),
    ("serving.launch.ServeConfig", {}, ("backend", "tgi"), ("port", 70000)),
    ("serving.bench.BenchConfig", {}, None, ("max_tokens", 0)),
    ("eaglekit.cli.quickstart.QuickstartConfig", {}, None, ("train_steps", 0)),
    ("eaglekit.synth_prompts.SynthConfig", {}, ("dtype", "int8"), ("top_p", 1.5)),
    ("beam_jobs.readers.ReaderConfig", {}, None, ("max_chars", 0)),
    ("eaglekit.export.ExportOptions", {}, ("dtype", "int8"), ("speculative_tokens", 0)),
    ("beam_jobs.pipeline.RunConfig", {}, None, None),
]


def _cls(path):
    import importlib
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("path, good, choice, number", BAD, ids=[b[0].rpartition(".")[2] for b in BAD])
def test_every_config_refuses_bad_mappings_naming_the_key(path, good, choice, number):
    cls = _cls(path)
    from_mapping(cls, good, "x")  # the good mapping builds
    cases = [({"colour": "red"}, "colour")]
    if choice:
        cases.append((dict([choice]), choice[0]))
    if number:
        cases.append((dict([number]), number[0]))
    for bad, key in cases:
        with pytest.raises(ConfigError) as err:
            from_mapping(cls, {**good, **bad}, "x")
        assert key in str(err.value) and err.value.key == key, str(err.value)
        with pytest.raises(ConfigError, match=key):  # the same when built directly
            cls(**good, **bad)


def test_the_issue_example_fails_on_each_key():
    from eaglekit.train import TrainConfig
    for bad, says in (({"nan_policy": "explode"}, "train.nan_policy: must be one of skip, stop; got 'explode'"),
                      ({"heldout_fraction": 7.0}, "train.heldout_fraction: must be within [0, 1], got 7.0"),
                      ({"ttt_steps": 0}, "train.ttt_steps: must be >= 1, got 0"),
                      ({"max_steps": "5"}, "train.max_steps: expected int | None, got '5'")):
        with pytest.raises(ConfigError) as err:
            from_mapping(TrainConfig, {"data": "d", **bad}, "train")
        assert str(err.value) == says


def test_sections_declared_elsewhere_are_checked_by_their_declarations():
    from beam_jobs.clean import CleanConfig
    good = {"inputs": ["a.jsonl"], "output": "o"}
    with pytest.raises(ConfigError, match=r"^clean\.pii\.score_threshold: must be within \[0, 1\]"):
        from_mapping(CleanConfig, {**good, "pii": {"score_threshold": 2.0}}, "clean")
    with pytest.raises(ConfigError, match=r"^clean\.near: unknown key 'treshold'"):
        from_mapping(CleanConfig, {**good, "near": {"treshold": 0.5}}, "clean")
    with pytest.raises(ConfigError, match=r"^clean\.reader\.max_chars: must be >= 1"):
        from_mapping(CleanConfig, {**good, "reader": {"max_chars": 0}}, "clean")


def test_flag_beats_yaml_file_beats_default(tmp_path):
    from eaglekit.cli.options import build
    from eaglekit.cli.quickstart import QuickstartConfig, quickstart
    path = tmp_path / "qs.yaml"
    path.write_text("target: tiny\ntrain_steps: 5\n")
    ctx = quickstart.make_context("quickstart", ["--config", str(path), "--target", "embedded"])
    cfg = build(QuickstartConfig, ctx, ctx.params)
    assert (cfg.target, cfg.train_steps, cfg.seq_len) == ("embedded", 5, 512)  # flag, file, default
    path.write_text("train_step: 5\n")
    ctx = quickstart.make_context("quickstart", ["--config", str(path)])
    import click
    with pytest.raises(click.BadParameter, match="unknown key 'train_step'"):
        build(QuickstartConfig, ctx, ctx.params)


def test_run_file_json_schema_comes_from_the_configs():
    from beam_jobs.pipeline import run_schema
    schema = run_schema()
    gen, feat = schema["properties"]["generate"], schema["properties"]["featurize"]
    assert schema["additionalProperties"] is False and gen["additionalProperties"] is False
    assert "input" not in gen["properties"] and "output" not in feat["properties"]  # the run wires them
    assert feat["properties"]["teacher"]["enum"] == ["final_hidden_prenorm", "final_hidden_postnorm", "topk_logprobs"]
    assert gen["properties"]["top_p"]["exclusiveMinimum"] == 0 and gen["properties"]["max_new_tokens"]["description"]


def test_the_yaml_help_and_checks_come_from_the_same_fields():
    from beam_jobs.generate import GenerateConfig
    from beam_jobs.pipeline import describe_config
    text = describe_config()
    for f in fields(GenerateConfig):
        if f.name not in ("input", "output", "accelerator"):
            assert f"generate.{f.name} (" in text and f.metadata["help"] in text, f.name
    with pytest.raises(ConfigError, match=r"generate\.max_new_tokens: expected int, got 'many'"):
        from_mapping(GenerateConfig, {"input": "a", "output": "b", "max_new_tokens": "many"}, "generate")
    with pytest.raises(ConfigError, match="unknown key 'max_tokens'"):
        from_mapping(GenerateConfig, {"input": "a", "output": "b", "max_tokens": 3}, "generate")


def test_featurize_cli_parses_its_special_options():
    from click.testing import CliRunner

    from eaglekit.cli.beam import featurize_command
    ctx = featurize_command.make_context("featurize", ["--input", "i", "--output", "o", "--aux-layers", "2,15,27",
                                                       "--compression", "none", "--codec", "fp8"])
    from beam_jobs.featurize import FeaturizeConfig
    ctx.params.pop("runner"), ctx.params.pop("config_file")
    cfg = FeaturizeConfig(**ctx.params)
    assert cfg.aux_layer_ids == (2, 15, 27) and cfg.compression is None and cfg.codec() == "fp8_e4m3"
    r = CliRunner().invoke(featurize_command, ["--input", "i", "--output", "o", "--aux-layers", "two"])
    assert r.exit_code == 2 and "comma-separated integers" in r.output
