from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.definition import Definition


T = TypeVar("T", bound="PreviewRequestRequest")


@_attrs_define
class PreviewRequestRequest:
    """
    Attributes:
        definition (Definition): A pipeline definition (format 1); see GET /api/operators for node types and the JSON
            Schema of each one's params.
        limit (int | Unset):  Default: 100.
        pipeline (int | None | Unset): The saved pipeline whose workspace relative paths resolve in (one you may view);
            your draft workspace when omitted.
        environment (str | Unset): The environment whose parameters the definition's ${param:name} take (by name), as a
            run started there gets them; none when empty. Your ${secret:name} are filled in and masked in the answer.
    """

    definition: Definition
    limit: int | Unset = 100
    pipeline: int | None | Unset = UNSET
    environment: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition.to_dict()

        limit = self.limit

        pipeline: int | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        else:
            pipeline = self.pipeline

        environment = self.environment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "definition": definition,
            }
        )
        if limit is not UNSET:
            field_dict["limit"] = limit
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if environment is not UNSET:
            field_dict["environment"] = environment

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.definition import Definition  # noqa: PLC0415

        d = dict(src_dict)
        definition = Definition.from_dict(d.pop("definition"))

        limit = d.pop("limit", UNSET)

        def _parse_pipeline(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        environment = d.pop("environment", UNSET)

        preview_request_request = cls(
            definition=definition,
            limit=limit,
            pipeline=pipeline,
            environment=environment,
        )

        preview_request_request.additional_properties = d
        return preview_request_request

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
