"""One config system: each typed config's field declarations (eaglekit.config.setting) give the CLI
options, the YAML keys and the help text, so the three agree by construction."""
from dataclasses import fields

import pytest

from eaglekit.config import ConfigError, from_mapping


def _configs():
    from beam_jobs.featurize import FeaturizeConfig
    from beam_jobs.generate import GenerateConfig
    from eaglekit.cli.beam import featurize_command, generate_command
    from eaglekit.cli.train import train
    from eaglekit.train import TrainConfig
    return [(GenerateConfig, generate_command), (FeaturizeConfig, featurize_command), (TrainConfig, train)]


@pytest.mark.parametrize("index", range(3))
def test_cli_options_are_the_config_fields(index):
    cls, command = _configs()[index]
    params = {p.name: p for p in command.params}
    for f in fields(cls):
        if not f.metadata.get("cli", True):
            continue
        assert f.name in params, f.name
        assert params[f.name].help == f.metadata["help"] and f.metadata["help"], f.name
        if f.metadata.get("choices"):
            assert list(params[f.name].type.choices) == list(f.metadata["choices"]), f.name


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
