"""The tests mirror the library: at least 90% of its modules have a test file in the mirrored folder.

A module of ``gym_boardgames`` has its tests under ``tests/`` less the package's name, a module of ``agents``
under ``tests/agents/``: ``gym_boardgames/rules/connect.py`` -> ``tests/rules/test_connect.py``,
``agents/search/mcts.py`` -> ``tests/agents/search/test_mcts.py``, ``gym_boardgames/checks.py`` ->
``tests/test_checks.py``. A file ``test_NAME_MORE.py`` there counts too (``test_persistence_fuzz.py`` tests
``persistence``); a private module's underscore is dropped (``agents/_rng.py`` -> ``tests/agents/test_rng.py``).
A package's ``__init__.py`` is a module with code of its own (its tests: ``test_PACKAGE.py`` in the package's
mirrored folder), unless it is under 40 lines and only hands names on (a docstring, imports, assignments and a
lazy ``__getattr__``). The modules are those on disk when the tests run, so the check follows the library's moves.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gym_boardgames", "agents")
#: The share of library modules that must have a mirrored test file.
MIN_SHARE = 0.9


def only_hands_names_on(path: Path) -> bool:
    """Whether ``path`` is under 40 lines of docstring, imports, names and a lazy ``__getattr__``."""
    text = path.read_text(encoding="utf-8")
    if len(text.splitlines()) >= 40:
        return False
    for node in ast.parse(text, str(path)).body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
            continue
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            continue
        return False
    return True


def library_modules(root: Path = ROOT) -> list[Path]:
    """Every module of :data:`PACKAGES` under ``root``, less the ``__init__.py`` files that only hand names on."""
    return [
        path
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if not (path.name == "__init__.py" and only_hands_names_on(path))
    ]


def mirror(module: Path, root: Path = ROOT) -> tuple[Path, str]:
    """Return the folder where ``module``'s tests live and the name they start with (``test_NAME``)."""
    parts = module.relative_to(root).parts
    inside = parts[1:-1] if parts[0] == "gym_boardgames" else parts[:-1]
    name = parts[-2] if module.name == "__init__.py" else module.stem
    return root.joinpath("tests", *inside), f"test_{name.lstrip('_')}"


def mirrored_tests(module: Path, root: Path = ROOT) -> list[Path]:
    """The test files of ``module`` in its mirrored folder: ``test_NAME.py`` and ``test_NAME_*.py``."""
    folder, stem = mirror(module, root)
    return sorted(path for path in folder.glob(f"{stem}*.py") if path.stem == stem or path.stem.startswith(f"{stem}_"))


def test_a_module_is_mirrored_by_its_folder_under_tests(tmp_path: Path) -> None:
    for name in (
        "gym_boardgames/checks.py",
        "gym_boardgames/rules/connect.py",
        "agents/search/mcts.py",
        "agents/_rng.py",
        "agents/persistence.py",
        "agents/persistence_more.py",
        "agents/dots/__init__.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('"""A module."""\n\n\ndef f():\n    return 1\n', encoding="utf-8")
    tests = ("test_checks.py", "rules/test_connect.py", "agents/search/test_mcts.py", "agents/test_rng.py")
    for name in (
        *tests,
        "agents/test_persistence_fuzz.py",
        "agents/test_persistence_more.py",
        "agents/dots/test_dots.py",
    ):
        (tmp_path / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / name).touch()
    found = {
        str(module.relative_to(tmp_path)): [
            str(test.relative_to(tmp_path / "tests")) for test in mirrored_tests(module, tmp_path)
        ]
        for module in library_modules(tmp_path)
    }
    assert found == {
        "agents/_rng.py": ["agents/test_rng.py"],
        "agents/dots/__init__.py": ["agents/dots/test_dots.py"],
        "agents/persistence.py": ["agents/test_persistence_fuzz.py", "agents/test_persistence_more.py"],
        "agents/persistence_more.py": ["agents/test_persistence_more.py"],
        "agents/search/mcts.py": ["agents/search/test_mcts.py"],
        "gym_boardgames/checks.py": ["test_checks.py"],
        "gym_boardgames/rules/connect.py": ["rules/test_connect.py"],
    }


def test_an_init_that_only_hands_names_on_is_no_module_and_one_with_code_is(tmp_path: Path) -> None:
    names = tmp_path / "names.py"
    names.write_text('"""Doc."""\n\nfrom a import b\n\n__all__ = ["b"]\n\n\ndef __getattr__(name):\n    return name\n')
    code = tmp_path / "code.py"
    code.write_text('"""Doc."""\n\n\ndef serve():\n    return 1\n')
    long = tmp_path / "long.py"
    long.write_text('"""Doc."""\n' + "\n" * 40 + "from a import b\n")
    assert only_hands_names_on(names)
    assert not only_hands_names_on(code) and not only_hands_names_on(long)


def test_at_least_90_percent_of_library_modules_have_a_mirrored_test_file() -> None:
    modules = library_modules()
    missing = [module for module in modules if not mirrored_tests(module)]
    share = 1 - len(missing) / len(modules)
    listing = "\n".join(
        f"  {module.relative_to(ROOT)}: no {mirror(module)[0].relative_to(ROOT)}/{mirror(module)[1]}.py"
        for module in missing
    )
    assert share >= MIN_SHARE, (
        f"{len(modules) - len(missing)} of {len(modules)} library modules ({share:.0%}) have a mirrored test file, "
        f"under {MIN_SHARE:.0%}; without one:\n{listing}"
    )
