"""The Django admin (/admin/): users, groups, and who a pipeline is shared with."""
from django.contrib import admin

from studio.models import ApiToken, Pipeline, PipelineShare


class ShareInline(admin.TabularInline):
    model = PipelineShare
    extra = 0


@admin.register(Pipeline)
class PipelineAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "owner", "updated_at"]
    inlines = [ShareInline]
    fields = ["name", "owner"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["id", "user", "name", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["key_hash", "prefix", "created_at", "last_used_at"]
