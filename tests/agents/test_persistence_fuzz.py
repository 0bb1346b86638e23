"""A seeded fuzz of every saved-file loader; only SavedFileError, each call in bounded work, under 1 GB.

Real saved files (a tic-tac-toe and a ConnectN TD file, a Dots and Boxes layer table, a layered Q agent, a
float32 weights file, an AlphaZero model) are truncated, bit-flipped, overwritten, rebuilt with hostile header
values and hostile arrays, or replaced by random bytes, random JSON and header bombs, and every loader reads
every result. Each call may run at most ``CALL_LINES`` Python lines (counted, so a busy machine changes
nothing). The loop runs in a child process whose address space is capped at its size after the imports plus
1 GiB, so any allocation over 1 GB fails the test (as a MemoryError, which is not a SavedFileError).

Run by hand for a longer search: ``python tests/agents/test_persistence_fuzz.py DIR SEED ROUNDS``.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.lib.format as npy_format
import pytest

from agents.alphazero.agent import AlphaZeroAgent
from agents.alphazero.config import NetConfig
from agents.alphazero.encoding import encoder_for
from agents.dots import LayeredValueAgent, LayerTable, RandomBot, solve_layers
from agents.factory import make_agent
from agents.persistence import HEADER, ArraySpec, SavedFileError, load_npz, save_npz
from agents.tabular.td import TDAgent
from gym_boardgames.rules import ConnectN, TicTacToe
from gym_boardgames.rules.dots import DotsAndBoxes

ROOT = Path(__file__).resolve().parents[2]
#: The most Python lines one loader call may run, counted in the child (tests/work_budget.py), not timed. The
#: busiest call of the seeded run takes about 85,000 (a layered Q agent's table); a loader that trusted a hostile
#: size and looped over it would run without end.
CALL_LINES = 1_000_000
HEADROOM = 1 << 30  # the most a loader may allocate, beyond what the process holds after its imports

# Values a hostile header puts where a size, a flag or a name belongs.
HOSTILE = [
    10**6,
    10**15,
    -1,
    0,
    2**64,
    10**99,
    True,
    None,
    1.5,
    1e308,
    -1e308,
    "3",
    "",
    [],
    {},
    [1000, 1000, 4, True],
    [10**6, 10**6, 4, True],
    [64, 64, 64, False],
    [4, 4, 4, False],
    [3, 3, 3],
    "x" * 10_000,
    [[[[[[[[[[[[]]]]]]]]]]]],
]
DTYPES = [np.float64, np.float32, np.int8, np.uint64, np.int64, np.bool_, np.complex128, "<U5", "S3", "<f2", ">f8"]


def weight_schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
    hidden = meta.get("hidden")
    if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= 1024:
        raise ValueError(f"'hidden' must be an integer in 1..1024, got {hidden!r}")
    return {
        "w1": ArraySpec((9, hidden), np.float32, finite=True),
        "b1": ArraySpec((hidden,), np.float32, finite=True),
    }


def loaders(path: Path) -> dict[str, Callable[[], Any]]:
    """Every loader of the package, reading ``path``."""
    return {
        "TDAgent.load": lambda: TDAgent.load(path),
        "TDAgent.load(game)": lambda: TDAgent.load(path, TicTacToe()),
        "make_agent(td:)": lambda: make_agent(f"td:{path}"),
        "LayerTable.load": lambda: LayerTable.load(path),
        "LayeredValueAgent.load": lambda: LayeredValueAgent.load(path, seed=0),
        "load_npz(weights)": lambda: load_npz(
            path, format="test.weights", versions={1}, schema=weight_schema, allow_extra=False
        ),
        "load_npz(fixed)": lambda: load_npz(
            path, format="gym_boardgames.td", versions={1}, schema={"values": ArraySpec((2, None), np.float64)}
        ),
        "AlphaZeroAgent.load": lambda: AlphaZeroAgent.load(path),
        "make_agent(alphazero:)": lambda: make_agent(f"alphazero:{path}:2", game=TicTacToe()),
    }


def real_files(directory: Path) -> dict[str, bytes]:
    """Save one real file of every kind and return their bytes."""
    files = {}
    TDAgent(TicTacToe(), seed=0).save(directory / "td_ttt.npz")
    TDAgent(ConnectN(2, 3, 2, gravity=True), seed=0).save(directory / "td_connect.npz")
    game = DotsAndBoxes(1, 2)
    solve_layers(game).save(directory / "layers.npz")
    agent = LayeredValueAgent(lr=0.5, explore=0.2, seed=0)
    agent.train(game, RandomBot(seed=1), 5)
    agent.save(directory / "layered_q.npz")
    rng = np.random.default_rng(0)
    weights = {"w1": rng.standard_normal((9, 8)).astype(np.float32), "b1": np.zeros(8, np.float32)}
    save_npz(directory / "weights.npz", weights, format="test.weights", version=1, meta={"hidden": 8})
    encoder = encoder_for(TicTacToe())
    net = NetConfig(*encoder.shape, encoder.num_actions, channels=4, blocks=1, value_hidden=8)
    params = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in net.param_shapes().items()}
    for name in params:
        if name.endswith("running_var"):
            params[name] = np.abs(params[name]) + 0.5
    AlphaZeroAgent(TicTacToe(), net, params).save(directory / "alphazero.npz")
    for path in sorted(directory.iterdir()):
        files[path.name] = path.read_bytes()
    return files


def npy(shape: tuple[int, ...], dtype: Any, data: bytes) -> bytes:
    out = io.BytesIO()
    header = {"descr": npy_format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    npy_format.write_array_header_1_0(out, header)
    return out.getvalue() + data


def zipped(members: dict[str, bytes], rng: np.random.Generator) -> bytes:
    out = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if rng.random() < 0.7 else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def random_json(rng: np.random.Generator, depth: int = 0) -> Any:
    kind = int(rng.integers(8 if depth < 4 else 5))
    if kind == 0:
        return HOSTILE[int(rng.integers(len(HOSTILE)))]
    if kind == 1:
        return int(rng.integers(-(2**62), 2**62))
    if kind == 2:
        return float(rng.standard_normal() * 10 ** int(rng.integers(-5, 300)))
    if kind == 3:
        return "".join(chr(int(c)) for c in rng.integers(32, 0x2FF, size=int(rng.integers(12))))
    if kind == 4:
        return bool(rng.integers(2))
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(int(rng.integers(4)))]
    keys = ["format", "version", "meta", "data", "game", "class", "config", "rows", "cols", "q", "steps", "hidden"]
    return {keys[int(rng.integers(len(keys)))]: random_json(rng, depth + 1) for _ in range(int(rng.integers(5)))}


def hostile_leaf(value: Any, rng: np.random.Generator) -> Any:
    """Replace one leaf of a JSON value by a hostile one."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = list(value)[int(rng.integers(len(value)))]
        return {**value, key: hostile_leaf(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = int(rng.integers(len(value)))
        return [*value[:i], hostile_leaf(value[i], rng), *value[i + 1 :]]
    return HOSTILE[int(rng.integers(len(HOSTILE)))]


def npz_members(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def mutate(files: dict[str, bytes], npz: dict[str, dict[str, np.ndarray]], rng: np.random.Generator) -> bytes:
    """Return the bytes of one hostile file."""
    name = sorted(files)[int(rng.integers(len(files)))]
    data = files[name]
    kind = int(rng.integers(10))
    if kind == 0:  # truncated
        return data[: int(rng.integers(len(data)))]
    if kind == 1:  # bit flips
        raw = bytearray(data)
        for _ in range(int(rng.integers(1, 9))):
            raw[int(rng.integers(len(raw)))] ^= 1 << int(rng.integers(8))
        return bytes(raw)
    if kind == 2:  # a span overwritten with random bytes
        raw = bytearray(data)
        start = int(rng.integers(len(raw)))
        span = rng.integers(256, size=min(len(raw) - start, int(rng.integers(1, 64))), dtype=np.uint8)
        raw[start : start + len(span)] = span.tobytes()
        return bytes(raw)
    if kind == 3:  # random bytes, sometimes behind a real signature
        prefix = [b"", b"PK\x03\x04", b"PK\x05\x06", b"\x93NUMPY", b"{"][int(rng.integers(5))]
        return prefix + rng.integers(256, size=int(rng.integers(2000)), dtype=np.uint8).tobytes()
    if kind == 4:  # random JSON, as a file or as an .npz header, sometimes with a plausible format and version
        document = random_json(rng)
        if rng.random() < 0.5:
            document = {"format": "gym_boardgames.td", "version": 1, "meta": document}
        text = json.dumps(document) if rng.random() < 0.9 else "[" * 50_000
        return text.encode() if rng.random() < 0.5 else save_members({HEADER: np.array(text)}, rng)
    if kind == 5:  # hostile JSON numbers and nesting in an .npz header
        number = ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000, "[" * 100_000][int(rng.integers(6))]
        text = f'{{"format": "gym_boardgames.td", "version": 1, "meta": {{"q": {number}}}}}'
        return save_members({HEADER: np.array(text)}, rng)
    npz_name = sorted(npz)[int(rng.integers(len(npz)))]
    members = dict(npz[npz_name])
    header = json.loads(str(members[HEADER]))
    if kind == 6:  # a hostile value somewhere in the header
        members[HEADER] = np.array(json.dumps(hostile_leaf(header, rng)))
        return save_members(members, rng)
    if kind == 7:  # a hostile array: another dtype, shape or content
        arrays = [n for n in members if n != HEADER]
        target = arrays[int(rng.integers(len(arrays)))]
        choice = int(rng.integers(4))
        if choice == 0:
            members[target] = members[target].astype(DTYPES[int(rng.integers(len(DTYPES)))])
        elif choice == 1:
            members[target] = members[target].reshape(-1)[: int(rng.integers(members[target].size + 1))]
        elif choice == 2 and members[target].dtype.kind == "f":
            members[target] = members[target].copy()
            members[target].reshape(-1)[int(rng.integers(members[target].size))] = [np.nan, np.inf, -7.0, 1e300][
                int(rng.integers(4))
            ]
        else:
            del members[target]
        return save_members(members, rng)
    # Header bombs: an array (or the header) whose .npy header claims a huge shape.
    raw = {name + ".npy": npy_bytes(array) for name, array in members.items()}
    target = sorted(raw)[int(rng.integers(len(raw)))]
    dims = int(rng.integers(0, 3))
    shape = tuple(int(10 ** rng.integers(0, 16)) for _ in range(dims))
    dtype = DTYPES[int(rng.integers(len(DTYPES)))] if not target.startswith(HEADER) else "<U100000000"
    payload = rng.integers(256, size=int(rng.integers(200)), dtype=np.uint8).tobytes()
    if kind == 9:  # many members, or a declared size that disagrees with the data
        raw.update({f"x{i}.npy": b"" for i in range(int(rng.integers(1000, 1100)))})
    raw[target] = npy(shape, dtype, payload)
    return zipped(raw, rng)


def npy_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def save_members(members: dict[str, np.ndarray], rng: np.random.Generator) -> bytes:
    out = io.BytesIO()
    (np.savez_compressed if rng.random() < 0.5 else np.savez)(out, **members)
    return out.getvalue()


def fuzz(directory: Path, seed: int, rounds: int, work_budget: Any) -> dict[str, Any]:
    """Throw ``rounds`` hostile files at every loader; return the failures and the call that ran the most lines.

    ``work_budget`` is the module tests/work_budget.py: it counts each call's Python lines and stops the call one
    line past ``CALL_LINES``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "real").mkdir(exist_ok=True)
    files = real_files(directory / "real")
    npz = {name: npz_members(data) for name, data in files.items() if name.endswith(".npz")}
    rng = np.random.default_rng(seed)
    target = directory / "hostile.npz"
    failures: list[str] = []
    busiest = (0, "")
    loaded = 0
    for round_ in range(rounds):
        data = mutate(files, npz, rng)
        target.write_bytes(data)
        for name, load in loaders(target).items():
            try:
                with work_budget.bounded(max_lines=CALL_LINES) as work:
                    try:
                        load()
                        loaded += 1
                    except SavedFileError as exc:
                        if not str(exc).startswith(f"{target}: "):
                            failures.append(f"round {round_} {name}: message does not start with the file: {exc}")
                    except Exception as exc:  # noqa: BLE001  (anything else is what the fuzz looks for)
                        failures.append(f"round {round_} {name}: {type(exc).__name__}: {str(exc)[:200]}")
            except (work_budget.WorkBudgetExceeded, AssertionError) as exc:  # over CALL_LINES
                failures.append(f"round {round_} {name}: {exc}")
                continue
            if work.lines > busiest[0]:
                busiest = (work.lines, f"round {round_} {name}")
    return {"failures": failures[:20], "count": len(failures), "busiest": busiest, "loaded": loaded}


def cap_address_space() -> None:
    """Allow this process at most ``HEADROOM`` bytes of address space beyond what it holds now."""
    import resource

    with open("/proc/self/status") as status:
        vm_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    limit = vm_kb * 1024 + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="caps the address space through /proc and rlimit")
def test_every_loader_survives_hostile_files(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.run(
        [sys.executable, __file__, str(tmp_path), "13", "120"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a hang guard only: a loop in a loader stops at CALL_LINES, whatever the machine's load
        check=False,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.splitlines()[-1])
    assert report["count"] == 0, "\n".join(report["failures"])
    assert report["busiest"][0] <= CALL_LINES


def test_the_fuzz_itself_loads_the_unmutated_files(tmp_path):
    # Guards the harness: the real files load, so the mutations start from files that get past every check.
    files = real_files(tmp_path)
    assert TDAgent.load(tmp_path / "td_ttt.npz").game == TicTacToe()
    assert TDAgent.load(tmp_path / "td_connect.npz").game == ConnectN(2, 3, 2, gravity=True)
    assert LayerTable.load(tmp_path / "layers.npz").rows == 1
    assert LayeredValueAgent.load(tmp_path / "layered_q.npz").games_trained == 5
    assert load_npz(tmp_path / "weights.npz", format="test.weights", versions={1}, schema=weight_schema).meta
    assert AlphaZeroAgent.load(tmp_path / "alphazero.npz").config.channels == 4
    assert len(files) == 6


def load_work_budget() -> Any:
    """tests/work_budget.py as a module (this file runs as a script in the child, outside pytest's fixtures)."""
    spec = importlib.util.spec_from_file_location("work_budget", ROOT / "tests" / "work_budget.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    cap_address_space()
    outcome = fuzz(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), load_work_budget())
    print(json.dumps(outcome))
