"""Output files written whole or not at all: an interrupted `export` or `plot` (a scheduler's
SIGTERM, Ctrl-C, a full disk) leaves the earlier file, or none, never a truncated one."""

import contextlib
import os


@contextlib.contextmanager
def replace_together(*paths):
    """PATH.part for each PATH (yielded, in order), for the caller to write. On success each part
    replaces its PATH; several PATHs are all removed first, so that an interruption or a failure
    leaves files missing, never an earlier file beside a new one (an export's units.csv of one
    result file beside the boards.csv of another); one PATH is replaced at once (os.replace). On
    any exception the parts are removed."""
    parts = [f"{p}.part" for p in paths]
    try:
        yield parts
        if len(paths) > 1:
            for p in paths:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(p)
        for part, p in zip(parts, paths):
            os.replace(part, p)
    except BaseException:
        for part in parts:
            with contextlib.suppress(OSError):
                os.unlink(part)
        raise


@contextlib.contextmanager
def replace_when_done(path, mode="w", **kw):
    """Open PATH.part for writing; on success it replaces PATH, on any exception it is removed."""
    with replace_together(path) as (part,):
        with open(part, mode, **kw) as fh:
            yield fh
