"""Test cases and exactly-once proofs of a pipeline's versions."""
from django.apps import AppConfig


class TestcasesConfig(AppConfig):
    name = "studio.testcases"
    label = "testcases"
    verbose_name = "Test cases and exactly-once proofs"
