"""Small measuring tools: percentiles, process memory, machine facts, file sizes."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def summary(seconds: Sequence[float], percentiles: Sequence[int] = (50, 95)) -> dict[str, float]:
    """The ``percentiles`` (p50 and p95 by default), mean, min and max of durations, in
    milliseconds."""
    if not seconds:
        return {"n": 0}
    values = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {
        "n": len(values),
        **{f"p{p}_ms": round(float(np.percentile(values, p)), 3) for p in percentiles},
        "mean_ms": round(float(values.mean()), 3),
        "min_ms": round(float(values.min()), 3),
        "max_ms": round(float(values.max()), 3),
    }


def memory_mb() -> dict[str, float]:
    """This process's resident set now (VmRSS) and at its peak so far (VmHWM), in MiB."""
    found: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key.lower() + "_mb"] = round(int(value.split()[0]) / 1024.0, 1)
    except OSError:
        pass
    return found


def vault_bytes(path: Path) -> dict[str, int]:
    """Size of the vault file and of its WAL (0 when absent)."""
    wal = path.with_name(path.name + "-wal")
    main = path.stat().st_size if path.exists() else 0
    wal_size = wal.stat().st_size if wal.exists() else 0
    return {"file_bytes": main, "wal_bytes": wal_size, "total_bytes": main + wal_size}


def load_average() -> list[float]:
    """1, 5 and 15 minute load averages: a busy machine explains noisy numbers."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def machine() -> dict[str, Any]:
    import numpy
    import onnxruntime
    import sqlcipher3

    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "numpy": numpy.__version__,
        "onnxruntime": onnxruntime.__version__,
        "sqlite": sqlcipher3.sqlite_version,
        "memory_total_mb": _mem_total_mb(),
        "load_average_at_start": load_average(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _mem_total_mb() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def answer_spec(probe: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """A probe process's main: the spec as JSON on stdin, the result as one JSON line out."""
    spec = json.loads(sys.stdin.read())
    json.dump(probe(spec), sys.stdout)
    sys.stdout.write("\n")
