"""The Spark session a JobMaster creates: a local driver JVM compiles with its quick compiler only."""
from __future__ import annotations

import pytest

from engine.cluster.spark_session import DRIVER_JAVA_OPTIONS, LOCAL_DRIVER_JAVA_OPTIONS, _driver_jvm_conf


@pytest.mark.spark
def test_a_local_sessions_driver_jvm_runs_with_the_quick_compiler_only(spark_session):
    jvm = spark_session.sparkContext._jvm
    arguments = list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
    assert LOCAL_DRIVER_JAVA_OPTIONS in arguments


def test_given_driver_java_options_are_kept_after_the_quick_compiler_option():
    conf = _driver_jvm_conf("local[2]", {DRIVER_JAVA_OPTIONS: "-Dmine=1", "spark.other": "x"})
    assert conf == {DRIVER_JAVA_OPTIONS: f"{LOCAL_DRIVER_JAVA_OPTIONS} -Dmine=1", "spark.other": "x"}
    assert _driver_jvm_conf("local[*]", {}) == {DRIVER_JAVA_OPTIONS: LOCAL_DRIVER_JAVA_OPTIONS}


def test_a_cluster_sessions_driver_jvm_is_left_as_configured():
    assert _driver_jvm_conf("spark://master:7077", {"spark.other": "x"}) == {"spark.other": "x"}
