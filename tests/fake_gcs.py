"""An in-process fake of Google Cloud Storage for Beam: a `FileSystem` registered for the `gs` scheme that
keeps objects in a dict. Like GCS it has no directories (a "folder" is a key prefix), `rename` is copy +
delete per object, and `delete` of `prefix/` removes every object under it.

It starts when a test enters `fake_gcs()` (the scheme is `gs` only inside the block; a real GCSFileSystem,
where the gcp extra is installed, is set aside meanwhile) and lives in the test process: Beam's in-process
DirectRunner (FnApiRunner, the default in_memory mode) reads and writes it from the same process."""
from __future__ import annotations

import contextlib
import io
import time

from apache_beam.io.filesystem import BeamIOError, FileMetadata, FileSystem


class _Upload(io.BytesIO):
    def __init__(self, store: dict, path: str):
        super().__init__()
        self._store, self._path = store, path

    def close(self):
        if not self.closed:
            self._store[self._path] = (self.getvalue(), time.time())
        super().close()


class FakeGCS(FileSystem):
    ACTIVE = False
    objects: dict[str, tuple[bytes, float]] = {}

    @classmethod
    def scheme(cls):
        return "gs" if cls.ACTIVE else "fake-gcs-inactive"

    def join(self, basepath, *paths):
        return "/".join([basepath.rstrip("/"), *[p.strip("/") for p in paths]])

    def split(self, path):
        head, _, tail = path.rstrip("/").rpartition("/")
        return head, tail

    def mkdirs(self, path):
        pass

    def has_dirs(self):
        return False

    def _list(self, dir_or_prefix):
        for key, (data, mtime) in sorted(self.objects.items()):
            if key.startswith(dir_or_prefix):
                yield FileMetadata(key, len(data), mtime)

    def create(self, path, mime_type="application/octet-stream", compression_type=None):
        return _Upload(self.objects, path)

    def open(self, path, mime_type="application/octet-stream", compression_type=None):
        if path not in self.objects:
            raise BeamIOError(f"no such object {path}", {path: FileNotFoundError(path)})
        return io.BytesIO(self.objects[path][0])

    def _keys(self, path):
        if path in self.objects and not path.endswith("/"):
            return [path]
        prefix = path.rstrip("/") + "/"
        return [k for k in self.objects if k.startswith(prefix)]

    def copy(self, source_file_names, destination_file_names):
        for src, dst in zip(source_file_names, destination_file_names):
            keys = self._keys(src)
            if not keys:
                raise BeamIOError("copy failed", {(src, dst): FileNotFoundError(src)})
            for k in keys:
                self.objects[dst + k[len(src):] if k != src else dst] = self.objects[k]

    def rename(self, source_file_names, destination_file_names):
        self.copy(source_file_names, destination_file_names)
        self.delete(source_file_names)

    def exists(self, path):
        return bool(self._keys(path))

    def size(self, path):
        return len(self.objects[path][0])

    def last_updated(self, path):
        return self.objects[path][1]

    def checksum(self, path):
        import hashlib
        return hashlib.md5(self.objects[path][0]).hexdigest()

    def metadata(self, path):
        data, mtime = self.objects[path]
        return FileMetadata(path, len(data), mtime)

    def delete(self, paths):
        for path in paths:
            for k in self._keys(path):
                self.objects.pop(k, None)


@contextlib.contextmanager
def fake_gcs():
    """Route gs:// paths to an empty FakeGCS for the duration; yields the object dict."""
    real = [c for c in FileSystem.get_all_subclasses() if c is not FakeGCS and c.scheme() == "gs"]
    saved = {c: c.__dict__.get("scheme") for c in real}
    for c in real:
        c.scheme = classmethod(lambda cls: "gcs-set-aside")
    FakeGCS.objects = {}
    FakeGCS.ACTIVE = True
    try:
        yield FakeGCS.objects
    finally:
        FakeGCS.ACTIVE = False
        for c, s in saved.items():
            c.scheme = s
