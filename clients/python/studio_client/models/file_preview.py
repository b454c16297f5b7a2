from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.file_preview_kind_enum import FilePreviewKindEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_preview_columns_item import FilePreviewColumnsItem
    from ..models.file_preview_rows_item import FilePreviewRowsItem


T = TypeVar("T", bound="FilePreview")


@_attrs_define
class FilePreview:
    """
    Attributes:
        name (str):
        size (int):
        kind (FilePreviewKindEnum): * `text` - text
            * `parquet` - parquet
        truncated (bool):
        path (str):
        lines (list[str] | Unset):
        columns (list[FilePreviewColumnsItem] | Unset):
        rows (list[FilePreviewRowsItem] | Unset):
        num_rows (int | Unset):
    """

    name: str
    size: int
    kind: FilePreviewKindEnum
    truncated: bool
    path: str
    lines: list[str] | Unset = UNSET
    columns: list[FilePreviewColumnsItem] | Unset = UNSET
    rows: list[FilePreviewRowsItem] | Unset = UNSET
    num_rows: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        size = self.size

        kind = self.kind.value

        truncated = self.truncated

        path = self.path

        lines: list[str] | Unset = UNSET
        if not isinstance(self.lines, Unset):
            lines = self.lines

        columns: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.columns, Unset):
            columns = []
            for columns_item_data in self.columns:
                columns_item = columns_item_data.to_dict()
                columns.append(columns_item)

        rows: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.rows, Unset):
            rows = []
            for rows_item_data in self.rows:
                rows_item = rows_item_data.to_dict()
                rows.append(rows_item)

        num_rows = self.num_rows

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "size": size,
                "kind": kind,
                "truncated": truncated,
                "path": path,
            }
        )
        if lines is not UNSET:
            field_dict["lines"] = lines
        if columns is not UNSET:
            field_dict["columns"] = columns
        if rows is not UNSET:
            field_dict["rows"] = rows
        if num_rows is not UNSET:
            field_dict["num_rows"] = num_rows

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.file_preview_columns_item import FilePreviewColumnsItem  # noqa: PLC0415
        from ..models.file_preview_rows_item import FilePreviewRowsItem  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        size = d.pop("size")

        kind = FilePreviewKindEnum(d.pop("kind"))

        truncated = d.pop("truncated")

        path = d.pop("path")

        lines = cast(list[str], d.pop("lines", UNSET))

        _columns = d.pop("columns", UNSET)
        columns: list[FilePreviewColumnsItem] | Unset = UNSET
        if _columns is not UNSET:
            columns = []
            for columns_item_data in _columns:
                columns_item = FilePreviewColumnsItem.from_dict(columns_item_data)

                columns.append(columns_item)

        _rows = d.pop("rows", UNSET)
        rows: list[FilePreviewRowsItem] | Unset = UNSET
        if _rows is not UNSET:
            rows = []
            for rows_item_data in _rows:
                rows_item = FilePreviewRowsItem.from_dict(rows_item_data)

                rows.append(rows_item)

        num_rows = d.pop("num_rows", UNSET)

        file_preview = cls(
            name=name,
            size=size,
            kind=kind,
            truncated=truncated,
            path=path,
            lines=lines,
            columns=columns,
            rows=rows,
            num_rows=num_rows,
        )

        file_preview.additional_properties = d
        return file_preview

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
