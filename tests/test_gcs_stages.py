"""Every stage reads from and writes to gs:// through Beam's FileSystems, against an in-process fake of
GCS (tests/fake_gcs.py; it starts when a test enters `fake_gcs()` and needs no network or account):
clean -> generate -> featurize, each output complete with a manifest that matches schemas/manifest.json,
no staging objects left behind, and a re-run replaces an output."""
import hashlib
import json

import pytest

from tests.fake_gcs import FakeGCS, fake_gcs

RECORDS = [{"prompt": "What is the capital of France?"}, {"prompt": "Name three primes."},
           {"prompt": "What is the capital of France?"}, {"messages": [{"role": "assistant", "content": "x"}]},
           {"prompt": "Write a haiku about rain."}]


@pytest.fixture()
def gcs():
    with fake_gcs() as objects:
        yield objects


def _manifest(objects, folder):
    from eaglekit.contract import check_manifest
    data = json.loads(objects[f"{folder}/manifest.json"][0])
    check_manifest(data)
    for name in data["files"]:
        assert f"{folder}/{name}" in objects, name
    return data


def test_clean_generate_featurize_round_trip_on_gs(gcs, tiny_target):
    from beam_jobs.clean import CleanConfig, run_clean
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from beam_jobs.generate import GenerateConfig, run_generate
    gcs["gs://bucket/raw/prompts.jsonl"] = ("\n".join(json.dumps(r) for r in RECORDS).encode() + b"\n", 0.0)

    clean = run_clean(CleanConfig(inputs=["gs://bucket/raw/*.jsonl"], output="gs://bucket/out/clean",
                                  pii_enabled=False))
    assert clean["counts"]["prompts_out"] == 3 and clean["inputs"][0]["file"] == "gs://bucket/raw/prompts.jsonl"
    assert _manifest(gcs, "gs://bucket/out/clean")["stages"]["exact_dedupe"]["dropped"] == {"exact_duplicate": 1}

    gen = run_generate(GenerateConfig(input="gs://bucket/out/clean", output="gs://bucket/out/gen", target="tiny",
                                      max_new_tokens=4, batch_size=2))
    assert gen["counts"]["generate"] == {"in": 3, "out": 3, "dropped": {}}
    assert any(f.startswith("conversations-") for f in _manifest(gcs, "gs://bucket/out/gen")["files"])

    feat = run_featurize(FeaturizeConfig(input="gs://bucket/out/gen", output="gs://bucket/out/feat", target="tiny"))
    m = _manifest(gcs, "gs://bucket/out/feat")
    assert feat["num_rows"] == 3 and m["stages"]["featurize"]["out"] == 3 and m["shards"]
    for shard in m["shards"]:
        data = gcs[f"gs://bucket/out/feat/{shard['file']}"][0]
        assert hashlib.sha256(data).hexdigest() == shard["sha256"] and len(data) == shard["bytes"]
    assert not [k for k in gcs if ".tmp-" in k or "/.parts/" in k or "beam-temp" in k], sorted(gcs)

    # a re-run replaces the output: nothing of the old one stays beside the new manifest
    gcs["gs://bucket/out/gen/stale-object"] = (b"old", 0.0)
    run_generate(GenerateConfig(input="gs://bucket/out/clean", output="gs://bucket/out/gen", target="tiny",
                                max_new_tokens=4, batch_size=2))
    assert "gs://bucket/out/gen/stale-object" not in gcs
    _manifest(gcs, "gs://bucket/out/gen")


def test_fake_gcs_is_only_active_inside_the_block():
    from apache_beam.io.filesystems import FileSystems
    with fake_gcs() as objects:
        with FileSystems.create("gs://b/x.txt") as f:
            f.write(b"hi")
        assert objects["gs://b/x.txt"][0] == b"hi"
    try:
        fs = FileSystems.get_filesystem("gs://b/x.txt")
    except ValueError:  # no gcp extra here: nothing serves gs://
        fs = None
    assert not isinstance(fs, FakeGCS)
