"""Elastic executors' decision (``engine.cluster.elastic.scale``), a pure function of the demand, the
registered executors and how long each has been idle; and the ticks that apply it.

The real thing, a standalone master growing and shrinking a session, is
``test_elastic_standalone.py``.
"""
import pytest

from engine.cluster.elastic import ElasticExecutors, ElasticSettings, Scaling, scale
from engine.cluster.session_cluster import SlotPool

LIMITS = {"minimum": 1, "maximum": 4, "grace_s": 10.0}


def test_the_demand_within_the_minimum_and_the_maximum_is_the_target():
    assert scale(0, {}, now=0, **LIMITS) == Scaling(1)
    assert scale(2, {"1": 0.0}, now=0, **LIMITS) == Scaling(2), "a run waits for 2 slots: grow"
    assert scale(9, {"1": None}, now=0, **LIMITS) == Scaling(4), "never above the maximum"
    assert scale(0, {}, now=0, minimum=0, maximum=4, grace_s=10) == Scaling(0)


def test_an_idle_executor_above_the_demand_is_released_only_after_the_grace_period():
    executors = {"1": None, "2": 95.0}  # 2 idle since 95
    assert scale(1, executors, now=100, **LIMITS) == Scaling(2), "idle 5 s: kept (the total stays)"
    assert scale(1, executors, now=105, **LIMITS) == Scaling(1, ("2",)), "idle 10 s: released"


def test_a_busy_executor_is_never_released_whatever_the_demand():
    executors = {"1": None, "2": None, "3": 0.0}
    assert scale(0, executors, now=1000, **LIMITS) == Scaling(2, ("3",))


def test_never_below_the_minimum_and_the_longest_idle_go_first():
    executors = {"a": 50.0, "b": 10.0, "c": 30.0, "d": None}
    assert scale(0, executors, now=100, minimum=2, maximum=8, grace_s=10) == Scaling(2, ("b", "c"))
    assert scale(3, executors, now=100, minimum=1, maximum=8, grace_s=10) == Scaling(3, ("b",))


def test_settings_out_of_order_are_refused_naming_the_figures():
    with pytest.raises(ValueError, match="minimum 3 and maximum 2"):
        ElasticSettings(minimum=3, maximum=2)
    with pytest.raises(ValueError, match="grace_s >= 0"):
        ElasticSettings(grace_s=-1)


class Cluster:
    """A cluster manager's answers, as ``SparkExecutors`` gives them: executors start when asked for."""

    def __init__(self, registered=("1",)):
        self.registered = list(registered)
        self.running: set[str] = set()
        self.asked: list[int] = []
        self.killed: list[str] = []

    def active(self):
        return list(self.registered)

    def busy(self, executor):
        return executor in self.running

    def slots(self):
        return len(self.registered)

    def request_total(self, total):
        self.asked.append(total)

    def kill_idle(self, executors):
        gone = [executor for executor in executors if executor not in self.running]
        self.registered = [executor for executor in self.registered if executor not in gone]
        self.killed += gone
        return gone


def test_the_pools_demand_grows_the_executors_and_their_idleness_shrinks_them_back():
    pool, cluster, now = SlotPool(lambda: elastic.slots), Cluster(), [0.0]
    elastic = ElasticExecutors(cluster, pool.demand, ElasticSettings(minimum=1, maximum=4, grace_s=10),
                               clock=lambda: now[0])
    elastic.tick()
    assert (pool.total, cluster.asked) == (1, [1])
    pool.wait_for("run-a", 2)  # a region of 2 slots does not fit in 1
    elastic.tick()
    assert cluster.asked == [1, 2] and pool.available_to("run-a") == 1, "asked for; not there yet"
    cluster.registered.append("2")
    elastic.tick()
    assert pool.available_to("run-a") == 2, "its executors are registered: the gang may start"
    pool.take("run-a", 2)
    cluster.running |= {"1", "2"}
    now[0] = 100
    elastic.tick()
    assert cluster.killed == [] and elastic.usage() == {"executors": 2, "executors_target": 2, "executors_min": 1,
                                                         "executors_max": 4}
    pool.leave("run-a")  # the run ended
    cluster.running.clear()
    now[0] = 101
    elastic.tick()
    assert cluster.killed == [], "idle since 101: within the grace period"
    now[0] = 111
    elastic.tick()
    assert (cluster.killed, cluster.asked[-1], pool.total) == (["1"], 1, 1)


def test_an_executor_that_turned_busy_before_the_kill_is_kept():
    cluster = Cluster(registered=("1", "2"))
    now = [0.0]
    elastic = ElasticExecutors(cluster, lambda: 0, ElasticSettings(minimum=1, maximum=4, grace_s=0),
                               clock=lambda: now[0])
    original = cluster.kill_idle

    def a_slot_lands_first(executors):
        cluster.running |= set(executors)  # Spark launched a task on it between the look and the kill
        return original(executors)

    cluster.kill_idle = a_slot_lands_first
    elastic.tick()
    assert cluster.registered == ["1", "2"] and elastic.usage()["executors"] == 2
