"""Non-preemptive scheduling (pipeline/ask/scheduling.py): each policy on hand-worked job lists, the
idle CPU, ties, and the inputs a model-written program may not pass."""

from __future__ import annotations

import pytest

from pipeline.ask.scheduling import avg_turnaround, avg_waiting, avg_weighted_turnaround, schedule_order

pytestmark = pytest.mark.timeout(30)

ARRIVALS, BURSTS = [0, 1, 2, 3], [8, 4, 9, 5]


def test_fcfs_runs_in_arrival_order():
    # finishes 8, 12, 21, 26; turnarounds 8, 11, 19, 23 (sum 61); waits 0, 7, 10, 18 (sum 35)
    assert schedule_order(ARRIVALS, BURSTS, "fcfs") == [1, 2, 3, 4]
    assert avg_turnaround(ARRIVALS, BURSTS, "fcfs") == 61 / 4
    assert avg_waiting(ARRIVALS, BURSTS, "fcfs") == 35 / 4
    assert avg_weighted_turnaround(ARRIVALS, BURSTS, "fcfs") == pytest.approx((8 / 8 + 11 / 4 + 19 / 9 + 23 / 5) / 4)


def test_sjf_takes_the_shortest_job_that_has_arrived():
    # P1 alone at 0 runs to 8; then P2 (4) to 12, P4 (5) to 17, P3 (9) to 26: turnarounds 8, 11, 24, 14
    assert schedule_order(ARRIVALS, BURSTS, "sjf") == [1, 2, 4, 3]
    assert avg_turnaround(ARRIVALS, BURSTS, "sjf") == 57 / 4


def test_hrrn_takes_the_highest_response_ratio():
    # at 8: P2 (7 + 4) / 4 = 2.75 leads; at 12: P3 (10 + 9) / 9 = 2.11, P4 (9 + 5) / 5 = 2.8 → P4
    assert schedule_order(ARRIVALS, BURSTS, "hrrn") == [1, 2, 4, 3]
    # P1 runs 0-10; at 10, P2 has waited 9: (9 + 5) / 5 = 2.8, P3 has just come: (0 + 2) / 2 = 1 → P2,
    # where SJF takes the shorter P3
    assert schedule_order([0, 1, 10], [10, 5, 2], "hrrn") == [1, 2, 3]
    assert schedule_order([0, 1, 10], [10, 5, 2], "sjf") == [1, 3, 2]


def test_an_idle_cpu_waits_for_the_next_arrival():
    # P1 0-2, idle until 10, P2 10-13: turnarounds 2 and 3
    assert avg_turnaround([0, 10], [2, 3], "fcfs") == 2.5


def test_ties_go_to_the_earlier_arrival_then_the_job_listed_first():
    assert schedule_order([0, 0, 0], [3, 3, 3], "sjf") == [1, 2, 3]
    assert schedule_order([0, 1, 1], [5, 2, 2], "sjf") == [1, 2, 3]


@pytest.mark.parametrize("arrivals, bursts, policy", [
    ([0, 1], [3], "fcfs"),  # lists of different lengths
    ([0, 1], [3, 0], "sjf"),  # a run time of 0
    ([0, -1], [3, 2], "fcfs"),  # a negative arrival
    ([0, 1], [3, 2], "rr"),  # not a policy here
    ("01", [3, 2], "fcfs"),  # not a list
    (list(range(101)), [1] * 101, "fcfs"),  # too many jobs
    ([0, True], [3, 2], "fcfs"),  # a bool is no number
])
def test_bad_inputs_are_refused(arrivals, bursts, policy):
    with pytest.raises(ValueError):
        schedule_order(arrivals, bursts, policy)
