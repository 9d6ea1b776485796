"""Run one probe in a forked child under a memory cap and a timeout, and report what
happened: a result, an exception (its type and message), a crash (a signal), a hang or an
allocation beyond the cap.  The harness's assertions read only this outcome."""

from __future__ import annotations

import os
import pickle
import resource
import signal
from dataclasses import dataclass

#: what a probe may allocate beyond what the process holds when it starts
MEMORY_CAP = 2 << 30
#: how long a probe may run
SECONDS = 60

#: the exceptions the contract allows: a bad argument is a ValueError or a TypeError (their
#: subclasses included: LabelingFunctionError, sklearn's NotFittedError, InvalidParameterError)
ALLOWED = (ValueError, TypeError, FileNotFoundError)


@dataclass
class Outcome:
    kind: str                 # "result", "error", "crash", "hang", "memory"
    error: str = ""           # the exception's type name
    message: str = ""
    allowed: bool = True      # an error of an allowed type
    changed: list = None      # the attributes of a fitted model a failed call changed

    def problem(self):
        """Why this outcome breaks the contract, or "" when it keeps it."""
        if self.kind == "result":
            return ""
        if self.kind != "error":
            return f"a {self.kind}: {self.message}"
        if not self.allowed:
            return f"{self.error} is not a ValueError or TypeError: {self.message}"
        if "\n" in self.message.strip() or len(self.message) > 800:
            return f"the message is not one line: {self.message[:300]!r}"
        if self.changed:
            return f"the call failed ({self.error}: {self.message}) but changed the fitted model: {self.changed}"
        return ""


def _vm_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def run_guarded(probe, seconds=SECONDS, memory=MEMORY_CAP):
    """``probe()`` in a forked child: its outcome.  An exception raised through
    :func:`call_keeps_model` carries the attributes the failed call changed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                           # the child
        os.close(read)
        status = Outcome("result")
        try:
            limit = _vm_bytes() + memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            # the library's own bound, under the cap: it must refuse before the cap is reached
            from weaklabel import _validation
            _validation.MEMORY_BUDGET = memory // 2
            signal.alarm(seconds)
            probe()
            status = Outcome("result")
        except MemoryError as exc:
            status = Outcome("memory", "MemoryError", f"beyond {memory >> 20} MiB: {exc}")
        except BaseException as exc:                        # noqa: B902 - reported, not swallowed
            changed = getattr(exc, "_model_changed", None)
            status = Outcome("error", type(exc).__name__, str(exc), isinstance(exc, ALLOWED), changed)
        try:
            os.write(write, pickle.dumps(status))
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(read)
    _, code = os.waitpid(pid, 0)
    if data:
        return pickle.loads(data)
    if os.WIFSIGNALED(code):
        sig = os.WTERMSIG(code)
        if sig == signal.SIGALRM:
            return Outcome("hang", message=f"more than {seconds} s")
        return Outcome("crash", message=f"killed by signal {signal.Signals(sig).name}")
    return Outcome("crash", message=f"exited with {code}")


def _plain(value):
    """``value`` with every array laid out C-contiguous (a restored copy of a strided view
    is the same state)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(v) for v in value]
    if isinstance(value, dict):
        return "dict", sorted((repr(k), _plain(v)) for k, v in value.items())
    return value


def fingerprint(est):
    """Each attribute of a fitted estimator as bytes: they change whenever its state does
    (attribute by attribute, so that equal values held as copies compare equal)."""
    return {k: pickle.dumps(_plain(v), protocol=5) for k, v in vars(est).items()}


def call_keeps_model(est, method, *args, **kwargs):
    """``getattr(est, method)(*args, **kwargs)``; when it raises, the exception carries
    whether the estimator's state changed (the contract: a failed call changes nothing)."""
    before = fingerprint(est)
    try:
        getattr(est, method)(*args, **kwargs)
    except BaseException as exc:
        after = fingerprint(est)
        exc._model_changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise
