"""Command line: nqanalyze {summary,verify,plot,scaling,export} ..."""

import argparse
import contextlib
import os
import signal
import sys
import threading

from . import __version__
from .progress import Progress
from .resultfile import NQError, OutputError

EPILOG = ("exit codes: 0 success/pass, 1 verification failed (or internal error), 2 usage, "
          "3 unreadable or not an nqueens result file, 4 cannot write output, "
          "130 interrupted (SIGINT), 143 terminated (SIGTERM)")


class Terminated(BaseException):
    """SIGTERM (a scheduler ending the job): unwinds as Ctrl-C does, so that no partial output
    file and no spilled temporary file is left behind."""


@contextlib.contextmanager
def _sigterm_unwinds():
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame):
        raise Terminated()

    old = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser():
    p = Parser(prog="nqanalyze",
               description="Inspect, verify, plot and export nqueens HDF5 result files "
                           "(schema: docs/file-format.md).",
               epilog=EPILOG)
    p.add_argument("--version", action="version", version=f"nqanalyze {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    s = sub.add_parser("summary", help="table of the key numbers of one or more files",
                       description="Print N, mode, status, total, unique, match with the "
                                   "published table, wall time, ranks x threads, units and "
                                   "solutions/s; several files side by side.", epilog=EPILOG)
    s.add_argument("files", nargs="+", metavar="FILE")

    v = sub.add_parser("verify", help="integrity check, independent of the C++ code",
                       description="Recompute and cross-check everything a result file "
                                   "claims: totals from /units, unit ids and coverage, the "
                                   "published table, Burnside's identity, and in boards mode "
                                   "every board (valid, no duplicates, canonical and class "
                                   "size for class files, counts per unit, unit pre-placements). "
                                   "Exit 0 pass, 1 fail, 3 unreadable/not an nqueens file.",
                       epilog=EPILOG)
    v.add_argument("files", nargs="+", metavar="FILE")
    v.add_argument("--recount", choices=["auto", "always", "never"], default="auto",
                   help="recount every unit's solutions with the Python solver "
                        "(auto: only for N <= 10)")
    v.add_argument("--known", metavar="TSV",
                   help="published table (default: the copy of data/known-counts.tsv in the "
                        "nqanalysis package)")
    v.add_argument("--chunk", type=int, default=1 << 17, metavar="ROWS",
                   help="rows of /boards and of /units read at a time (default %(default)s)")

    pl = sub.add_parser("plot", help="PNG figures of one file",
                        description="Write PNG figures: unit time distribution, load per "
                                    "rank/thread over time, solutions by the first rows' "
                                    "placements, (boards files) a queen heat map, and a drawn "
                                    "board. Prints the paths written.", epilog=EPILOG)
    pl.add_argument("file", metavar="FILE")
    pl.add_argument("--out", required=True, metavar="DIR", help="output directory")
    pl.add_argument("--board", type=int, default=None, metavar="INDEX",
                    help="which solution to draw (row of /boards/solutions; for count files "
                         "the INDEX-th solution of a small Python solver); default 0, skipped "
                         "where N has none (given, it must exist: exit 2)")

    sc = sub.add_parser("scaling", help="time vs N and vs ranks x threads over several runs",
                        description="Compare complete runs: print a table (wall time, unit "
                                    "CPU time, speedup and efficiency relative to the run with "
                                    "the fewest workers for the same N and mode) and write "
                                    "scaling.png.", epilog=EPILOG)
    sc.add_argument("files", nargs="+", metavar="FILE")
    sc.add_argument("--out", default=".", metavar="DIR",
                    help="directory for scaling.png (default: current directory)")

    ex = sub.add_parser("export", help="CSV export of /units and /boards",
                        description="Write DIR/units.csv (one row per unit) and, for boards "
                                    "files, DIR/boards.csv (index, unit, [class_size], row0.."
                                    "row{N-1} = column of the queen in each row), streamed in "
                                    "chunks.", epilog=EPILOG)
    ex.add_argument("file", metavar="FILE")
    ex.add_argument("--csv", required=True, metavar="DIR", help="output directory")
    return p


