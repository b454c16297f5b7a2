"""Addresses and ports are settings: each listener binds and advertises what its host says.

Before, the control channel and the slots' data channels bound 0.0.0.0 at any port and
advertised 127.0.0.1 (the control channel) or whatever Spark guessed (the data channels),
so a cluster behind a firewall or NAT could not be configured. Each setting is checked on
the listener that reads it; the Spark test proves the driver side end to end, and
``tests/multihost`` proves the worker side across real network namespaces.
"""
import socket

import pytest

from engine.api import Spark, job_master_for
from engine.cluster.addresses import (ANY_PORT, AddressSettingError, control_endpoint, data_endpoint, parse_ports,
                                      spark_driver_conf)
from engine.cluster.control import ControlServer
from engine.runtime.io.port_range import bind_listener
from engine.runtime.io.tcp_channel import TcpNetwork
from tests.support import simple_pipeline


def free_range(size: int) -> range:
    """``size`` consecutive ports free right now on 127.0.0.1 (probed by binding them)."""
    for start in range(42000, 60000, size):
        probes = []
        try:
            for port in range(start, start + size):
                probe = socket.socket()
                probes.append(probe)
                probe.bind(("127.0.0.1", port))
            return range(start, start + size)
        except OSError:
            continue
        finally:
            for probe in probes:
                probe.close()
    raise AssertionError("no free port range")


def noop(*_args):
    return None


@pytest.mark.parametrize("text, expected", [("", ANY_PORT), ("0", ANY_PORT), ("41000", range(41000, 41001)),
                                            (" 41000-41099 ", range(41000, 41100))])
def test_port_settings_are_a_port_or_an_inclusive_range(text, expected):
    assert parse_ports(text, "ENGINE_DATA_PORTS") == expected


@pytest.mark.parametrize("text", ["abc", "41000-", "41099-41000", "0-10", "70000"])
def test_a_bad_port_setting_names_the_variable_and_its_value(text):
    with pytest.raises(AddressSettingError, match=f"ENGINE_DATA_PORTS={text!r}"):
        parse_ports(text, "ENGINE_DATA_PORTS")


def test_control_channel_defaults_fit_one_machine():
    endpoint = control_endpoint({})
    assert (endpoint.bind_host, endpoint.advertised_host, endpoint.ports) == ("0.0.0.0", "127.0.0.1", ANY_PORT)


def test_control_channel_advertises_the_spark_driver_host_unless_told_otherwise():
    assert control_endpoint({"SPARK_DRIVER_HOST": "driver.internal"}).advertised_host == "driver.internal"
    endpoint = control_endpoint({"SPARK_DRIVER_HOST": "driver.internal", "ENGINE_CONTROL_ADVERTISED_HOST": "10.0.0.5",
                                 "ENGINE_CONTROL_BIND_HOST": "10.0.0.5", "ENGINE_CONTROL_PORTS": "41000-41009"})
    assert (endpoint.bind_host, endpoint.advertised_host, endpoint.ports) == ("10.0.0.5", "10.0.0.5",
                                                                               range(41000, 41010))


def test_a_bad_host_setting_names_the_variable():
    with pytest.raises(AddressSettingError, match="ENGINE_CONTROL_BIND_HOST='10.0.0.5 10.0.0.6'"):
        control_endpoint({"ENGINE_CONTROL_BIND_HOST": "10.0.0.5 10.0.0.6"})


def test_data_channels_leave_the_advertised_host_to_spark_unless_the_worker_host_sets_it():
    assert data_endpoint({}).advertised_host is None
    endpoint = data_endpoint({"ENGINE_DATA_BIND_HOST": "10.1.0.2", "ENGINE_DATA_ADVERTISED_HOST": "worker-1",
                              "ENGINE_DATA_PORTS": "42000-42015"})
    assert (endpoint.bind_host, endpoint.advertised_host, endpoint.ports) == ("10.1.0.2", "worker-1",
                                                                               range(42000, 42016))


def test_spark_driver_addresses_and_ports_are_settings():
    assert spark_driver_conf({}) == {"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"}
    conf = spark_driver_conf({"SPARK_DRIVER_BIND_ADDRESS": "0.0.0.0", "SPARK_DRIVER_HOST": "studio",
                              "SPARK_DRIVER_PORT": "7078", "SPARK_BLOCK_MANAGER_PORT": "7079"})
    assert conf == {"spark.driver.bindAddress": "0.0.0.0", "spark.driver.host": "studio",
                    "spark.driver.port": "7078", "spark.blockManager.port": "7079"}
    with pytest.raises(AddressSettingError, match="SPARK_DRIVER_PORT='7078-7080': Spark takes one port"):
        spark_driver_conf({"SPARK_DRIVER_PORT": "7078-7080"})


def test_a_listener_takes_the_first_free_port_of_its_range_and_says_when_none_is_left():
    ports = free_range(2)
    first = bind_listener("127.0.0.1", ports)
    second = bind_listener("127.0.0.1", ports)
    try:
        assert {first.getsockname()[1], second.getsockname()[1]} == set(ports)
        with pytest.raises(AddressSettingError, match=f"ENGINE_DATA_PORTS: no free port in "
                                                      f"{ports[0]}-{ports[-1]} on 127.0.0.1"):
            bind_listener("127.0.0.1", ports, setting="ENGINE_DATA_PORTS")
    finally:
        first.close()
        second.close()


