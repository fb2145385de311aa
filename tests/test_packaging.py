"""Beam can stage this checkout to remote workers with --setup_file: the sdist carries every code
package and the schema files."""
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_setup_file_builds_a_complete_sdist(tmp_path):
    from apache_beam.runners.portability.stager import Stager
    tarball = Stager._build_setup_package(str(ROOT / "setup.py"), str(tmp_path))
    names = tarfile.open(tarball).getnames()
    for needed in ("eaglekit/contract.py", "beam_jobs/__init__.py", "serving/__init__.py",
                   "schemas/features.json", "schemas/prompt.json", "schemas/conversation.json", "setup.cfg"):
        assert any(n.endswith(needed) for n in names), needed
