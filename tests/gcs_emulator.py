"""gs:// for the tests through Beam's own GCSFileSystem and the Google Cloud Storage client it uses, against
a real GCS emulator (PyPI `gcp-storage-emulator`, pure Python, in-memory) started on loopback, with
`STORAGE_EMULATOR_HOST` pointing the client at it. Where it cannot start (the package or the gcp extra
absent, no loopback port) the tests fall back to the in-process fake (tests/fake_gcs.py) and say so with
a GcsFallbackWarning in the test output.

`gcs_backend()` yields a `Bucket`: a dict-like view of the objects (`bucket[path] = bytes`, `bucket[path]`,
`path in bucket`, iteration, `mtime(path)`) that goes through Beam's FileSystems, so a test reads and writes
the same way on either backend."""
from __future__ import annotations

import contextlib
import os
import socket
import warnings

BUCKET = "eaglekit-test"


class GcsFallbackWarning(UserWarning):
    """The gs:// tests ran on the in-process fake, not on the GCS emulator."""


class Bucket:
    def __init__(self, backend: str, root: str = f"gs://{BUCKET}"):
        self.backend, self.root = backend, root

    def __setitem__(self, path: str, data: bytes) -> None:
        from apache_beam.io.filesystems import FileSystems
        with FileSystems.create(path) as f:
            f.write(data)

    def __getitem__(self, path: str) -> bytes:
        from apache_beam.io.filesystems import FileSystems
        with FileSystems.open(path) as f:
            return f.read()

    def _metadata(self):
        from apache_beam.io.filesystems import FileSystems
        return [m for r in FileSystems.match([f"{self.root}/**"]) for m in r.metadata_list]

    def __iter__(self):
        return iter(sorted(m.path for m in self._metadata()))

    def __contains__(self, path: str) -> bool:
        return path in set(self)

    def mtime(self, path: str) -> float:
        return next(m.last_updated_in_seconds for m in self._metadata() if m.path == path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _emulator():
    """Start gcp-storage-emulator on loopback with an empty in-memory bucket; point the Google client (and
    Beam's GCSFileSystem, anonymously: no credentials are looked up) at it."""
    from apache_beam.internal.gcp import auth
    from apache_beam.io.gcp import gcsfilesystem  # noqa: F401 - the gcp extra: Beam's real gs:// filesystem
    from gcp_storage_emulator.server import create_server
    import logging
    logging.getLogger("gcp_storage_emulator").setLevel(logging.ERROR)  # its per-request notices
    port = _free_port()
    server = create_server("127.0.0.1", port, in_memory=True, default_bucket=BUCKET)
    server.start()
    before = os.environ.get("STORAGE_EMULATOR_HOST")
    os.environ["STORAGE_EMULATOR_HOST"] = f"http://127.0.0.1:{port}"
    # Beam looks up Application Default Credentials once per process, with retries and back-off: the
    # emulator takes anonymous requests, so record "none found" up front (Beam then makes an anonymous client)
    saved = (auth._Credentials._credentials_init, auth._Credentials._credentials)
    auth._Credentials._credentials_init, auth._Credentials._credentials = True, None
    try:
        yield
    finally:
        auth._Credentials._credentials_init, auth._Credentials._credentials = saved
        if before is None:
            os.environ.pop("STORAGE_EMULATOR_HOST", None)
        else:
            os.environ["STORAGE_EMULATOR_HOST"] = before
        server.stop()


@contextlib.contextmanager
def gcs_backend():
    """A `Bucket` on the GCS emulator, or on the in-process fake where the emulator cannot start."""
    try:
        emulator = _emulator()
        emulator.__enter__()
    except (ImportError, OSError) as err:
        warnings.warn(GcsFallbackWarning(f"gs:// tests on the in-process fake GCS (tests/fake_gcs.py): the GCS "
                                         f"emulator could not start ({type(err).__name__}: {err}); "
                                         f"pip install -e '.[dev]' installs it"))
        from tests.fake_gcs import fake_gcs
        with fake_gcs():
            yield Bucket("fake")
        return
    try:
        yield Bucket("emulator")
    finally:
        emulator.__exit__(None, None, None)
