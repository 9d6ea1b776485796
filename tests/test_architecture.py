"""The package's shape: the layer contracts, and the kernel rules that keep numba's compile
time down (no slice assignments, at most ten positional arguments)."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import weaklabel

ROOT = Path(__file__).resolve().parents[1]

# Runs in a fresh interpreter in which every optional package fails to import, as on a
# machine with `pip install weaklabel` and no extras.
_BLOCK = textwrap.dedent("""
    import sys
    BLOCKED = ("click", "tqdm", "matplotlib", "h5py", "dask", "distributed", "cleanlab", "vowpalwabbit")
    class _Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"No module named {name!r} (blocked by the test)")
            return None
    sys.meta_path.insert(0, _Blocker())
""")


def _run(code):
    return subprocess.run([sys.executable, "-c", _BLOCK + textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_import_contracts_hold():
    """Layers and forbidden imports in pyproject.toml, checked by import-linter."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_cli_without_its_extra_says_which_to_install():
    proc = _run("""
        from weaklabel.__main__ import run
        sys.exit(run(["--help"]))
    """)
    assert proc.returncode == 2
    assert 'pip install "weaklabel[cli]"' in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_command_line_loads_no_learner_until_it_needs_one():
    """`weaklabel --help` stays fast: the CLI and the package face import neither
    scikit-learn nor numba; the containers load on first use (the package's ``__getattr__``)."""
    import weaklabel

    code = ("import sys, weaklabel, weaklabel.cli; print([m for m in ('sklearn', 'numba', 'weaklabel.labels') "
            "if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    assert weaklabel.__getattr__("CandidateSets") is weaklabel.labels.CandidateSets
    assert weaklabel.CandidateSets.__module__ == "weaklabel.labels"


@pytest.mark.slow
def test_subcommand_help_loads_no_learner():
    """`weaklabel CMD --help` imports neither scikit-learn nor numba, except `reproduce`, whose
    help lists the registered reproductions (found by importing them); fit's --method is
    checked when the command runs, not listed in its help."""
    for cmd in ("fit", "predict", "evaluate", "report", "speed", "datasets"):
        code = ("import sys; from click.testing import CliRunner; from weaklabel.cli import main\n"
                f"r = CliRunner().invoke(main, [{cmd!r}, '--help']); assert r.exit_code == 0, r.output\n"
                "print([m for m in ('sklearn', 'numba', 'weaklabel.presets') if m in sys.modules])")
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert proc.returncode == 0, (cmd, proc.stderr)
        assert proc.stdout.strip() == "[]", cmd


def test_scikit_learns_private_api_is_imported_in_one_module():
    """Only weaklabel._validation imports scikit-learn's private names (``sklearn.x._y`` or
    ``from sklearn... import _name``), so one module meets their changes."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "weaklabel"
    pattern = re.compile(r"^\s*(from sklearn[\w.]*\._\w+ import|from sklearn[\w.]* import .*\b_\w+|import sklearn[\w.]*\._)",
                         re.M)
    offenders = [str(f.relative_to(src)) for f in src.rglob("*.py")
                 if f.name != "_validation.py" and pattern.search(f.read_text())]
    assert not offenders, offenders


def _numba_kernels():
    """Every numba kernel defined in the package: (module, name, positional parameters)."""
    import importlib
    import inspect
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import weaklabel

    found = []
    for info in pkgutil.walk_packages(weaklabel.__path__, "weaklabel."):
        if info.name.startswith("weaklabel.experiments") or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                params = inspect.signature(obj.py_func).parameters.values()
                found.append((module.__name__, name, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                                           for p in params)))
    return found


def test_kernels_take_at_most_ten_positional_arguments():
    """Rows travel as one value (``kernel_rows``), a rule's parameters as one value
    (``_rule_params()``), histories and buffers as one value each."""
    kernels = _numba_kernels()
    assert len(kernels) >= 60, f"found only {len(kernels)} kernels: is the discovery broken?"
    wide = [f"{m}.{n} ({k})" for m, n, k in kernels if k > 10]
    assert not wide, f"kernels with more than 10 positional arguments: {wide}"


def test_every_estimator_constructor_stores_its_arguments_as_scikit_learn_writes_it():
    """An estimator's ``__init__`` is ``self.alpha = alpha`` for each argument, in signature
    order, and nothing else (a deprecated class may warn first): a reader, and a tool, follows
    a parameter from the signature to its attribute."""
    import ast

    from sklearn.base import BaseEstimator

    import weaklabel

    src = Path(weaklabel.__file__).parent
    checked = 0
    for path in src.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is None:
                continue
            obj = getattr(__import__(_module_of(path, src), fromlist=["x"]), cls.name, None)
            if not (isinstance(obj, type) and issubclass(obj, BaseEstimator)):
                continue
            names = [a.arg for a in init.args.posonlyargs + init.args.args + init.args.kwonlyargs][1:]
            body = [ast.unparse(s) for s in init.body if not isinstance(s, ast.Expr)]    # a deprecation warning
            assert body == [f"self.{n} = {n}" for n in names], f"{path.name}: {cls.name}.__init__"
            checked += 1
    assert checked >= 30


def _module_of(path, src):
    rel = path.relative_to(src.parent).with_suffix("")
    return ".".join(p for p in rel.parts if p != "__init__")


# ---- what makes numba compile more than the arithmetic needs --------------------
# The kernels avoid what makes numba compile far more than the arithmetic needs.
#
# numba compiles an assignment of one array into a slice of another (``a[:n] = b[:n]``,
# ``M[:, :] = W.T``) with the formatting of its shape-mismatch message, which brings its string
# functions into the kernel: about a quarter of the bandit pass's machine code, and seconds of
# every first fit (the performance page, "First fits").  The kernels copy with explicit loops
# instead; this test reads their source so a new slice assignment is caught before it costs.
# (A slice filled with a number, ``A[:, :] = 0.0``, compiles no message and is allowed.)

_SRC = Path(weaklabel.__file__).resolve().parent


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
    for path in sorted(_SRC.rglob("*.py")):
        for name, line in _slice_assignments(ast.parse(path.read_text())):
            found.append(f"{path.relative_to(_SRC)}:{line} in {name}")
    assert not found, ("array slice assignments in numba kernels (copy with a loop instead; each compiles "
                       f"numba's error-message formatting): {found}")


def test_every_module_with_logic_has_a_test_file_of_its_name():
    """tests/ mirrors the package: weaklabel/<package>/<module>.py (or _<module>.py) has its
    tests in tests/<package>/test_<module>.py; a module of no logic (the version) is exempt."""
    exempt = {"_version.py", "__init__.py", "__main__.py"}
    missing = [str(p.relative_to(_SRC)) for p in sorted(_SRC.rglob("*.py"))
               if p.name not in exempt and "__pycache__" not in p.parts
               and not (ROOT / "tests" / p.parent.relative_to(_SRC) / f"test_{p.stem.lstrip('_')}.py").exists()]
    assert not missing, f"modules without a test file of their name: {missing}"


def _public_estimators():
    """Every public estimator class of the package (imported from its modules)."""
    import importlib
    import inspect
    import pkgutil

    from sklearn.base import BaseEstimator

    found = {}
    for m in pkgutil.walk_packages(weaklabel.__path__, "weaklabel."):
        if ".experiments" in m.name or m.name.endswith("__main__") or m.name.endswith(".cli"):
            continue
        mod = importlib.import_module(m.name)
        for name, cls in vars(mod).items():
            if (inspect.isclass(cls) and cls.__module__ == mod.__name__ and not name.startswith("_")
                    and issubclass(cls, BaseEstimator)):
                found[f"{cls.__module__}.{name}"] = cls
    return found


def test_no_learner_inherits_through_more_than_four_weaklabel_classes():
    """A learner's whole story is in a few places: at most four classes of the package above it."""
    found = _public_estimators()
    deep = {name: [k.__name__ for k in cls.__mro__[1:] if k.__module__.startswith("weaklabel")]
            for name, cls in found.items()}
    assert len(found) > 30
    assert {name: chain for name, chain in deep.items() if len(chain) > 4} == {}


def test_no_online_family_overrides_more_than_five_engine_members():
    """A family supplies its part of the one route (target, rule, declared state, what derives
    from it, ...), not a route of its own: at most five of the engine's members, counted over
    every class between a learner of the candidate-set or bandit family and the engine
    (scikit-learn's generated metadata requests aside).  ``CorrectedLogistic``, a batch
    learner that borrows the route for ``partial_fit``, also declares a batch model's file:
    six, listed here so that a seventh is noticed."""
    from weaklabel._online import OnlineLinear
    from weaklabel.bandit._learners import _BanditLearner
    from weaklabel.partial._online import _OnlineCandidateLearner

    engine = set(vars(OnlineLinear)) - {"__module__", "__doc__", "__qualname__", "__abstractmethods__", "_abc_impl",
                                        "__init_subclass__", "__dict__", "__weakref__", "__firstlineno__",
                                        "__static_attributes__"}

    def overridden(cls):
        members = set()
        for k in cls.__mro__[:cls.__mro__.index(OnlineLinear)]:
            members |= {m for m in vars(k) if m in engine and not m.endswith("_request")}
        return sorted(members)

    learners = [cls for cls in _public_estimators().values() if issubclass(cls, OnlineLinear) and cls is not OnlineLinear]
    families = [cls for cls in learners if issubclass(cls, (_OnlineCandidateLearner, _BanditLearner))]
    assert len(families) == 12 and {cls.__name__ for cls in learners} - {cls.__name__ for cls in families} == {
        "CorrectedLogistic"}
    assert {cls.__name__: overridden(cls) for cls in families if len(overridden(cls)) > 5} == {}
    from weaklabel.noisy import CorrectedLogistic
    assert overridden(CorrectedLogistic) == ["_declared_state", "_encode_target", "_restored", "_rule",
                                             "_saved_scalars", "_state"]


def test_model_files_are_written_and_read_in_one_module():
    """No learner writes its own ``save`` / ``load``: the persistence module reads each class's
    declared state."""
    src = Path(weaklabel.__file__).parent
    own = []
    for path in src.rglob("*.py"):
        if path.name == "_persist.py":
            continue
        for cls in (n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)):
            own += [f"{path.name}:{cls.name}.{f.name}" for f in cls.body
                    if isinstance(f, ast.FunctionDef) and f.name in ("save", "load", "_save", "_load")]
    assert own == []
