"""The one file checksum eaglekit records and checks (model files, input files, shards)."""
from __future__ import annotations

import hashlib
from typing import IO, Callable

CHUNK = 1 << 20


def file_sha256(path, opener: Callable[..., IO[bytes]] | None = None) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks. `opener(path)` opens it for binary reading:
    the builtin open by default; `apache_beam.io.filesystems.FileSystems.open` for gs:// and other
    Beam filesystems."""
    h = hashlib.sha256()
    with (opener(path) if opener is not None else open(path, "rb")) as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()
