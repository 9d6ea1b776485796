"""Every numba kernel also runs as plain Python (``NUMBA_DISABLE_JIT=1``) and computes what
the compiled kernel computes.

numba compiles a subset of Python with its own typing: code that works compiled can fail or
differ when read as Python (the Python reading is what a debugger steps through, and what a
reader checks against the paper).  The workload (tests/_python_mode_workload.py) fits every
learner on tiny data in the paths that reach every kernel, at least 68 (dense and sparse rows,
candidate sets, logged feedback, every UMA selection rule, LP decoding and branch and bound
on a frustrated graph).  It found a real defect when written: UMA's ``_uma_changes_moved``
subtracted two numpy booleans, which numba allows and numpy refuses.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_every_kernel_runs_as_python_and_equals_the_compiled_kernel():
    sys.path.insert(0, str(HERE))
    try:
        import _python_mode_workload as workload
    finally:
        sys.path.remove(str(HERE))
    compiled = workload.run()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run([sys.executable, str(HERE / "_python_mode_workload.py")], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    python = json.loads(proc.stdout)
    assert len(python["defined"]) >= 68
    assert sorted(set(python["defined"]) - set(python["called"])) == [], "kernels the workload never ran"
    assert python["results"].keys() == compiled.keys()
    differ = [k for k in compiled if python["results"][k] != compiled[k]]
    assert not differ, differ
