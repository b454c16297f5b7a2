"""Validation, plans and previews run in worker processes within a budget: one request never holds the others.

Timing is not asserted here (the figures are in ``make bench-budget``); what is asserted is
structural: the overrunning job was killed in its worker, the answer says where it stopped,
and other requests were served while it ran.
"""
import threading

import pytest

from studio.processes import budget
from tests.support import simple_pipeline, token_client, wait_until

COSTLY = "x + len(str([[{}] * 1000] * 99))"  # valid; its constant part takes the whole 50 ms folding budget


def costly_definition(nodes: int = 60) -> dict:
    """A valid pipeline whose expressions take ~50 ms of CPU each to check: seconds in all."""
    definition = simple_pipeline()
    definition["nodes"][1:2] = [{"id": f"m{index}", "type": "transform.map",
                                 "params": {"expression": COSTLY.format(index)}} for index in range(nodes)]
    chain = ["gen", *[f"m{index}" for index in range(nodes)], "out"]
    definition["edges"] = [{"id": f"e{index}", "from": a, "to": b} for index, (a, b) in enumerate(zip(chain, chain[1:]))]
    return definition


@pytest.fixture
def short_budgets(settings):
    settings.STUDIO_VALIDATION_BUDGET_S = 1.0
    settings.STUDIO_PREVIEW_BUDGET_S = 2.0


@pytest.mark.django_db(transaction=True)  # the hostile request runs in a thread of its own
def test_a_hostile_validate_is_stopped_at_its_budget_while_another_users_gets_are_served(
        short_budgets, user, other_user):
    hostile, bystander = token_client(user), token_client(other_user)
    kills_before = budget.pool("definitions").kills
    answer = {}

    def validate():
        answer["response"] = hostile.post("/api/pipelines/validate", {"definition": costly_definition()},
                                          format="json")

    validating = threading.Thread(target=validate)
    validating.start()
    served_while_validating = 0
    while validating.is_alive():
        response = bystander.get("/api/pipelines")
        assert response.status_code == 200
        served_while_validating += validating.is_alive()
    validating.join()

    body = answer["response"].json()
    assert answer["response"].status_code == 200 and body["valid"] is False
    [problem] = body["errors"]
    assert problem["node"].startswith("m") and problem["field"] == "params.expression"
    assert "validation exceeded its 1 s budget here" in problem["message"]
    assert budget.pool("definitions").kills == kills_before + 1  # its worker was killed, not waited for
    assert served_while_validating >= 3


@pytest.mark.django_db
def test_saving_planning_and_previewing_a_hostile_definition_answer_400_naming_the_node(short_budgets, api):
    for method, path, body in [("post", "/api/pipelines", {"name": "hostile", "definition": costly_definition()}),
                               ("post", "/api/plan", {"definition": costly_definition()}),
                               ("post", "/api/preview", {"definition": costly_definition()})]:
        response = getattr(api, method)(path, body, format="json")
        assert response.status_code == 400, (path, response.content)
        [problem] = response.json()["errors"]
        assert problem["node"].startswith("m") and "exceeded its" in problem["message"], path


@pytest.mark.django_db
def test_a_preview_that_overruns_its_budget_is_killed_not_waited_for(short_budgets, api):
    """One batch of a map that takes seconds: the in-process run cannot stop inside it (a preview
    overran its 10 s to 25 s that way); its worker is killed at the budget instead."""
    definition = simple_pipeline(count=None, expression="len(sorted(str([x] * 99_000) + str(x)))")
    kills_before = budget.pool("previews").kills
    response = api.post("/api/preview", {"definition": definition, "limit": 1000}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "CANCELED" and "the preview exceeded its 2 s budget" in body["failure"]
    assert budget.pool("previews").kills == kills_before + 1


@pytest.mark.django_db
def test_workers_are_reused_while_they_behave_and_replaced_after_a_kill(short_budgets):
    definitions = budget.pool("definitions")
    assert budget.validate_definition(simple_pipeline()) == []
    first = {worker.process.pid for worker in definitions._idle}
    assert budget.validate_definition(simple_pipeline(expression="x + 1")) == []
    assert {worker.process.pid for worker in definitions._idle} == first  # the same process again
    budget.validate_definition(costly_definition())  # killed at its budget
    assert budget.validate_definition(simple_pipeline(expression="x + 2")) == []
    assert budget.validate_definition(simple_pipeline(expression="y")) != []


def test_the_worker_limits_its_own_cpu_time_and_memory():
    """The backstop when the studio cannot kill: RLIMIT_CPU per job and RLIMIT_DATA."""
    import resource
    import subprocess
    import sys

    script = ("import resource; from studio.processes import budgeted_worker as w; w._limit_cpu(2); "
              "resource.setrlimit(resource.RLIMIT_DATA, (2**30, 2**30)); "
              "print(resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_DATA)[0]); "
              "b = bytearray(2**31)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    cpu_soft, data_soft = map(int, done.stdout.split())
    assert 2 <= cpu_soft <= 4 and data_soft == 2 ** 30
    assert "MemoryError" in done.stderr
    assert resource.getrlimit(resource.RLIMIT_CPU)[0] == resource.RLIM_INFINITY  # the studio itself is unlimited


@pytest.mark.django_db
def test_a_validation_given_less_cpu_than_wall_clock_is_not_killed(short_budgets):
    """A busy machine: the worker gets no CPU for twice the 1 s budget (it is stopped, as a starved process
    is), yet its job used no CPU of its budget and is answered, not killed as if hostile."""
    import os
    import signal

    definitions = budget.pool("definitions")
    assert budget.validate_definition(simple_pipeline()) == []
    kills_before = definitions.kills
    stopped = [worker.process.pid for worker in definitions._idle]
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    resume = threading.Timer(2 * 1.0, lambda: [os.kill(pid, signal.SIGCONT) for pid in stopped])
    resume.start()
    try:
        assert budget.validate_definition(simple_pipeline(expression="x + 3")) == []
    finally:
        resume.join()
    assert definitions.kills == kills_before


@pytest.mark.django_db
def test_after_a_kill_the_next_request_waits_for_the_replacement_instead_of_starting_another(
        short_budgets, monkeypatch):
    """Starting a worker is a second of CPU importing the engine: one start replaces one kill."""
    definitions = budget.pool("definitions")
    assert budget.validate_definition(simple_pipeline()) == []
    # a start still under way (a replacement an earlier test's kill began: slow on a loaded machine) would hand
    # the hostile job a worker started before the count below
    wait_until(lambda: definitions._starting == 0, 120, "the definitions pool's starts to end")
    definitions.close()  # no idle worker: the one the hostile job takes is started for it
    starts = []
    start = definitions._start
    monkeypatch.setattr(definitions, "_start", lambda: starts.append(1) or start())
    budget.validate_definition(costly_definition())  # killed at its budget
    assert budget.validate_definition(simple_pipeline(expression="x + 2")) == []
    assert len(starts) == 2  # the hostile job's worker, and the one that replaced it
