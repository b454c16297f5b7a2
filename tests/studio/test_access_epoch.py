"""Tokens kept per web process never outlive the access they stood for (``studio.access_epoch``)."""
import subprocess
import sys

import pytest
from rest_framework.test import APIClient

from studio import access_epoch
from studio.models import ApiToken
from studio.request_redis import RequestRedis


@pytest.fixture
def token(user):
    token, key = ApiToken.issue(user, "script")
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert script.get("/api/auth/me").status_code == 200  # looked up once: kept from now on
    return token, script


def delete_behind_the_orms_back(token: ApiToken) -> None:
    """What this process sees when another web process deleted the token: the row is gone,
    no signal ran here."""
    ApiToken.objects.filter(pk=token.pk)._raw_delete(ApiToken.objects.db)


def test_a_token_deleted_by_another_process_stops_working_at_the_next_request(token, settings):
    token, script = token
    delete_behind_the_orms_back(token)
    # the other process's commit moves the epoch in Redis
    subprocess.run([sys.executable, "-c", "import redis, sys; redis.Redis.from_url(sys.argv[1]).incr(sys.argv[2])",
                    settings.REDIS_URL, access_epoch.KEY], check=True)
    answer = script.get("/api/auth/me")
    assert answer.status_code == 401 and answer.json()["detail"] == "Invalid or revoked token."


def test_a_token_deleted_in_this_process_stops_working_before_its_transaction_commits(token):
    token, script = token
    token.delete()  # inside the test's transaction: no commit, so no epoch move either
    assert script.get("/api/auth/me").status_code == 401


def test_a_deactivated_user_is_refused_at_the_next_request(token, user):
    _, script = token
    user.is_active = False
    user.save()
    assert script.get("/api/auth/me").status_code == 401


def test_without_redis_nothing_kept_is_trusted(token, monkeypatch):
    token, script = token
    monkeypatch.setattr(access_epoch, "current", lambda: None)  # Redis does not answer
    delete_behind_the_orms_back(token)
    assert script.get("/api/auth/me").status_code == 401


def test_an_unreachable_redis_is_asked_again_only_after_a_pause(monkeypatch, settings):
    calls = []

    class DeadRedis:
        def get(self, key):
            calls.append(key)
            raise access_epoch.redis.ConnectionError("refused")

    client = RequestRedis()
    monkeypatch.setattr(client, "client_even_if_paused", lambda: DeadRedis())
    monkeypatch.setattr(access_epoch, "_redis", client)
    assert [access_epoch.current() for _ in range(5)] == [None] * 5
    assert len(calls) == 1  # the four after the failure did not wait on Redis


def test_kept_answers_belong_to_their_epoch_and_expire(monkeypatch):
    cache = access_epoch.EpochCache(maximum=2)
    cache.put("a", 7, "answer")
    assert cache.get("a", 7) == "answer"
    assert cache.get("a", 8) is None and cache.get("a", None) is None
    cache.put("b", 7, "b")
    cache.put("c", 7, "c")  # full: the oldest goes
    assert cache.get("a", 7) is None and cache.get("c", 7) == "c"
    now = access_epoch.time.monotonic()
    monkeypatch.setattr(access_epoch.time, "monotonic", lambda: now + access_epoch.EpochCache.MAX_AGE_S + 1)
    assert cache.get("c", 7) is None
