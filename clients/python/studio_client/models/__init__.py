"""Contains all the data models used in inputs/outputs"""

from .action_enum import ActionEnum
from .alert_kind_enum import AlertKindEnum
from .alert_rule import AlertRule
from .alert_rule_request import AlertRuleRequest
from .attempt import Attempt
from .badge import Badge
from .blank_enum import BlankEnum
from .change import Change
from .change_counts import ChangeCounts
from .change_enum import ChangeEnum
from .changed_item import ChangedItem
from .changed_key import ChangedKey
from .checkpoint_config import CheckpointConfig
from .checkpoint_config_externalization import CheckpointConfigExternalization
from .checkpoint_config_mode_enum import CheckpointConfigModeEnum
from .checkpoint_config_settings import CheckpointConfigSettings
from .checkpoint_counts import CheckpointCounts
from .checkpoint_detail import CheckpointDetail
from .checkpoint_kind_enum import CheckpointKindEnum
from .checkpoint_overview import CheckpointOverview
from .checkpoint_row import CheckpointRow
from .checkpoint_status_enum import CheckpointStatusEnum
from .checkpoint_summary import CheckpointSummary
from .checkpoint_timeline import CheckpointTimeline
from .comparison import Comparison
from .connection_kind_enum import ConnectionKindEnum
from .connection_profile import ConnectionProfile
from .connection_profile_request import ConnectionProfileRequest
from .connection_profile_shares_item import ConnectionProfileSharesItem
from .connection_share import ConnectionShare
from .connection_share_request import ConnectionShareRequest
from .connection_test_request_request import ConnectionTestRequestRequest
from .connection_test_result import ConnectionTestResult
from .connection_test_result_details import ConnectionTestResultDetails
from .decision_request import DecisionRequest
from .definition import Definition
from .definition_checkpointing import DefinitionCheckpointing
from .definition_checkpointing_mode import DefinitionCheckpointingMode
from .definition_debloat import DefinitionDebloat
from .definition_edges_item import DefinitionEdgesItem
from .definition_edges_item_exchange import DefinitionEdgesItemExchange
from .definition_edges_item_expectations_item import DefinitionEdgesItemExpectationsItem
from .definition_edges_item_expectations_item_action import DefinitionEdgesItemExpectationsItemAction
from .definition_edges_item_partitioning import DefinitionEdgesItemPartitioning
from .definition_edges_item_side import DefinitionEdgesItemSide
from .definition_edges_item_ui import DefinitionEdgesItemUi
from .definition_error import DefinitionError
from .definition_latency_tracking import DefinitionLatencyTracking
from .definition_nodes_item import DefinitionNodesItem
from .definition_nodes_item_expectations_item import DefinitionNodesItemExpectationsItem
from .definition_nodes_item_expectations_item_action import DefinitionNodesItemExpectationsItemAction
from .definition_nodes_item_params import DefinitionNodesItemParams
from .definition_nodes_item_ui import DefinitionNodesItemUi
from .definition_restart import DefinitionRestart
from .definition_restart_strategy import DefinitionRestartStrategy
from .definition_tests_item import DefinitionTestsItem
from .definition_tests_item_assertions_item import DefinitionTestsItemAssertionsItem
from .definition_tests_item_assertions_item_expect import DefinitionTestsItemAssertionsItemExpect
from .definition_tests_item_assertions_item_order import DefinitionTestsItemAssertionsItemOrder
from .definition_tests_item_inputs import DefinitionTestsItemInputs
from .definition_tests_item_inputs_additional_property import DefinitionTestsItemInputsAdditionalProperty
from .definition_tests_item_mocks import DefinitionTestsItemMocks
from .definition_tests_item_mocks_additional_property import DefinitionTestsItemMocksAdditionalProperty
from .definition_tests_item_mocks_additional_property_answers_item import (
    DefinitionTestsItemMocksAdditionalPropertyAnswersItem,
)
from .definition_tests_item_modes_item import DefinitionTestsItemModesItem
from .definition_ui import DefinitionUi
from .delivery import Delivery
from .delivery_status_enum import DeliveryStatusEnum
from .diff import Diff
from .disk_usage import DiskUsage
from .draft_diff_request import DraftDiffRequest
from .draft_diff_request_from import DraftDiffRequestFrom
from .draft_diff_request_to import DraftDiffRequestTo
from .ended_by import EndedBy
from .environment import Environment
from .environment_parameters import EnvironmentParameters
from .environment_request import EnvironmentRequest
from .environment_request_parameters import EnvironmentRequestParameters
from .environment_run import EnvironmentRun
from .environment_run_parameters import EnvironmentRunParameters
from .error import Error
from .event import Event
from .event_data import EventData
from .event_time_enum import EventTimeEnum
from .exceptions import Exceptions
from .expectation_counts import ExpectationCounts
from .expectation_counts_rules import ExpectationCountsRules
from .expectation_rule_count import ExpectationRuleCount
from .file_entry import FileEntry
from .file_entry_kind_enum import FileEntryKindEnum
from .file_listing import FileListing
from .file_place import FilePlace
from .file_preview import FilePreview
from .file_preview_columns_item import FilePreviewColumnsItem
from .file_preview_kind_enum import FilePreviewKindEnum
from .file_preview_rows_item import FilePreviewRowsItem
from .folded_checkpoints import FoldedCheckpoints
from .format_enum import FormatEnum
from .git_binding import GitBinding
from .git_binding_request import GitBindingRequest
from .grant import Grant
from .grant_request import GrantRequest
from .health import Health
from .health_degraded import HealthDegraded
from .health_degraded_dependencies import HealthDegradedDependencies
from .health_degraded_status_enum import HealthDegradedStatusEnum
from .health_dependencies import HealthDependencies
from .health_status_enum import HealthStatusEnum
from .how_enum import HowEnum
from .import_request import ImportRequest
from .inferred_field import InferredField
from .isolation_request import IsolationRequest
from .items_diff import ItemsDiff
from .kafka_message import KafkaMessage
from .kafka_message_headers import KafkaMessageHeaders
from .kafka_partition import KafkaPartition
from .kafka_sample import KafkaSample
from .kafka_sample_retrieve_emit import KafkaSampleRetrieveEmit
from .kafka_sample_retrieve_value_format import KafkaSampleRetrieveValueFormat
from .kafka_topic import KafkaTopic
from .key_group_size import KeyGroupSize
from .last_checkpoint import LastCheckpoint
from .latency_figures import LatencyFigures
from .latest_checkpoints import LatestCheckpoints
from .latest_run import LatestRun
from .location import Location
from .location_kind_enum import LocationKindEnum
from .location_request import LocationRequest
from .login_request import LoginRequest
from .member import Member
from .member_request import MemberRequest
from .metrics import Metrics
from .metrics_expectations import MetricsExpectations
from .metrics_nodes import MetricsNodes
from .metrics_sample import MetricsSample
from .metrics_sample_vertices import MetricsSampleVertices
from .metrics_vertices import MetricsVertices
from .new_shadow_request import NewShadowRequest
from .new_token import NewToken
from .node_lag import NodeLag
from .node_metrics import NodeMetrics
from .node_metrics_latency_sources import NodeMetricsLatencySources
from .node_split_lag import NodeSplitLag
from .notification import Notification
from .operator import Operator
from .operator_output_ports_item import OperatorOutputPortsItem
from .operator_params_schema import OperatorParamsSchema
from .operator_state import OperatorState
from .operator_state_list_states import OperatorStateListStates
from .output_page import OutputPage
from .paginated_run_summary_list import PaginatedRunSummaryList
from .parameter_change import ParameterChange
from .patched_alert_rule_request import PatchedAlertRuleRequest
from .patched_connection_profile_request import PatchedConnectionProfileRequest
from .patched_environment_request import PatchedEnvironmentRequest
from .patched_environment_request_parameters import PatchedEnvironmentRequestParameters
from .patched_schedule_request import PatchedScheduleRequest
from .patched_secret_request import PatchedSecretRequest
from .pipeline import Pipeline
from .pipeline_definition import PipelineDefinition
from .pipeline_file import PipelineFile
from .pipeline_list import PipelineList
from .pipeline_permissions_enum import PipelinePermissionsEnum
from .pipeline_role_enum import PipelineRoleEnum
from .pipeline_team_request import PipelineTeamRequest
from .pipeline_write_request import PipelineWriteRequest
from .pipelines_export_retrieve_response_200 import PipelinesExportRetrieveResponse200
from .placement_enum import PlacementEnum
from .plan import Plan
from .plan_counts import PlanCounts
from .plan_job_edges_item import PlanJobEdgesItem
from .plan_job_vertex import PlanJobVertex
from .plan_node_regions import PlanNodeRegions
from .plan_region import PlanRegion
from .plan_region_vertices import PlanRegionVertices
from .plan_request_request import PlanRequestRequest
from .preview import Preview
from .preview_node import PreviewNode
from .preview_nodes import PreviewNodes
from .preview_request_request import PreviewRequestRequest
from .problem import Problem
from .promoted_version import PromotedVersion
from .promotion import Promotion
from .promotion_diff import PromotionDiff
from .promotion_status_enum import PromotionStatusEnum
from .promotions_list_status import PromotionsListStatus
from .proof import Proof
from .proof_request_request import ProofRequestRequest
from .proof_result import ProofResult
from .request_id import RequestId
from .rescale import Rescale
from .rescale_nodes import RescaleNodes
from .rescale_request_request import RescaleRequestRequest
from .rescale_request_request_nodes import RescaleRequestRequestNodes
from .rescale_status_enum import RescaleStatusEnum
from .resolution_enum import ResolutionEnum
from .resolve_request import ResolveRequest
from .restart import Restart
from .restore_from_request import RestoreFromRequest
from .restore_point import RestorePoint
from .restore_point_kind_enum import RestorePointKindEnum
from .restored_checkpoint import RestoredCheckpoint
from .restored_from import RestoredFrom
from .role_request import RoleRequest
from .rollback_request import RollbackRequest
from .run import Run
from .run_collected import RunCollected
from .run_definition import RunDefinition
from .run_environment import RunEnvironment
from .run_environment_parameters import RunEnvironmentParameters
from .run_start_mode_enum import RunStartModeEnum
from .run_start_request import RunStartRequest
from .run_status_enum import RunStatusEnum
from .run_status_value_enum import RunStatusValueEnum
from .run_summary import RunSummary
from .runs_checkpoints_state_operators_diff_retrieve_change import RunsCheckpointsStateOperatorsDiffRetrieveChange
from .runs_checkpoints_state_operators_export_retrieve_as import RunsCheckpointsStateOperatorsExportRetrieveAs
from .runs_checkpoints_timeline_retrieve_resolution import RunsCheckpointsTimelineRetrieveResolution
from .runs_shadows_outputs_retrieve_side import RunsShadowsOutputsRetrieveSide
from .savepoint_request import SavepointRequest
from .savepoint_status_enum import SavepointStatusEnum
from .savepoint_trigger_enum import SavepointTriggerEnum
from .savepoint_trigger_request import SavepointTriggerRequest
from .schedule import Schedule
from .schedule_request import ScheduleRequest
from .secret import Secret
from .secret_request import SecretRequest
from .session_use import SessionUse
from .settings_diff import SettingsDiff
from .shadow import Shadow
from .shadow_promote_request import ShadowPromoteRequest
from .shadow_sinks_item import ShadowSinksItem
from .shadow_status_enum import ShadowStatusEnum
from .share import Share
from .share_permissions_enum import SharePermissionsEnum
from .share_request import ShareRequest
from .side_enum import SideEnum
from .sink_counts import SinkCounts
from .sink_diff import SinkDiff
from .sink_samples import SinkSamples
from .snapshot_enum import SnapshotEnum
from .snapshot_state import SnapshotState
from .split_lag import SplitLag
from .stage_enum import StageEnum
from .state_compatibility import StateCompatibility
from .state_diff import StateDiff
from .state_enum import StateEnum
from .state_page import StatePage
from .state_row import StateRow
from .state_sizes import StateSizes
from .statistic import Statistic
from .status_change import StatusChange
from .steps import Steps
from .stop_request import StopRequest
from .subtask_checkpoint import SubtaskCheckpoint
from .subtask_latency import SubtaskLatency
from .subtask_latency_sources import SubtaskLatencySources
from .subtask_metrics import SubtaskMetrics
from .subtask_stats import SubtaskStats
from .suite_run import SuiteRun
from .suite_run_counts import SuiteRunCounts
from .suite_run_list import SuiteRunList
from .suite_run_list_counts import SuiteRunListCounts
from .suite_run_list_parameters import SuiteRunListParameters
from .suite_run_parameters import SuiteRunParameters
from .suite_run_request_request import SuiteRunRequestRequest
from .suite_run_request_request_definition import SuiteRunRequestRequestDefinition
from .suite_run_results_item import SuiteRunResultsItem
from .take_enum import TakeEnum
from .tap import Tap
from .tap_request import TapRequest
from .task_exception import TaskException
from .team import Team
from .team_location import TeamLocation
from .team_request import TeamRequest
from .team_role_enum import TeamRoleEnum
from .team_share import TeamShare
from .team_share_request import TeamShareRequest
from .team_share_role_enum import TeamShareRoleEnum
from .timeline_bucket import TimelineBucket
from .token import Token
from .token_request import TokenRequest
from .unread import Unread
from .uploaded_file import UploadedFile
from .user import User
from .validate_request import ValidateRequest
from .validate_request_definition import ValidateRequestDefinition
from .validation_result import ValidationResult
from .verdict import Verdict
from .verdict_enum import VerdictEnum
from .version import Version
from .version_detail import VersionDetail
from .version_detail_definition import VersionDetailDefinition
from .version_promote_request import VersionPromoteRequest
from .vertex_checkpoint import VertexCheckpoint
from .vertex_metrics import VertexMetrics
from .visible_latency import VisibleLatency

