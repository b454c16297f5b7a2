from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.change_enum import ChangeEnum

if TYPE_CHECKING:
    from ..models.change_counts import ChangeCounts
    from ..models.changed_key import ChangedKey


T = TypeVar("T", bound="StateDiff")


@_attrs_define
class StateDiff:
    """
    Attributes:
        node (str):
        before (int): The earlier checkpoint's id (``against``).
        after (int): This checkpoint's id.
        counts (ChangeCounts):
        change (ChangeEnum | None):
        total (int):
        offset (int):
        rows (list[ChangedKey]):
    """

    node: str
    before: int
    after: int
    counts: ChangeCounts
    change: ChangeEnum | None
    total: int
    offset: int
    rows: list[ChangedKey]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        before = self.before

        after = self.after

        counts = self.counts.to_dict()

        change: None | str
        if isinstance(self.change, ChangeEnum):
            change = self.change.value
        else:
            change = self.change

        total = self.total

        offset = self.offset

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
                "before": before,
                "after": after,
                "counts": counts,
                "change": change,
                "total": total,
                "offset": offset,
                "rows": rows,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.change_counts import ChangeCounts  # noqa: PLC0415
        from ..models.changed_key import ChangedKey  # noqa: PLC0415

        d = dict(src_dict)
        node = d.pop("node")

        before = d.pop("before")

        after = d.pop("after")

        counts = ChangeCounts.from_dict(d.pop("counts"))

        def _parse_change(data: object) -> ChangeEnum | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                change_type_0 = ChangeEnum(data)

                return change_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChangeEnum | None, data)

        change = _parse_change(d.pop("change"))

        total = d.pop("total")

        offset = d.pop("offset")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = ChangedKey.from_dict(rows_item_data)

            rows.append(rows_item)

        state_diff = cls(
            node=node,
            before=before,
            after=after,
            counts=counts,
            change=change,
            total=total,
            offset=offset,
            rows=rows,
        )

        state_diff.additional_properties = d
        return state_diff

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