def test_binding_an_address_of_another_host_fails_at_once_naming_the_setting():
    with pytest.raises(AddressSettingError, match="ENGINE_CONTROL_PORTS"):
        bind_listener("192.0.2.1", range(41000, 41100), setting="ENGINE_CONTROL_PORTS")


def test_the_control_server_binds_and_advertises_its_endpoint(monkeypatch):
    ports = free_range(4)
    monkeypatch.setenv("ENGINE_CONTROL_BIND_HOST", "127.0.0.1")
    monkeypatch.setenv("ENGINE_CONTROL_ADVERTISED_HOST", "driver.example")
    monkeypatch.setenv("ENGINE_CONTROL_PORTS", f"{ports[0]}-{ports[-1]}")
    server = ControlServer(noop, noop, noop)
    try:
        host, port = server._listener.getsockname()
        assert host == "127.0.0.1" and port in ports
        assert server.advertised_address == ("driver.example", port)
    finally:
        server.close()


def test_a_slots_data_channels_bind_and_advertise_its_worker_hosts_settings():
    ports = free_range(4)
    network = TcpNetwork(0, [[("a", 0)], [("b", 0)]], bind_host="127.0.0.1", advertised_host="worker-1",
                         ports=ports)
    try:
        host, port = network._server.getsockname()
        assert host == "127.0.0.1" and port in ports
        assert network.peer_info()["host"] == "worker-1" and network.peer_info()["port"] == port
    finally:
        network.close()


def test_a_slot_reads_the_data_settings_of_the_host_it_runs_on(monkeypatch):
    from engine.cluster.spark_slot import SlotPayload, _tcp_network
    from engine.plan.job_graph import build_job_graph
    from engine.spec import normalise_definition

    definition = normalise_definition({**simple_pipeline(10, parallelism=2),
                                       "edges": [{"id": "e1", "from": "gen", "to": "double",
                                                  "partitioning": "rebalance"},
                                                 {"id": "e2", "from": "double", "to": "out"}]})
    slots = [[("gen", 0), ("double", 0)], [("gen", 1), ("double", 1)]]
    ports = free_range(4)
    monkeypatch.setenv("ENGINE_DATA_BIND_HOST", "127.0.0.1")
    monkeypatch.setenv("ENGINE_DATA_ADVERTISED_HOST", "worker-2")
    monkeypatch.setenv("ENGINE_DATA_PORTS", f"{ports[0]}-{ports[-1]}")
    payload = SlotPayload(definition=definition, slots_tasks=slots, control_address=("127.0.0.1", 1), config={})
    network = _tcp_network(build_job_graph(definition), payload, 1, None)
    try:
        assert network._server.getsockname()[0] == "127.0.0.1"
        assert network.peer_info()["host"] == "worker-2" and network.peer_info()["port"] in ports
    finally:
        network.close()


@pytest.mark.spark
def test_on_spark_the_slots_reach_the_driver_at_its_configured_control_address(spark_session, tmp_path,
                                                                               monkeypatch):
    """The driver binds 127.0.0.1 in a fixed range and advertises 127.0.0.1 by that setting;
    a p=2 job whose slots register there finishes."""
    ports = free_range(8)
    monkeypatch.setenv("ENGINE_CONTROL_BIND_HOST", "127.0.0.1")
    monkeypatch.setenv("ENGINE_CONTROL_ADVERTISED_HOST", "127.0.0.1")
    monkeypatch.setenv("ENGINE_CONTROL_PORTS", f"{ports[0]}-{ports[-1]}")
    bound = []

    def on_event(event):
        if event.get("type") == "status" and event.get("status") == "RUNNING":
            bound.append(job_master.deployer._server._listener.getsockname())

    job_master = job_master_for(simple_pipeline(200, parallelism=2), Spark(session=spark_session, advertised_host=None),
                                checkpoint_dir=str(tmp_path / "checkpoints"), on_event=on_event)
    result = job_master.start(120).wait(120)
    assert result.status == "FINISHED", result.failure
    assert sorted(result.collected["out"]) == [x * 2 for x in range(200)]
    assert len(bound) == 1 and bound[0][0] == "127.0.0.1" and bound[0][1] in ports


def test_control_connections_give_up_on_an_unreachable_peer():
    """A partition must not leave driver and slot waiting for the kernel's retransmissions
    (15 minutes): keepalive while idle, a user timeout while data is unacknowledged."""
    from engine.cluster.control import DEAD_PEER_TIMEOUT_S, FramedConnection

    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    server, _ = listener.accept()
    try:
        connection = FramedConnection(client)
        assert client.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert client.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == DEAD_PEER_TIMEOUT_S * 1000
        idle, interval, count = (client.getsockopt(socket.IPPROTO_TCP, option) for option in
                                 (socket.TCP_KEEPIDLE, socket.TCP_KEEPINTVL, socket.TCP_KEEPCNT))
        assert idle + interval * count <= DEAD_PEER_TIMEOUT_S
        connection.close()
    finally:
        server.close()
        listener.close()
