from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.draft_diff_request_from import DraftDiffRequestFrom
    from ..models.draft_diff_request_to import DraftDiffRequestTo


T = TypeVar("T", bound="DraftDiffRequest")


@_attrs_define
class DraftDiffRequest:
    """
    Attributes:
        from_ (DraftDiffRequestFrom): A draft of a pipeline definition, valid or not.
        to (DraftDiffRequestTo): A draft of a pipeline definition, valid or not.
    """

    from_: DraftDiffRequestFrom
    to: DraftDiffRequestTo
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.to_dict()

        to = self.to.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.draft_diff_request_from import DraftDiffRequestFrom  # noqa: PLC0415
        from ..models.draft_diff_request_to import DraftDiffRequestTo  # noqa: PLC0415

        d = dict(src_dict)
        from_ = DraftDiffRequestFrom.from_dict(d.pop("from"))

        to = DraftDiffRequestTo.from_dict(d.pop("to"))

        draft_diff_request = cls(
            from_=from_,
            to=to,
        )

        draft_diff_request.additional_properties = d
        return draft_diff_request

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
