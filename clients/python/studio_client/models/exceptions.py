from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.restart import Restart
    from ..models.task_exception import TaskException


T = TypeVar("T", bound="Exceptions")


@_attrs_define
class Exceptions:
    """
    Attributes:
        root (None | str): Why the run failed, when it did.
        exceptions (list[TaskException]):
        restarts (list[Restart]):
    """

    root: None | str
    exceptions: list[TaskException]
    restarts: list[Restart]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        root: None | str
        root = self.root

        exceptions = []
        for exceptions_item_data in self.exceptions:
            exceptions_item = exceptions_item_data.to_dict()
            exceptions.append(exceptions_item)

        restarts = []
        for restarts_item_data in self.restarts:
            restarts_item = restarts_item_data.to_dict()
            restarts.append(restarts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "root": root,
                "exceptions": exceptions,
                "restarts": restarts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.restart import Restart  # noqa: PLC0415
        from ..models.task_exception import TaskException  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_root(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        root = _parse_root(d.pop("root"))

        exceptions = []
        _exceptions = d.pop("exceptions")
        for exceptions_item_data in _exceptions:
            exceptions_item = TaskException.from_dict(exceptions_item_data)

            exceptions.append(exceptions_item)

        restarts = []
        _restarts = d.pop("restarts")
        for restarts_item_data in _restarts:
            restarts_item = Restart.from_dict(restarts_item_data)

            restarts.append(restarts_item)

        exceptions = cls(
            root=root,
            exceptions=exceptions,
            restarts=restarts,
        )

        exceptions.additional_properties = d
        return exceptions

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
