from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Comparison")


@_attrs_define
class Comparison:
    """
    Attributes:
        version (int): The studio's latest version.
        commit (str): Git's newest commit on the branch ('' while none).
        studio_text (str): The latest version as the file the studio would commit.
        git_text (None | str): The file in that commit (null: not there).
        diff (str): A unified diff from Git's file to the studio's.
        logic_changed (bool): Whether the two differ in more than layout and comments.
    """

    version: int
    commit: str
    studio_text: str
    git_text: None | str
    diff: str
    logic_changed: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        version = self.version

        commit = self.commit

        studio_text = self.studio_text

        git_text: None | str
        git_text = self.git_text

        diff = self.diff

        logic_changed = self.logic_changed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "version": version,
                "commit": commit,
                "studio_text": studio_text,
                "git_text": git_text,
                "diff": diff,
                "logic_changed": logic_changed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        version = d.pop("version")

        commit = d.pop("commit")

        studio_text = d.pop("studio_text")

        def _parse_git_text(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        git_text = _parse_git_text(d.pop("git_text"))

        diff = d.pop("diff")

        logic_changed = d.pop("logic_changed")

        comparison = cls(
            version=version,
            commit=commit,
            studio_text=studio_text,
            git_text=git_text,
            diff=diff,
            logic_changed=logic_changed,
        )

        comparison.additional_properties = d
        return comparison

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
