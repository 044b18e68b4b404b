"""Progress of long work on stderr, as a terminal user and a log reader each expect it.

:class:`Progress` is the callback the solvers take (``progress(done, total)``):

- on a terminal, a tqdm bar with the count, the rate and the time left, drawn once the work
  has lasted ``delay`` seconds (a short run prints nothing);
- elsewhere (a log, a pipe, a captured stream), one plain line when the stage ends, no
  carriage return: ``tasksim simulate vanilla: 360/360 samples in 12.3 s (29.3 samples/s)``,
  again only when it lasted ``delay`` seconds or more;
- ``tasksim --quiet`` hands the commands a stream that discards everything, so nothing.

Examples
--------
>>> import io
>>> log = io.StringIO()
>>> bar = Progress(log, "tasksim simulate", delay=0.0)
>>> for done in (1, 2, 3):
...     bar(done, 3)
>>> bar.close()
>>> log.getvalue().startswith("tasksim simulate: 3/3 samples in ")
True
>>> "\\r" in log.getvalue()
False
"""
from __future__ import annotations

import io
import time
from typing import Optional, TextIO

__all__ = ["Progress", "is_terminal", "discard"]


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal (a bar can redraw itself there)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Discard(io.TextIOBase):
    """A text stream that accepts everything and keeps nothing (``--quiet``)."""

    def write(self, text: str) -> int:
        return len(text)


def discard() -> TextIO:
    """A stream for ``--quiet``: progress and notes written to it go nowhere."""
    return _Discard()  # type: ignore[return-value]


class Progress:
    """Progress of one stage of ``total`` items on ``stream`` (module docstring).

    Call it with ``(done, total)`` as the work advances and :meth:`close` it at the end (also
    after a failure: it then prints nothing more than it has).
    """

    def __init__(self, stream: TextIO, label: str, *, unit: str = "samples",
                 delay: float = 2.0, every: float = 0.5) -> None:
        self.stream, self.label, self.unit, self.delay = stream, label, unit, delay
        self.every = every
        self.start = time.monotonic()
        self.done = 0
        self.total: Optional[int] = None
        self._bar = None
        self._terminal = is_terminal(stream)

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = int(done), int(total)
        if not self._terminal:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=self.total, desc=self.label, unit=f" {self.unit}",
                             file=self.stream, delay=max(0.0, self.delay - self._elapsed()),
                             mininterval=self.every, dynamic_ncols=True, leave=True)
        self._bar.total = self.total
        self._bar.update(self.done - self._bar.n)

    def _elapsed(self) -> float:
        return time.monotonic() - self.start

    def close(self) -> None:
        """End the stage: close the bar, or write the log line (module docstring)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            return
        elapsed = self._elapsed()
        if self._terminal or self.total is None or elapsed < self.delay:
            return
        rate = f" ({self.done / elapsed:.3g} {self.unit}/s)" if elapsed > 0 else ""
        self.stream.write(f"{self.label}: {self.done}/{self.total} {self.unit} in "
                          f"{elapsed:.1f} s{rate}\n")
        self.stream.flush()
