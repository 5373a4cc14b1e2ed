"""A line on stderr now and then while a command reads a large file in chunks (N = 27: 164 M
units, minutes of verify), so that a job log shows it working: none for a pass under FIRST
seconds, then one every EVERY seconds."""

import time

FIRST, EVERY = 5.0, 30.0


class Progress:
    def __init__(self, err, label, clock=time.monotonic):
        self.err, self.label, self.clock = err, label, clock
        self._pass = None   # (what, rows done so far) of the pass under way

    def rows(self, what, done, total):
        """DONE of TOTAL rows of WHAT read; a pass starts again where DONE goes back to 0."""
        now = self.clock()
        if self._pass is None or self._pass[0] != what or done <= self._pass[1]:
            self._start, self._next = now, now + FIRST
        elif now >= self._next:
            print(f"{self.label}: {what} {done:,} of {total:,} rows ({100 * done // total} %), "
                  f"{now - self._start:.0f} s", file=self.err, flush=True)
            self._next = now + EVERY
        self._pass = (what, done)