def check_known_table(known):
    """A published table asked for (--known, else NQANALYSIS_KNOWN_COUNTS) must be readable: one
    that is not would turn the comparisons with it off unseen (verify said PASS, summary
    'unknown'). Usage error, exit 2, naming where it was asked for."""
    import os
    from .known import load_known
    if known == "":
        raise_usage("--known is empty: give the published table's path")
    env = os.environ.get("NQANALYSIS_KNOWN_COUNTS")
    source = f"--known {known}" if known is not None else f"NQANALYSIS_KNOWN_COUNTS={env}" if env else None
    if source is None:
        return
    try:
        load_known(known)
    except (OSError, ValueError) as exc:
        raise_usage(f"{source}: cannot read the published table ({exc})")


def run(args, out, err):
    for flag in ("out", "csv"):   # an empty directory was "cannot create directory :", exit 4
        if getattr(args, flag, None) == "":
            raise_usage(f"--{flag} is empty: give a directory")
    if args.command in ("summary", "verify"):
        check_known_table(getattr(args, "known", None))
    if args.command == "summary":
        from .summary import summary
        return summary(args.files, out, err)
    if args.command == "verify":
        from .verify import verify_path
        if args.chunk < 1:
            raise_usage("--chunk must be >= 1")
        code = 0
        for i, f in enumerate(args.files):
            if i:
                print(file=out)
            try:
                rc = verify_path(f, out, Progress(err, f"nqanalyze verify: {f}"),
                                 known_path=args.known, recount=args.recount,
                                 chunk_rows=args.chunk)
            except NQError as exc:
                out.flush()
                print(f"nqanalyze verify: {exc}", file=err)
                rc = exc.exit_code
            code = rc if rc > code else code
        return code
    if args.command == "plot":
        from .plots import plot_file
        return plot_file(args.file, args.out, args.board, out,
                         progress=Progress(err, f"nqanalyze plot: {args.file}"))
    if args.command == "scaling":
        from .scaling import scaling
        return scaling(args.files, args.out, out, err)
    if args.command == "export":
        from .export import export
        return export(args.file, args.csv, out,
                      progress=Progress(err, f"nqanalyze export: {args.file}"))
    raise AssertionError(args.command)


def raise_usage(msg):
    from .resultfile import UsageError
    raise UsageError(msg)


class _Output:
    """The output stream, whose write errors (a full disk, a closed stdout) are OutputError:
    exit 4 and one line, as nqueens (they ended in "internal error: OSError", exit 1)."""

    def __init__(self, stream):
        self._stream = stream
        self._failed = False   # said once; later writes go nowhere

    def _do(self, name, *args):
        if self._failed:
            return None
        if self._stream is None:   # (Python's sys.stdout when the process started with it closed)
            self._failed = True
            raise OutputError("cannot write the output to stdout: it is closed")
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            self._failed = True
            if self._stream is sys.stdout:   # what is still buffered goes nowhere, not to a failing exit flush
                with open(os.devnull, "w") as null:
                    os.dup2(null.fileno(), sys.stdout.fileno())
            raise OutputError(f"cannot write the output to stdout: {exc.strerror or exc}") from None

    def write(self, text):
        return self._do("write", text)

    def flush(self):
        return self._do("flush")

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv=None, out=None, err=None):
    out = _Output(out or sys.stdout)
    err = err or sys.stderr
    parser = build_parser()
    try:
        # argparse prints to sys.stdout/sys.stderr: route it to out/err
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    except BrokenPipeError:   # (--help into a reader that left)
        return 0
    except NQError as exc:    # --help or a usage message that could not be written
        print(f"nqanalyze: {exc}", file=err)
        return exc.exit_code
    try:
        with _sigterm_unwinds():
            code = run(args, out, err)
        out.flush()
        return code
    except NQError as exc:
        out.flush()
        print(f"nqanalyze {args.command}: {exc}", file=err)
        return exc.exit_code
    except KeyboardInterrupt:
        print("nqanalyze: interrupted", file=err)
        return 130
    except Terminated:
        print(f"nqanalyze {args.command}: terminated (SIGTERM)", file=err)
        return 143
    except BrokenPipeError:
        return 0
    except MemoryError:
        print(f"nqanalyze {args.command}: out of memory", file=err)
        return 1
    except Exception as exc:  # a bug: say so in one line, with the type
        print(f"nqanalyze {args.command}: internal error: {type(exc).__name__}: {exc}", file=err)
        return 1
