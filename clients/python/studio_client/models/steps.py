from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.git_binding import GitBinding


T = TypeVar("T", bound="Steps")


@_attrs_define
class Steps:
    """
    Attributes:
        steps (list[str]): What was committed or saved, in order.
        binding (GitBinding):
    """

    steps: list[str]
    binding: GitBinding
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        steps = self.steps

        binding = self.binding.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "steps": steps,
                "binding": binding,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.git_binding import GitBinding  # noqa: PLC0415

        d = dict(src_dict)
        steps = cast(list[str], d.pop("steps"))

        binding = GitBinding.from_dict(d.pop("binding"))

        steps = cls(
            steps=steps,
            binding=binding,
        )

        steps.additional_properties = d
        return steps

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
