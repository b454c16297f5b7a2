"""Connection profiles (tag "connections"): owned, shared, tested, named by nodes and resolved when a job is
built, and the topic browser over them -- as their owner, and as a hostile second user."""
from __future__ import annotations

import json

import pytest
from confluent_kafka import Producer
from django.contrib.auth.models import Group

from studio.connections.models import ConnectionProfile
from studio.locations import LocationsRefused, resolve_run_locations
from studio.models import Pipeline, PipelineVersion, Run

pytestmark = pytest.mark.django_db


def fields_of(response) -> dict[str, str]:
    """The messages of a 400 per field: DRF's ``fields``, or ``errors`` for rules past the schema."""
    body = response.json()
    found = {name: json.dumps(messages) for name, messages in body.get("fields", {}).items()}
    for error in body.get("errors", []):
        found[error["field"]] = found.get(error["field"], "") + error["message"]
    return found


def profile(api, **body) -> dict:
    response = api.post("/api/connections", {"kind": "kafka", "name": "orders", **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def kafka_grant(grant, user, kafka_cluster):
    return grant(user, f"kafka://{kafka_cluster.bootstrap}", kind="kafka")


@pytest.fixture
def orders_topic(kafka_cluster):
    """A topic with 30 JSON orders over 2 partitions (a fresh name per test: the cluster lives all session)."""
    import uuid

    topic = kafka_cluster.create_topic(f"orders-{uuid.uuid4().hex[:8]}", partitions=2)
    producer = Producer({"bootstrap.servers": kafka_cluster.bootstrap})
    for number in range(30):
        value = {"order": number, "user": f"u{number % 3}", "amount": number * 1.5, "lines": [number]}
        producer.produce(topic, json.dumps(value).encode(), key=f"u{number % 3}".encode(), partition=number % 2,
                         headers=[("source", b"shop")])
    assert producer.flush(10) == 0
    return topic


def test_a_profile_keeps_its_password_apart_encrypted_and_never_shows_it(api, user):
    body = profile(api, name="warehouse", kind="postgres", address="postgresql://app:s3cret@db.internal:5432/shop")
    assert body["address"] == "postgresql://app@db.internal:5432/shop" and body["has_password"] is True
    assert "s3cret" not in json.dumps(body) and "password" not in body
    stored = ConnectionProfile.objects.get(pk=body["id"])
    assert "s3cret" not in stored.secret and "s3cret" not in stored.address
    assert body["reference"] == "connection:warehouse" and body["mine"] is True and body["owner"] == "alice"
    assert body["granted"] is False and "not granted" in body["grant_message"]
    listed = api.get("/api/connections").json()
    assert "s3cret" not in json.dumps(listed) and [row["name"] for row in listed] == ["warehouse"]

    changed = api.patch(f"/api/connections/{body['id']}", {"password": ""}, format="json")
    assert changed.status_code == 200 and changed.json()["has_password"] is False
    # a partial update's answer has every field the schema requires: a profile of no team's says so (null)
    assert changed.json()["team"] is None and changed.json()["team_name"] is None


def test_bad_profiles_are_400s_naming_the_field(api):
    cases = [({"address": "broker:notaport"}, "address"), ({"address": "http://x:1/"}, "address"),
             ({"kind": "redis", "address": "postgresql://h:5432/d"}, "address"),
             ({"name": "../etc", "address": "h:9092"}, "name"), ({"kind": "ftp", "address": "h:1"}, "kind"),
             ({"address": "h:9092", "password": "x"}, "password"), ({"address": 9092}, "address")]
    for body, field in cases:
        response = api.post("/api/connections", {"name": "p", "kind": "kafka", **body}, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field in fields_of(response), (body, response.json())
    profile(api, address="h:9092")
    again = api.post("/api/connections", {"name": "orders", "kind": "kafka", "address": "h:9093"}, format="json")
    assert again.status_code == 400 and "already" in fields_of(again)["name"]


def test_test_connection_checks_grants_before_connecting_then_reaches_the_cluster(api, user, kafka_cluster,
                                                                                   kafka_grant, orders_topic):
    mine = profile(api, address=kafka_cluster.bootstrap)
    assert mine["granted"] is True
    result = api.post(f"/api/connections/{mine['id']}/test").json()
    assert result["ok"] is True and result["stage"] == "done", result
    assert "reached the Kafka cluster" in result["message"] and result["details"]["topics"] >= 1

    # an address outside the grants is never tried: no port scans through the studio
    elsewhere = profile(api, name="elsewhere", address="127.0.0.1:1")
    refused = api.post(f"/api/connections/{elsewhere['id']}/test").json()
    assert refused["ok"] is False and refused["stage"] == "grants" and "not tried" in refused["message"]

    unsaved = api.post("/api/connections/test", {"kind": "kafka", "address": kafka_cluster.bootstrap}, format="json")
    assert unsaved.status_code == 200 and unsaved.json()["ok"] is True


def test_test_connection_of_redis_and_postgres(api, user, grant, redis_server, postgres_dsn):
    grant(user, redis_server.url, kind="redis")
    grant(user, postgres_dsn, kind="postgres")
    redis = profile(api, name="cache", kind="redis", address=redis_server.url)
    result = api.post(f"/api/connections/{redis['id']}/test").json()
    assert result["ok"] is True and result["message"].startswith("Redis "), result
    database = profile(api, name="db", kind="postgres", address=postgres_dsn)
    result = api.post(f"/api/connections/{database['id']}/test").json()
    assert result["ok"] is True and result["message"].startswith("PostgreSQL "), result
    wrong = api.post("/api/connections/test", {"kind": "postgres", "address": postgres_dsn.rsplit("/", 1)[0] + "/nope",
                                               "password": "wrong"}, format="json").json()
    assert wrong["ok"] is False and wrong["stage"] in ("grants", "connect") and "wrong" not in wrong["message"]


def test_a_hostile_second_user_cannot_see_use_change_or_test_a_profile_not_shared_with_them(
        api, other_api, user, other_user, grant, kafka_cluster, kafka_grant, orders_topic):
    grant(other_user, f"kafka://{kafka_cluster.bootstrap}", kind="kafka")  # the same cluster is granted to bob
    mine = profile(api, address=kafka_cluster.bootstrap, password="")
    assert other_api.get("/api/connections").json() == []
    for method, path in [("get", ""), ("patch", ""), ("put", ""), ("delete", ""), ("post", "/test"),
                         ("get", "/shares"), ("post", "/shares")]:
        response = getattr(other_api, method)(f"/api/connections/{mine['id']}{path}", {}, format="json")
        assert response.status_code == 404, (method, path, response.status_code)
    # naming it in a node or in the topic browser names nothing, whether it exists or not
    for reference in ("connection:orders", "connection:alice/orders", "connection:alice/nothing"):
        response = other_api.get("/api/kafka/topics", {"bootstrap_servers": reference})
        assert response.status_code == 403 and "of yours or shared with you" in response.json()["detail"]
    definition = kafka_definition("connection:alice/orders", orders_topic)
    checked = other_api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()
    assert not checked["valid"]
    assert any(error["node"] == "in" and error["field"] == "params.bootstrap_servers"
               and "no connection profile 'alice/orders'" in error["message"] for error in checked["errors"])
    assert ConnectionProfile.objects.filter(pk=mine["id"]).exists()


def test_a_shared_profile_is_usable_but_only_its_owner_changes_or_shares_it(
        api, other_api, user, other_user, grant, kafka_cluster, kafka_grant, orders_topic):
    mine = profile(api, address=kafka_cluster.bootstrap)
    team = Group.objects.create(name="team")
    other_user.groups.add(team)
    shared = api.post(f"/api/connections/{mine['id']}/shares", {"group": "team"}, format="json")
    assert shared.status_code == 201, shared.content
    assert api.post(f"/api/connections/{mine['id']}/shares", {"group": "team"}, format="json").status_code == 409

    [seen] = other_api.get("/api/connections").json()
    assert seen["mine"] is False and seen["reference"] == "connection:alice/orders" and seen["shares"] == []
    # bob's grants do not cover the cluster: the profile does not carry alice's grants with it
    assert seen["granted"] is False
    assert other_api.post(f"/api/connections/{mine['id']}/test").json()["stage"] == "grants"
    assert other_api.get("/api/kafka/topics", {"bootstrap_servers": "connection:orders"}).status_code == 403
    grant(other_user, f"kafka://{kafka_cluster.bootstrap}", kind="kafka")
    assert other_api.post(f"/api/connections/{mine['id']}/test").json()["ok"] is True
    topics = other_api.get("/api/kafka/topics", {"bootstrap_servers": "connection:orders"})
    assert topics.status_code == 200 and orders_topic in [topic["topic"] for topic in topics.json()]

    for method, path, body in [("patch", "", {"address": "127.0.0.1:2"}), ("delete", "", None),
                               ("get", "/shares", None), ("post", "/shares", {"user": "bob"}),
                               ("delete", f"/shares/{shared.json()['id']}", None)]:
        response = getattr(other_api, method)(f"/api/connections/{mine['id']}{path}", body, format="json")
        assert response.status_code == 403 and "only its owner" in response.json()["detail"], (method, path)
    assert ConnectionProfile.objects.get(pk=mine["id"]).address == kafka_cluster.bootstrap

    api.delete(f"/api/connections/{mine['id']}/shares/{shared.json()['id']}")
    assert other_api.get(f"/api/connections/{mine['id']}").status_code == 404


def kafka_definition(bootstrap: str, topic: str) -> dict:
    return {"format": 1, "name": "from-kafka", "parallelism": 1,
            "nodes": [{"id": "in", "type": "source.kafka",
                       "params": {"bootstrap_servers": bootstrap, "topics": [topic], "bounded": True}},
                      {"id": "out", "type": "sink.collect", "params": {}}],
            "edges": [{"id": "e1", "from": "in", "to": "out"}]}


def test_a_node_names_a_profile_and_the_job_gets_its_address_checked_when_it_is_built(
        api, user, other_user, grant, kafka_cluster, kafka_grant, orders_topic):
    profile(api, address=kafka_cluster.bootstrap)
    definition = kafka_definition("connection:orders", orders_topic)
    assert api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()["valid"] is True
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=definition)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user)
    built = resolve_run_locations(run, definition)
    assert built["nodes"][0]["params"]["bootstrap_servers"] == kafka_cluster.bootstrap
    assert version.definition["nodes"][0]["params"]["bootstrap_servers"] == "connection:orders"  # stored as named

    # a grant revoked after saving counts when the job is built
    kafka_grant.delete()
    with pytest.raises(LocationsRefused, match="connection profile 'orders'.*not all in one cluster granted"):
        resolve_run_locations(run, definition)
    # a run started by someone the profile is not shared with gets nothing from it
    grant(other_user, f"kafka://{kafka_cluster.bootstrap}", kind="kafka")
    theirs = Run.objects.create(pipeline=pipeline, version=version, created_by=other_user)
    with pytest.raises(LocationsRefused, match="no connection profile 'orders' of yours or shared with you"):
        resolve_run_locations(theirs, definition)


def test_preview_reads_a_topic_through_a_profile(api, kafka_cluster, kafka_grant, orders_topic):
    profile(api, address=kafka_cluster.bootstrap)
    definition = kafka_definition("connection:orders", orders_topic)
    del definition["nodes"][0]["params"]["bounded"]  # the preview reads up to the partitions' ends anyway
    response = api.post("/api/preview", {"definition": definition, "limit": 5}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "FINISHED", body
    records = body["nodes"]["in"]["records"]
    assert len(records) == 5 and {"order", "user", "amount", "lines"} == set(records[0]["value"])


def test_topic_browser_lists_offsets_samples_and_infers_the_fields(api, kafka_cluster, kafka_grant, orders_topic):
    profile(api, address=kafka_cluster.bootstrap)
    topics = api.get("/api/kafka/topics", {"bootstrap_servers": "connection:orders"}).json()
    [topic] = [topic for topic in topics if topic["topic"] == orders_topic]
    assert topic["partitions"] == [{"partition": 0, "earliest": 0, "latest": 15},
                                   {"partition": 1, "earliest": 0, "latest": 15}] and topic["messages"] == 30

    sample = api.get("/api/kafka/sample", {"bootstrap_servers": kafka_cluster.bootstrap, "topic": orders_topic,
                                           "limit": 10})
    assert sample.status_code == 200, sample.content
    body = sample.json()
    assert len(body["messages"]) == 10 and body["messages"][0]["headers"] == {"source": "shop"}
    fields = {field["path"]: field for field in body["fields"]}
    assert fields["x['value']['user']"]["types"] == ["string"] and fields["x['value']['user']"]["present"] == 10
    assert fields["x['value']['amount']"]["types"] == ["number"]
    assert fields["x['value']['lines']"]["types"] == ["array"]
    assert {"x['key']", "x['offset']", "x['partition']", "x['timestamp']", "x['headers']['source']"} <= set(fields)
    values = api.get("/api/kafka/sample", {"bootstrap_servers": kafka_cluster.bootstrap, "topic": orders_topic,
                                           "emit": "value", "limit": 3}).json()
    assert {field["path"] for field in values["fields"]} == {"x['order']", "x['user']", "x['amount']", "x['lines']"}


def test_topic_browser_bad_input_is_4xx(api, kafka_cluster, kafka_grant):
    for query, status in [({}, 400), ({"bootstrap_servers": "127.0.0.1:1", "topic": "t"}, 403),
                          ({"bootstrap_servers": kafka_cluster.bootstrap, "topic": "../x"}, 400),
                          ({"bootstrap_servers": kafka_cluster.bootstrap, "topic": "t", "limit": "0"}, 400),
                          ({"bootstrap_servers": kafka_cluster.bootstrap, "topic": "t", "value_format": "avro"}, 400),
                          ({"bootstrap_servers": kafka_cluster.bootstrap, "topic": "t", "value_format": "csv"}, 400),
                          ({"bootstrap_servers": kafka_cluster.bootstrap, "topic": "t", "emit": "x"}, 400)]:
        response = api.get("/api/kafka/sample", query)
        assert response.status_code == status, (query, response.content)
    assert api.get("/api/kafka/topics", {"bootstrap_servers": "a:1,,b:2"}).status_code == 403
