"""The job graphs DataflowRunner would submit, built without a cloud account: each stage's pipeline is
constructed under DataflowRunner options and translated to the portable proto the way DataflowRunner does
it (default Docker environment, then its environment merging), without submitting (gs:// paths resolve through
Beam's GCSFileSystem against the GCS emulator, tests/gcs_emulator.py). Only the model steps
(generate's `Generate`, featurize's `Forward`) carry the GPU resource hint; clean carries none."""
import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.pipeline_utils import merge_common_environments, merge_superset_dep_environments
from apache_beam.transforms import environments

from tests.gcs_emulator import gcs_backend

ACCELERATOR = "type:nvidia-l4;count:1;install-nvidia-driver"
ACCELERATOR_URN = "beam:resources:accelerator:v1"
DATAFLOW = ["--runner=DataflowRunner", "--project=eaglekit-test", "--region=us-central1",
            "--temp_location=gs://eaglekit-test/tmp", "--setup_file=./setup.py"]


def job_graph(build) -> dict[str, dict[str, bytes]]:
    """{leaf transform name: its environment's resource hints} of the pipeline `build(p)` makes."""
    options = PipelineOptions(DATAFLOW)
    p = beam.Pipeline(runner="DirectRunner", options=options)  # the graph only: nothing runs
    with gcs_backend():  # gs:// paths resolve; nothing is read or written
        build(p)
    env = environments.DockerEnvironment.from_container_image(
        "apache/beam_python3.11_sdk", resource_hints=environments.resource_hints_from_options(options))
    proto = merge_common_environments(merge_superset_dep_environments(p.to_runner_api(default_environment=env)))
    envs = proto.components.environments
    return {t.unique_name: dict(envs[t.environment_id].resource_hints)
            for t in proto.components.transforms.values() if t.environment_id and not t.subtransforms}


def gpu_steps(graph) -> set[str]:
    return {name for name, hints in graph.items() if ACCELERATOR_URN in hints}


@pytest.fixture()
def run_configs(tmp_path):
    from beam_jobs.pipeline import RunConfig, build_stage_configs
    run = RunConfig(workdir=str(tmp_path / "w"), accelerator=ACCELERATOR, clean={"inputs": ["in.jsonl"]},
                    generate={"target": "tiny"}, featurize={"target": "tiny"})
    return build_stage_configs(run)


def test_only_generates_model_step_asks_for_a_gpu(run_configs, tiny_target):
    from beam_jobs.generate import _run_handler, build_pipeline, load_backend
    from beam_jobs.handlers import LoadOnceHandler
    from eaglekit import __version__
    from eaglekit.contract import arrow_schema
    cfg = run_configs["generate"]
    handler = LoadOnceHandler(cfg, load_backend, _run_handler, max_batch_size=8, namespace="t")
    schema = arrow_schema("conversation", {"eaglekit_version": __version__, **tiny_target.metadata()})
    graph = job_graph(lambda p: build_pipeline(p, cfg, ["gs://b/clean/prompts-0.parquet"], handler, schema,
                                               "gs://b/gen.tmp"))
    gpu = gpu_steps(graph)
    assert gpu and all(n.startswith("Generate/") for n in gpu), gpu
    assert {n for n in graph if n.startswith(("WriteConvs", "Read", "WriteDead"))}.isdisjoint(gpu)
    assert graph[next(iter(gpu))][ACCELERATOR_URN] == ACCELERATOR.encode()


def test_only_featurizes_model_step_asks_for_a_gpu(run_configs, tiny_target):
    from beam_jobs.featurize import _load_extractor, _run_extractor, build_pipeline, feature_meta
    from beam_jobs.handlers import LoadOnceHandler
    cfg = run_configs["featurize"]
    handler = LoadOnceHandler(cfg, _load_extractor, _run_extractor, max_batch_size=8, namespace="t")
    graph = job_graph(lambda p: build_pipeline(p, cfg, ["gs://b/gen/conversations-0.parquet"], handler,
                                               feature_meta(tiny_target, cfg), "gs://b/feat.tmp"))
    gpu = gpu_steps(graph)
    assert gpu and all(n.startswith("Forward/") for n in gpu), gpu
    assert not any(n.startswith("WriteShards") for n in gpu)


def test_the_clean_job_holds_no_gpu(run_configs):
    from beam_jobs.clean import build_pipeline
    from eaglekit import __version__
    from eaglekit.contract import arrow_schema
    cfg = run_configs["clean"]
    assert not hasattr(cfg, "accelerator")
    graph = job_graph(lambda p: build_pipeline(p, cfg, ["gs://b/in.jsonl"], [], {"gs://b/in.jsonl": "0" * 64},
                                               "gs://b/clean.tmp", arrow_schema("prompt", {"eaglekit_version": __version__}),
                                               prewarm_pii=False))
    assert len(graph) > 10 and not gpu_steps(graph)
