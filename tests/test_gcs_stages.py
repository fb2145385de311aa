"""Every stage reads from and writes to gs:// through Beam's FileSystems: Beam's own GCSFileSystem and the
Google Cloud Storage client, against a GCS emulator on loopback (tests/gcs_emulator.py; the in-process fake
of tests/fake_gcs.py only where the emulator cannot start, with a GcsFallbackWarning saying so):
clean -> generate -> featurize, each output staged, complete with a manifest that matches
schemas/manifest.json and was written last, no staging objects left behind, a re-run replaces an output,
and the shards read back for training."""
import hashlib
import json

import pytest

from tests.gcs_emulator import BUCKET, gcs_backend

RECORDS = [{"prompt": "What is the capital of France?"}, {"prompt": "Name three primes."},
           {"prompt": "What is the capital of France?"}, {"messages": [{"role": "assistant", "content": "x"}]},
           {"prompt": "Write a haiku about rain."}]
ROOT = f"gs://{BUCKET}"


@pytest.fixture()
def gcs():
    with gcs_backend() as bucket:
        yield bucket


def _manifest(gcs, folder):
    from eaglekit.contract import check_manifest
    data = json.loads(gcs[f"{folder}/manifest.json"])
    check_manifest(data)
    objects = [k for k in gcs if k.startswith(folder + "/")]
    for name in data["files"]:
        assert f"{folder}/{name}" in objects, name
    # the manifest is the last object written: a reader that sees it sees a complete folder
    last = max(gcs.mtime(k) for k in objects if not k.endswith("/manifest.json"))
    assert gcs.mtime(f"{folder}/manifest.json") >= last
    return data


def test_clean_generate_featurize_round_trip_on_gs(gcs, tiny_target, tmp_path):
    from beam_jobs.clean import CleanConfig, run_clean
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from beam_jobs.generate import GenerateConfig, run_generate
    gcs[f"{ROOT}/raw/prompts.jsonl"] = "\n".join(json.dumps(r) for r in RECORDS).encode() + b"\n"

    clean = run_clean(CleanConfig(inputs=[f"{ROOT}/raw/*.jsonl"], output=f"{ROOT}/out/clean", pii_enabled=False))
    assert clean["counts"]["prompts_out"] == 3 and clean["inputs"][0]["file"] == f"{ROOT}/raw/prompts.jsonl"
    assert _manifest(gcs, f"{ROOT}/out/clean")["stages"]["exact_dedupe"]["dropped"] == {"exact_duplicate": 1}

    gen = run_generate(GenerateConfig(input=f"{ROOT}/out/clean", output=f"{ROOT}/out/gen", target="tiny",
                                      max_new_tokens=4, batch_size=2))
    assert gen["counts"]["generate"] == {"in": 3, "out": 3, "dropped": {}}
    assert any(f.startswith("conversations-") for f in _manifest(gcs, f"{ROOT}/out/gen")["files"])

    feat = run_featurize(FeaturizeConfig(input=f"{ROOT}/out/gen", output=f"{ROOT}/out/feat", target="tiny"))
    m = _manifest(gcs, f"{ROOT}/out/feat")
    assert feat["num_rows"] == 3 and m["stages"]["featurize"]["out"] == 3 and m["shards"]
    local = tmp_path / "feat"  # the shards read back for training: what a trainer downloads from the bucket
    local.mkdir()
    for name in [*m["files"], "manifest.json"]:
        (local / name).write_bytes(gcs[f"{ROOT}/out/feat/{name}"])
    for shard in m["shards"]:
        data = gcs[f"{ROOT}/out/feat/{shard['file']}"]
        assert hashlib.sha256(data).hexdigest() == shard["sha256"] and len(data) == shard["bytes"]
    from eaglekit.shards import open_features, verify_features
    assert not verify_features(str(local)) and open_features(str(local)).num_rows == 3
    assert not [k for k in gcs if ".tmp-" in k or "/.parts/" in k or "beam-temp" in k], sorted(gcs)

    # a re-run replaces the output: nothing of the old one stays beside the new manifest
    gcs[f"{ROOT}/out/gen/stale-object"] = b"old"
    run_generate(GenerateConfig(input=f"{ROOT}/out/clean", output=f"{ROOT}/out/gen", target="tiny",
                                max_new_tokens=4, batch_size=2))
    assert f"{ROOT}/out/gen/stale-object" not in gcs
    _manifest(gcs, f"{ROOT}/out/gen")


def test_gs_runs_on_beams_own_gcs_filesystem_where_the_emulator_starts(gcs):
    from apache_beam.io.filesystems import FileSystems
    fs = FileSystems.get_filesystem(f"{ROOT}/x")
    if gcs.backend == "emulator":
        from apache_beam.io.gcp.gcsfilesystem import GCSFileSystem
        assert isinstance(fs, GCSFileSystem)
    gcs[f"{ROOT}/a/b.txt"] = b"hi"
    assert gcs[f"{ROOT}/a/b.txt"] == b"hi" and f"{ROOT}/a/b.txt" in gcs


def test_fake_gcs_is_only_active_inside_the_block():
    from apache_beam.io.filesystems import FileSystems

    from tests.fake_gcs import FakeGCS, fake_gcs
    with fake_gcs() as objects:
        with FileSystems.create("gs://b/x.txt") as f:
            f.write(b"hi")
        assert objects["gs://b/x.txt"][0] == b"hi"
    try:
        fs = FileSystems.get_filesystem("gs://b/x.txt")
    except ValueError:  # no gcp extra here: nothing serves gs://
        fs = None
    assert not isinstance(fs, FakeGCS)


def test_without_the_emulator_the_tests_say_they_ran_on_the_fake(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "gcp_storage_emulator.server", None)  # as if not installed
    with pytest.warns(UserWarning, match="in-process fake GCS"):
        with gcs_backend() as bucket:
            bucket[f"{ROOT}/x.txt"] = b"hi"
            assert bucket.backend == "fake" and bucket[f"{ROOT}/x.txt"] == b"hi"
