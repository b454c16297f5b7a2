"""The JobMaster's own rules, on a deployer whose capacity the test decides."""
from __future__ import annotations

from engine.api import normalise_definition
from engine.cluster.job_master import JobMaster
from engine.cluster.local import ThreadDeployer
from tests.support import simple_pipeline


class ScarceDeployer(ThreadDeployer):
    """Threads, but the cluster offers ``slots`` slots for the first ``scarce_calls`` looks."""

    def __init__(self, slots: int, scarce_calls: int):
        super().__init__()
        self.slots, self.scarce_calls, self.looks = slots, scarce_calls, 0

    def capacity(self) -> int | None:
        self.looks += 1
        return self.slots if self.looks <= self.scarce_calls else None


def job_master(deployer, tmp_path, wait_s: float) -> JobMaster:
    definition = simple_pipeline(count=50, parallelism=2)
    definition["edges"][0]["partitioning"] = "rebalance"  # one region of two slots
    definition = normalise_definition(definition)
    return JobMaster(definition, deployer, checkpoint_dir=str(tmp_path), capacity_wait_s=wait_s)


def test_a_region_larger_than_the_cluster_fails_the_job_naming_it(tmp_path):
    events = []
    master = job_master(ScarceDeployer(slots=1, scarce_calls=10**9), tmp_path, wait_s=0.3)
    master._on_event = events.append
    result = master.run(timeout=30)
    assert result.status == "FAILED"
    assert result.failure == ("region r0 needs 2 slots at once, but the cluster offers 1: "
                              "lower the parallelism or add cores")
    assert [e for e in events if e["type"] == "region"] == [
        {"type": "region", "event": "waiting", "region": "r0", "slots": 2, "capacity": 1}]


def test_a_region_waits_for_capacity_and_runs_once_it_is_back(tmp_path):
    deployer = ScarceDeployer(slots=1, scarce_calls=3)
    result = job_master(deployer, tmp_path, wait_s=60).run(timeout=60)
    assert result.status == "FINISHED", result.failure
    assert sorted(result.collected["out"]) == [2 * x for x in range(50)]
    assert deployer.looks > 3
