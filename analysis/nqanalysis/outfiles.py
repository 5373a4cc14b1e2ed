"""Output files written whole or not at all: an interrupted `export` or `plot` (a scheduler's
SIGTERM, Ctrl-C, a full disk) leaves the earlier file, or none, never a truncated one."""

import contextlib
import os

from .resultfile import OutputError, UsageError


def check_output_dir(path, flag):
    """An output directory given as `flag` that is a file is a usage error."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{flag} {path}: exists and is not a directory")


@contextlib.contextmanager
def output_dir(path, flag):
    """The output directory of a command (`flag`: the option that names it), created with its
    missing parents. When the command fails or is interrupted, the directories it created are
    removed again as long as they are empty: a failed command leaves no empty directory it made
    (an export of a file it refused left its empty --csv directory), and never removes one that
    was there before or that holds files."""
    check_output_dir(path, flag)
    created, d = [], os.path.abspath(path)
    while not os.path.lexists(d):   # deepest first
        created.append(d)
        d = os.path.dirname(d)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create directory {path}: {exc.strerror or exc}") from None
    try:
        yield path
    except BaseException:
        for d in created:
            with contextlib.suppress(OSError):   # (not empty: it holds files, kept)
                os.rmdir(d)
        raise


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
