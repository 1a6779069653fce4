"""Non-preemptive CPU scheduling, for the exam's average turnaround, weighted turnaround and waiting times
(a simulation a calculation program calls by name, like those of :mod:`pipeline.ask.simulations`).

Jobs are numbered 1..n in the order the question lists them; ``arrivals[i]`` and ``bursts[i]`` are job
i+1's arrival and run time. ``policy`` is ``"fcfs"`` (first come, first served), ``"sjf"`` (shortest job
first) or ``"hrrn"`` (highest response ratio next, ratio = (waiting + run) / run), all non-preemptive:
whenever the CPU is free it takes one of the jobs that have arrived (the next to arrive when none has)
and runs it to the end. Ties go to the earlier arrival, then the job listed first, which is how the
exam's tables are read. turnaround = finish - arrival; weighted turnaround = turnaround / run time;
waiting = turnaround - run time.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_JOBS = 100
POLICIES = ("fcfs", "sjf", "hrrn")


def _jobs(arrivals: object, bursts: object, policy: object) -> tuple[list[float], list[float], str]:
    for values, what in ((arrivals, "arrivals"), (bursts, "bursts")):
        if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= MAX_JOBS:
            raise ValueError(f"{what} must be a list of 1 to {MAX_JOBS} numbers")
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 for v in values):
            raise ValueError(f"{what} must hold numbers ≥ 0")
    if len(arrivals) != len(bursts):
        raise ValueError("arrivals and bursts must list the same jobs")
    if any(b <= 0 for b in bursts):
        raise ValueError("every run time must be > 0")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    return list(arrivals), list(bursts), policy


def _run(arrivals: Sequence[float], bursts: Sequence[float], policy: str) -> tuple[list[int], list[float]]:
    """(the jobs' indices in run order, each job's finish time)."""
    arrivals, bursts, policy = _jobs(arrivals, bursts, policy)
    waiting_jobs = set(range(len(arrivals)))
    order: list[int] = []
    finish = [0.0] * len(arrivals)
    clock = 0.0
    while waiting_jobs:
        ready = [i for i in waiting_jobs if arrivals[i] <= clock]
        if not ready:
            clock = min(arrivals[i] for i in waiting_jobs)
            continue
        if policy == "fcfs":
            job = min(ready, key=lambda i: (arrivals[i], i))
        elif policy == "sjf":
            job = min(ready, key=lambda i: (bursts[i], arrivals[i], i))
        else:
            job = min(ready, key=lambda i: (-(clock - arrivals[i] + bursts[i]) / bursts[i], arrivals[i], i))
        clock += bursts[job]
        finish[job] = clock
        order.append(job)
        waiting_jobs.remove(job)
    return order, finish


def schedule_order(arrivals: Sequence[float], bursts: Sequence[float], policy: str) -> list[int]:
    """The jobs' numbers (1-based, as listed) in the order they run."""
    return [i + 1 for i in _run(arrivals, bursts, policy)[0]]


def avg_turnaround(arrivals: Sequence[float], bursts: Sequence[float], policy: str) -> float:
    """Average of finish - arrival."""
    _, finish = _run(arrivals, bursts, policy)
    return sum(f - a for f, a in zip(finish, arrivals)) / len(finish)


def avg_weighted_turnaround(arrivals: Sequence[float], bursts: Sequence[float], policy: str) -> float:
    """Average of (finish - arrival) / run time."""
    _, finish = _run(arrivals, bursts, policy)
    return sum((f - a) / b for f, a, b in zip(finish, arrivals, bursts)) / len(finish)


def avg_waiting(arrivals: Sequence[float], bursts: Sequence[float], policy: str) -> float:
    """Average of finish - arrival - run time."""
    _, finish = _run(arrivals, bursts, policy)
    return sum(f - a - b for f, a, b in zip(finish, arrivals, bursts)) / len(finish)


SCHEDULING = {f.__name__: f for f in (schedule_order, avg_turnaround, avg_weighted_turnaround, avg_waiting)}
