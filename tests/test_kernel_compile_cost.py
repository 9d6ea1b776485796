"""The kernels avoid what makes numba compile far more than the arithmetic needs.

numba compiles an assignment of one array into a slice of another (``a[:n] = b[:n]``,
``M[:, :] = W.T``) with the formatting of its shape-mismatch message, which brings its string
functions into the kernel: about a quarter of the bandit pass's machine code, and seconds of
every first fit (the performance page, "First fits").  The kernels copy with explicit loops
instead; this test reads their source so a new slice assignment is caught before it costs.
(A slice filled with a number, ``A[:, :] = 0.0``, compiles no message and is allowed.)
"""

import ast
from pathlib import Path

import pytest

import weaklabel

SRC = Path(weaklabel.__file__).resolve().parent


def _is_kernel(fn):
    for dec in fn.decorator_list:
        call = dec.func if isinstance(dec, ast.Call) else dec
        name = call.attr if isinstance(call, ast.Attribute) else getattr(call, "id", "")
        if name in ("njit", "jit"):
            return True
    return False


def _is_number(node):
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool))


def _slice_assignments(tree):
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and _is_kernel(fn)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign) or _is_number(node.value):
                continue
            for target in node.targets:
                if isinstance(target, ast.Subscript) and any(isinstance(s, ast.Slice) for s in ast.walk(target.slice)):
                    yield fn.name, node.lineno


def test_the_checker_finds_a_slice_assignment_and_allows_a_filled_slice():
    tree = ast.parse("@njit(cache=True)\ndef f(a, b):\n    a[:2] = b[:2]\n    a[:, :] = 0.0\n    a[0] = b[0]\n")
    assert list(_slice_assignments(tree)) == [("f", 3)]


@pytest.mark.slow
def test_no_kernel_assigns_an_array_into_a_slice():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for name, line in _slice_assignments(ast.parse(path.read_text())):
            found.append(f"{path.relative_to(SRC)}:{line} in {name}")
    assert not found, ("array slice assignments in numba kernels (copy with a loop instead; each compiles "
                       f"numba's error-message formatting): {found}")
