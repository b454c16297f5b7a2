from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GitBinding")


@_attrs_define
class GitBinding:
    """
    Attributes:
        id (int):
        pipeline (int):
        repository (str): A bare repository's path in a location granted to you for writing, or an https address.
        synced_commit (str):
        synced_version (int | None):
        conflict (str):
        last_error (str):
        created_at (datetime.datetime):
        branch (str | Unset):  Default: 'main'.
        path (str | Unset): The file in the repository (default: <pipeline name>.pipeline.yaml).
    """

    id: int
    pipeline: int
    repository: str
    synced_commit: str
    synced_version: int | None
    conflict: str
    last_error: str
    created_at: datetime.datetime
    branch: str | Unset = "main"
    path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        pipeline = self.pipeline

        repository = self.repository

        synced_commit = self.synced_commit

        synced_version: int | None
        synced_version = self.synced_version

        conflict = self.conflict

        last_error = self.last_error

        created_at = self.created_at.isoformat()

        branch = self.branch

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "pipeline": pipeline,
                "repository": repository,
                "synced_commit": synced_commit,
                "synced_version": synced_version,
                "conflict": conflict,
                "last_error": last_error,
                "created_at": created_at,
            }
        )
        if branch is not UNSET:
            field_dict["branch"] = branch
        if path is not UNSET:
            field_dict["path"] = path

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        pipeline = d.pop("pipeline")

        repository = d.pop("repository")

        synced_commit = d.pop("synced_commit")

        def _parse_synced_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        synced_version = _parse_synced_version(d.pop("synced_version"))

        conflict = d.pop("conflict")

        last_error = d.pop("last_error")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        branch = d.pop("branch", UNSET)

        path = d.pop("path", UNSET)

        git_binding = cls(
            id=id,
            pipeline=pipeline,
            repository=repository,
            synced_commit=synced_commit,
            synced_version=synced_version,
            conflict=conflict,
            last_error=last_error,
            created_at=created_at,
            branch=branch,
            path=path,
        )

        git_binding.additional_properties = d
        return git_binding

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
