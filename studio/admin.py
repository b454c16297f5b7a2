"""The Django admin (/admin/): users, groups, teams and their members, who a pipeline is shared with, storage
locations and their grants (to users, groups and teams; a team's page lists its grants too)."""
from django.contrib import admin

from studio.models import (ApiToken, LocationGrant, Pipeline, PipelineShare, SinkClaim, StorageLocation, Team,
                           TeamMembership, TeamShare)


class ShareInline(admin.TabularInline):
    model = PipelineShare
    extra = 0


class TeamShareInline(admin.TabularInline):
    model = TeamShare
    extra = 0


@admin.register(Pipeline)
class PipelineAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "owner", "team", "updated_at"]
    inlines = [ShareInline, TeamShareInline]
    fields = ["name", "owner", "team"]


class MembershipInline(admin.TabularInline):
    model = TeamMembership
    extra = 0


class TeamGrantInline(admin.TabularInline):
    """The storage locations granted to a team: its editors and up get them (``studio.locations``)."""

    model = LocationGrant
    fields = ["location", "can_write", "created_at"]
    readonly_fields = ["created_at"]
    extra = 0
    verbose_name = "storage location granted"
    verbose_name_plural = "storage locations granted (to its editors, operators and admins)"


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    """Teams and their members' roles (``studio.teams`` says what each role may do), and the storage locations
    granted to them."""

    list_display = ["id", "name", "description", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline, TeamGrantInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "name", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["key_hash", "prefix", "created_at", "last_used_at"]


class GrantInline(admin.TabularInline):
    model = LocationGrant
    extra = 0


@admin.register(StorageLocation)
class StorageLocationAdmin(admin.ModelAdmin):
    """Where pipelines may read and write (``studio.locations``); grants say who may."""

    list_display = ["name", "kind", "prefix", "shared", "all_users"]
    list_filter = ["kind", "shared", "all_users"]
    search_fields = ["name", "prefix"]
    inlines = [GrantInline]


@admin.register(SinkClaim)
class SinkClaimAdmin(admin.ModelAdmin):
    """Which pipeline owns which sink target; deleting a claim frees the target."""

    list_display = ["target", "pipeline", "node", "created_at"]
    search_fields = ["target"]
    readonly_fields = ["created_at"]