__all__ = (
    "ActionEnum",
    "AlertKindEnum",
    "AlertRule",
    "AlertRuleRequest",
    "Attempt",
    "Badge",
    "BlankEnum",
    "Change",
    "ChangeCounts",
    "ChangedItem",
    "ChangedKey",
    "ChangeEnum",
    "CheckpointConfig",
    "CheckpointConfigExternalization",
    "CheckpointConfigModeEnum",
    "CheckpointConfigSettings",
    "CheckpointCounts",
    "CheckpointDetail",
    "CheckpointKindEnum",
    "CheckpointOverview",
    "CheckpointRow",
    "CheckpointStatusEnum",
    "CheckpointSummary",
    "CheckpointTimeline",
    "Comparison",
    "ConnectionKindEnum",
    "ConnectionProfile",
    "ConnectionProfileRequest",
    "ConnectionProfileSharesItem",
    "ConnectionShare",
    "ConnectionShareRequest",
    "ConnectionTestRequestRequest",
    "ConnectionTestResult",
    "ConnectionTestResultDetails",
    "DecisionRequest",
    "Definition",
    "DefinitionCheckpointing",
    "DefinitionCheckpointingMode",
    "DefinitionDebloat",
    "DefinitionEdgesItem",
    "DefinitionEdgesItemExchange",
    "DefinitionEdgesItemExpectationsItem",
    "DefinitionEdgesItemExpectationsItemAction",
    "DefinitionEdgesItemPartitioning",
    "DefinitionEdgesItemSide",
    "DefinitionEdgesItemUi",
    "DefinitionError",
    "DefinitionLatencyTracking",
    "DefinitionNodesItem",
    "DefinitionNodesItemExpectationsItem",
    "DefinitionNodesItemExpectationsItemAction",
    "DefinitionNodesItemParams",
    "DefinitionNodesItemUi",
    "DefinitionRestart",
    "DefinitionRestartStrategy",
    "DefinitionTestsItem",
    "DefinitionTestsItemAssertionsItem",
    "DefinitionTestsItemAssertionsItemExpect",
    "DefinitionTestsItemAssertionsItemOrder",
    "DefinitionTestsItemInputs",
    "DefinitionTestsItemInputsAdditionalProperty",
    "DefinitionTestsItemMocks",
    "DefinitionTestsItemMocksAdditionalProperty",
    "DefinitionTestsItemMocksAdditionalPropertyAnswersItem",
    "DefinitionTestsItemModesItem",
    "DefinitionUi",
    "Delivery",
    "DeliveryStatusEnum",
    "Diff",
    "DiskUsage",
    "DraftDiffRequest",
    "DraftDiffRequestFrom",
    "DraftDiffRequestTo",
    "EndedBy",
    "Environment",
    "EnvironmentParameters",
    "EnvironmentRequest",
    "EnvironmentRequestParameters",
    "EnvironmentRun",
    "EnvironmentRunParameters",
    "Error",
    "Event",
    "EventData",
    "EventTimeEnum",
    "Exceptions",
    "ExpectationCounts",
    "ExpectationCountsRules",
    "ExpectationRuleCount",
    "FileEntry",
    "FileEntryKindEnum",
    "FileListing",
    "FilePlace",
    "FilePreview",
    "FilePreviewColumnsItem",
    "FilePreviewKindEnum",
    "FilePreviewRowsItem",
    "FoldedCheckpoints",
    "FormatEnum",
    "GitBinding",
    "GitBindingRequest",
    "Grant",
    "GrantRequest",
    "Health",
    "HealthDegraded",
    "HealthDegradedDependencies",
    "HealthDegradedStatusEnum",
    "HealthDependencies",
    "HealthStatusEnum",
    "HowEnum",
    "ImportRequest",
    "InferredField",
    "IsolationRequest",
    "ItemsDiff",
    "KafkaMessage",
    "KafkaMessageHeaders",
    "KafkaPartition",
    "KafkaSample",
    "KafkaSampleRetrieveEmit",
    "KafkaSampleRetrieveValueFormat",
    "KafkaTopic",
    "KeyGroupSize",
    "LastCheckpoint",
    "LatencyFigures",
    "LatestCheckpoints",
    "LatestRun",
    "Location",
    "LocationKindEnum",
    "LocationRequest",
    "LoginRequest",
    "Member",
    "MemberRequest",
    "Metrics",
    "MetricsExpectations",
    "MetricsNodes",
    "MetricsSample",
    "MetricsSampleVertices",
    "MetricsVertices",
    "NewShadowRequest",
    "NewToken",
    "NodeLag",
    "NodeMetrics",
    "NodeMetricsLatencySources",
    "NodeSplitLag",
    "Notification",
    "Operator",
    "OperatorOutputPortsItem",
    "OperatorParamsSchema",
    "OperatorState",
    "OperatorStateListStates",
    "OutputPage",
    "PaginatedRunSummaryList",
    "ParameterChange",
    "PatchedAlertRuleRequest",
    "PatchedConnectionProfileRequest",
    "PatchedEnvironmentRequest",
    "PatchedEnvironmentRequestParameters",
    "PatchedScheduleRequest",
    "PatchedSecretRequest",
    "Pipeline",
    "PipelineDefinition",
    "PipelineFile",
    "PipelineList",
    "PipelinePermissionsEnum",
    "PipelineRoleEnum",
    "PipelinesExportRetrieveResponse200",
    "PipelineTeamRequest",
    "PipelineWriteRequest",
    "PlacementEnum",
    "Plan",
    "PlanCounts",
    "PlanJobEdgesItem",
    "PlanJobVertex",
    "PlanNodeRegions",
    "PlanRegion",
    "PlanRegionVertices",
    "PlanRequestRequest",
    "Preview",
    "PreviewNode",
    "PreviewNodes",
    "PreviewRequestRequest",
    "Problem",
    "PromotedVersion",
    "Promotion",
    "PromotionDiff",
    "PromotionsListStatus",
    "PromotionStatusEnum",
    "Proof",
    "ProofRequestRequest",
    "ProofResult",
    "RequestId",
    "Rescale",
    "RescaleNodes",
    "RescaleRequestRequest",
    "RescaleRequestRequestNodes",
    "RescaleStatusEnum",
    "ResolutionEnum",
    "ResolveRequest",
    "Restart",
    "RestoredCheckpoint",
    "RestoredFrom",
    "RestoreFromRequest",
    "RestorePoint",
    "RestorePointKindEnum",
    "RoleRequest",
    "RollbackRequest",
    "Run",
    "RunCollected",
    "RunDefinition",
    "RunEnvironment",
    "RunEnvironmentParameters",
    "RunsCheckpointsStateOperatorsDiffRetrieveChange",
    "RunsCheckpointsStateOperatorsExportRetrieveAs",
    "RunsCheckpointsTimelineRetrieveResolution",
    "RunsShadowsOutputsRetrieveSide",
    "RunStartModeEnum",
    "RunStartRequest",
    "RunStatusEnum",
    "RunStatusValueEnum",
    "RunSummary",
    "SavepointRequest",
    "SavepointStatusEnum",
    "SavepointTriggerEnum",
    "SavepointTriggerRequest",
    "Schedule",
    "ScheduleRequest",
    "Secret",
    "SecretRequest",
    "SessionUse",
    "SettingsDiff",
    "Shadow",
    "ShadowPromoteRequest",
    "ShadowSinksItem",
    "ShadowStatusEnum",
    "Share",
    "SharePermissionsEnum",
    "ShareRequest",
    "SideEnum",
    "SinkCounts",
    "SinkDiff",
    "SinkSamples",
    "SnapshotEnum",
    "SnapshotState",
    "SplitLag",
    "StageEnum",
    "StateCompatibility",
    "StateDiff",
    "StateEnum",
    "StatePage",
    "StateRow",
    "StateSizes",
    "Statistic",
    "StatusChange",
    "Steps",
    "StopRequest",
    "SubtaskCheckpoint",
    "SubtaskLatency",
    "SubtaskLatencySources",
    "SubtaskMetrics",
    "SubtaskStats",
    "SuiteRun",
    "SuiteRunCounts",
    "SuiteRunList",
    "SuiteRunListCounts",
    "SuiteRunListParameters",
    "SuiteRunParameters",
    "SuiteRunRequestRequest",
    "SuiteRunRequestRequestDefinition",
    "SuiteRunResultsItem",
    "TakeEnum",
    "Tap",
    "TapRequest",
    "TaskException",
    "Team",
    "TeamLocation",
    "TeamRequest",
    "TeamRoleEnum",
    "TeamShare",
    "TeamShareRequest",
    "TeamShareRoleEnum",
    "TimelineBucket",
    "Token",
    "TokenRequest",
    "Unread",
    "UploadedFile",
    "User",
    "ValidateRequest",
    "ValidateRequestDefinition",
    "ValidationResult",
    "Verdict",
    "VerdictEnum",
    "Version",
    "VersionDetail",
    "VersionDetailDefinition",
    "VersionPromoteRequest",
    "VertexCheckpoint",
    "VertexMetrics",
    "VisibleLatency",
)
