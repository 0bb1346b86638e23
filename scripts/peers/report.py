"""The report of scripts/bench.py, not a command: the JSON summary's results per game and the printed tables."""

from __future__ import annotations

from typing import Any

from peers.workloads import PEER_WORKLOADS

#: The single-env peers timed with --compare, beside our self-play.
PEERS = tuple(PEER_WORKLOADS)


def summarise(
    labels: list[str],
    games: dict[str, dict[str, Any]],
    num_envs: list[int],
    pgx_num_envs: list[int],
    medians: dict[tuple[str, str], float],
) -> dict[str, dict]:
    """Return the per-game results of the JSON summary (rates rounded, ratios to 2 decimals).

    ``labels`` are the games timed, ``games`` bench.py's table of each game's name in every library, and
    ``medians`` the median rate of each (game label, workload name) timed.
    """
    results: dict[str, dict] = {}
    for label in labels:
        selfplay = medians[label, "selfplay"]
        entry: dict = {
            "selfplay_moves_per_s": round(selfplay),
            "vs_random_agent_steps_per_s": round(medians[label, "vs_random"]),
        }
        for peer in PEERS:
            if (label, peer) in medians:
                entry[f"{peer}_{games[label][peer]}_moves_per_s"] = round(medians[label, peer])
                entry[f"selfplay_vs_{peer}_ratio"] = round(selfplay / medians[label, peer], 2)
        vector: dict[str, dict] = {}
        for n in dict.fromkeys([*num_envs, *pgx_num_envs]):
            row = {}
            if (label, f"vector@{n}") in medians:
                moves = medians[label, f"vector@{n}"]
                row = {"selfplay_moves_per_s": round(moves), "vs_single_env_ratio": round(moves / selfplay, 2)}
                if (label, f"vector_vs_random@{n}") in medians:
                    row["vs_random_agent_moves_per_s"] = round(medians[label, f"vector_vs_random@{n}"])
            if (label, f"pgx@{n}") in medians:
                row["pgx_moves_per_s"] = round(medians[label, f"pgx@{n}"])
                if "selfplay_moves_per_s" in row:
                    row["vs_pgx_ratio"] = round(row["selfplay_moves_per_s"] / row["pgx_moves_per_s"], 2)
            if row:
                vector[str(n)] = row
        if vector:
            entry["vector"] = vector
        results[label] = entry
    return results


def print_tables(
    runs: dict[tuple[str, str], list[float]],
    medians: dict[tuple[str, str], float],
    results: dict[str, dict],
    agent_ms: dict[str, float],
    agents_summary: dict,
    memory: dict,
) -> None:
    """Print the human-readable tables: every workload, the vector table with ratios, agents, memory."""
    print(f"{'game':<16} {'workload':<24} {'median /s':>12} {'min /s':>12} {'max /s':>12}")
    for (label, name), values in runs.items():
        print(f"{label:<16} {name:<24} {medians[label, name]:>12,.0f} {min(values):>12,.0f} {max(values):>12,.0f}")
    for label, entry in results.items():
        for peer in PEERS:
            if f"selfplay_vs_{peer}_ratio" in entry:
                print(f"{label} single-env self-play vs {peer}: {entry[f'selfplay_vs_{peer}_ratio']}x")
    if any("vector" in entry for entry in results.values()):
        print(f"\n{'game':<16} {'envs':>6} {'ours moves/s':>14} {'vs random':>12} {'pgx moves/s':>13} {'ours/pgx':>9}")
        for label, entry in results.items():
            for n, row in entry.get("vector", {}).items():
                cells = [
                    f"{row[key]:,}" if key in row else "-"
                    for key in ("selfplay_moves_per_s", "vs_random_agent_moves_per_s", "pgx_moves_per_s")
                ]
                ratio = f"{row['vs_pgx_ratio']}x" if "vs_pgx_ratio" in row else "-"
                print(f"{label:<16} {n:>6} {cells[0]:>14} {cells[1]:>12} {cells[2]:>13} {ratio:>9}")
    if agent_ms:
        print(f"\n{'agent (tic-tac-toe, empty board)':<34} {'median ms':>10}")
        for name, ms in agent_ms.items():
            print(f"{name:<34} {ms:>10.2f}")
        for name in ("alphabeta", "mcts_1000"):
            if f"{name}_speedup_vs_openspiel" in agents_summary:
                print(f"{name} vs OpenSpiel: {agents_summary[f'{name}_speedup_vs_openspiel']}x faster")
    print("\nmemory (peak RSS, MB):")
    for key, value in memory.items():
        if isinstance(value, dict):
            for label, probe in value.items():
                detail = probe.get("error") or f"{probe['rss_mb']} (imports alone: {probe['imports_rss_mb']})"
                print(f"  {key} {label}: {detail}")
        else:
            print(f"  {key}: {value}")
