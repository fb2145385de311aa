"""`eaglekit beam run --config`: every key is checked before work starts, errors name the key, the
shipped example config resolves, and the help documents every key."""
import textwrap

import pytest
from click.testing import CliRunner

from beam_jobs.pipeline import build_stage_configs, describe_config, load_run_config
from eaglekit.cli import main
from eaglekit.config import ConfigError


def write(tmp_path, text):
    path = tmp_path / "run.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_example_config_resolves_with_wired_paths():
    run = load_run_config("eaglekit/data/run.yaml", {"workdir": "w"})
    cfgs = build_stage_configs(run)
    assert cfgs["clean"].output == "w/clean"
    assert (cfgs["generate"].input, cfgs["generate"].output) == ("w/clean", "w/generate")
    assert (cfgs["featurize"].input, cfgs["featurize"].output) == ("w/generate", "w/features")
    assert cfgs["featurize"].hidden_codec == "fp8_e4m3" and cfgs["clean"].pii.policies["CREDIT_CARD"] == "drop"
    # the example lists its policies, so it must list every type the filter looks for by default (a type
    # not listed is not looked for)
    from beam_jobs.pii import DEFAULT_POLICIES
    assert set(cfgs["clean"].pii.policies) == set(DEFAULT_POLICIES)


@pytest.mark.parametrize("body, message", [
    ("clean: {inputs: [a.jsonl], colour: red}", "clean: unknown key 'colour'"),
    ("clean: {inputs: [a.jsonl], near: {treshold: 0.5}}", "clean.near: unknown key 'treshold'"),
    ("clean: {inputs: [a.jsonl]}\ngenerate: {max_new_tokens: lots}", "generate.max_new_tokens: expected int, got 'lots'"),
    ("clean: {inputs: [a.jsonl]}\nfeaturize: {teacher: logits}", "featurize.teacher: must be one of"),
    ("clean: {inputs: [a.jsonl], near: {threshold: 1.5}}", "clean.near.threshold: similarity thresholds must be in (0, 1]"),
    ("clean: {inputs: [a.jsonl], output: elsewhere}", "clean.output: set by the run"),
    ("generate: {}", "clean.inputs: required"),
    ("stages: [clean, train]\nclean: {inputs: [a.jsonl]}", "stages: unknown stage(s) ['train']"),
    ("wrkdir: x", "unknown key 'wrkdir'"),
    ("- just\n- a list", "the top level must be a mapping"),
])
def test_bad_configs_name_the_key(tmp_path, body, message):
    with pytest.raises(ConfigError) as err:
        build_stage_configs(load_run_config(write(tmp_path, body)))
    assert message in str(err.value)


def test_cli_check_and_errors(tmp_path):
    good = write(tmp_path, "clean: {inputs: [a.jsonl]}\nfeaturize: {target: tiny}\n")
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(good), "--check"])
    assert r.exit_code == 0, r.output
    assert '"hidden_codec": "bf16"' in r.output
    bad = write(tmp_path, "clean: {inputs: [a.jsonl], pii: {policies: {PERSON: shred}}}")
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(bad)])
    assert r.exit_code != 0 and "PII policy must be one of" in r.output
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(tmp_path / "missing.yaml")])
    assert r.exit_code != 0 and "config file not found" in r.output


def test_help_documents_every_key():
    text = describe_config()
    for key in ("workdir", "accelerator", "clean.inputs", "clean.pii.policies", "clean.near.threshold",
                "generate.backend", "generate.temperature", "featurize.hidden_codec", "featurize.teacher"):
        assert f"\n{key} (" in "\n" + text, key
    r = CliRunner().invoke(main, ["beam", "run", "--help"])
    assert r.exit_code == 0 and "featurize.hidden_codec" in r.output


def test_direct_runner_runs_on_fn_api_runner_with_worker_flags():
    """DirectRunner must not turn into Beam's Prism runner (a download, another engine) on machines with
    network access: the local engine and its --direct_* flags are the same everywhere."""
    from apache_beam.options.pipeline_options import DirectOptions
    from apache_beam.runners.portability.fn_api_runner.fn_runner import FnApiRunner

    from beam_jobs import io as bio
    p = bio.pipeline("DirectRunner", ["--direct_running_mode=multi_processing", "--direct_num_workers=2"])
    assert isinstance(p.runner, FnApiRunner)
    assert p.options.view_as(DirectOptions).direct_num_workers == 2
    other = bio.pipeline("DirectRunner", ["--runner=BundleBasedDirectRunner"])  # a user's --runner wins
    assert not isinstance(other.runner, FnApiRunner)


def test_one_runner_runs_steps_in_order_and_resumes_past_complete_ones(tmp_path):
    """beam_jobs.pipeline.run_steps: what `beam run --config` and the quickstart both run their steps with."""
    import json

    from beam_jobs.pipeline import STAGES, Step, run_steps, stage_dirs
    ran = []

    def make(name):
        def run():
            ran.append(name)
            (tmp_path / name).mkdir(exist_ok=True)
            (tmp_path / name / "done.json").write_text(json.dumps({"step": name}))
            return {"step": name}
        return run
    steps = [Step(n, n, "done.json", make(n)) for n in ("a", "b")] + \
        [Step("c", "c", "done.json", make("c"), recorded=lambda out: {"from": str(out)})]
    results, timings = run_steps(steps, str(tmp_path), echo=lambda m: None)
    assert ran == ["a", "b", "c"] and results["b"] == {"step": "b"} and set(timings) == {"a", "b", "c"}
    (tmp_path / "b" / "done.json").unlink()  # b incomplete: only b runs again
    results, timings = run_steps(steps, str(tmp_path), resume=True, echo=lambda m: None)
    assert ran == ["a", "b", "c", "b"] and results["a"] == {"step": "a"} and timings["a"] == 0.0
    assert results["c"] == {"from": str(tmp_path / "c")}
    # each stage's folder is its own declaration, used by the run and the quickstart alike
    assert stage_dirs("w") == {name: f"w/{s.folder}" for name, s in STAGES.items()}
    assert stage_dirs("w")["featurize"] == "w/features"
