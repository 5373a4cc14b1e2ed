"""Output files written whole or not at all: an interrupted `export` or `plot` (a scheduler's
SIGTERM, Ctrl-C, a full disk) leaves the earlier file, or none, never a truncated one."""

import contextlib
import os


@contextlib.contextmanager
def replace_when_done(path, mode="w", **kw):
    """Open PATH.part for writing; on success it replaces PATH, on any exception it is removed."""
    part = f"{path}.part"
    try:
        with open(part, mode, **kw) as fh:
            yield fh
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise
