"""One file on one branch of a Git repository, read and committed through a local mirror (dulwich).

The studio never works in the bound repository itself: it fetches the branch into a bare
mirror of its own, builds commits there and pushes them, so the repository may be a bare one
on this machine or a remote the git protocol reaches. A push that is not a fast-forward (someone
pushed in between) fails, and nothing is overwritten.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from dulwich import porcelain
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo


class GitStoreError(Exception):
    """The repository could not be read or written; the message says what to do."""


@dataclass(frozen=True)
class FileCommit:
    """A commit that changed the file: its id, message, author and the file's text after it."""

    sha: str
    message: str
    author: str
    text: str


class FileInRepository:
    """``path`` on ``branch`` of ``remote``, through the bare mirror at ``mirror``."""

    def __init__(self, remote: str, branch: str, path: str, mirror: Path):
        self.remote, self.path = remote, path
        self.ref = f"refs/heads/{branch}".encode()
        self.parts = [part.encode() for part in path.split("/")]
        if not mirror.exists():
            mirror.mkdir(parents=True)
            Repo.init_bare(str(mirror))
        self.repo = Repo(str(mirror))

    def head(self) -> str | None:
        """Fetch the branch; its newest commit, or None while it has none."""
        try:
            result = porcelain.fetch(self.repo, self.remote, quiet=True)
        except Exception as error:  # dulwich raises its own, OSError's and urllib's errors
            raise GitStoreError(f"cannot fetch from {self.remote}: {error}") from None
        sha = result.refs.get(self.ref)
        return sha.decode() if sha else None

    def text_at(self, commit: str | None) -> str | None:
        """The file's text in ``commit`` (None: no commit, or no such file there)."""
        if not commit:
            return None
        blob = self._blob_id(self.repo[commit.encode()].tree)
        return self.repo[blob].data.decode("utf-8") if blob else None

    def files_beside(self, commit: str | None, suffix: str) -> dict[str, str]:
        """``{path: text}`` of the files in the file's folder whose names end with ``suffix``, in ``commit``."""
        if not commit:
            return {}
        tree = self.repo[self.repo[commit.encode()].tree]
        for part in self.parts[:-1]:
            if part not in tree:
                return {}
            mode, sha = tree[part]
            if mode != 0o040000:
                return {}
            tree = self.repo[sha]
        folder = "/".join(part.decode() for part in self.parts[:-1])
        found = {}
        for entry in tree.items():
            name = entry.path.decode("utf-8", "replace")
            if name.endswith(suffix) and entry.mode & 0o170000 == 0o100000:
                found[f"{folder}/{name}" if folder else name] = self.repo[entry.sha].data.decode("utf-8", "replace")
        return found

    def commits_since(self, since: str | None, head: str) -> list[FileCommit]:
        """The commits after ``since`` up to ``head`` that changed the file, oldest first."""
        changed, sha = [], head.encode()
        stop = since.encode() if since else None
        while sha and sha != stop:
            commit = self.repo[sha]
            parent = commit.parents[0] if commit.parents else None
            blob = self._blob_id(commit.tree)
            if blob and blob != (self._blob_id(self.repo[parent].tree) if parent else None):
                changed.append(FileCommit(sha.decode(), commit.message.decode("utf-8", "replace").strip(),
                                          commit.author.decode("utf-8", "replace"),
                                          self.repo[blob].data.decode("utf-8")))
            sha = parent
        return changed[::-1]

    def commit(self, text: str, parent: str | None, message: str, author: str,
               beside: dict[str, str] | None = None) -> str:
        """Commit ``text`` as the file (and ``beside``'s texts as the files of those names in its folder) on top
        of ``parent`` and push it; the new commit's id."""
        tree = self.repo[parent.encode()].tree if parent else None
        for name, content in [*sorted((beside or {}).items()), (None, text)]:
            blob = Blob.from_string(content.encode("utf-8"))
            self.repo.object_store.add_object(blob)
            parts = self.parts if name is None else [*self.parts[:-1], name.encode("utf-8")]
            tree = self._tree_with(tree, parts, blob.id)
        commit = Commit()
        commit.tree = tree
        commit.parents = [parent.encode()] if parent else []
        commit.author = commit.committer = author.encode("utf-8")
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.encoding = b"UTF-8"
        commit.message = message.encode("utf-8")
        self.repo.object_store.add_object(commit)
        self.repo.refs[self.ref] = commit.id
        try:
            porcelain.push(self.repo, self.remote, refspecs=[self.ref], errstream=_Quiet(), outstream=_Quiet())
        except Exception as error:  # a rejected push (not a fast-forward) or an unreachable remote
            raise GitStoreError(f"cannot push to {self.remote}: {error}") from None
        return commit.id.decode()

    def _blob_id(self, tree_id: bytes) -> bytes | None:
        try:
            _mode, sha = self.repo[tree_id].lookup_path(self.repo.object_store.__getitem__, b"/".join(self.parts))
        except KeyError:
            return None
        return sha

    def _tree_with(self, tree_id: bytes | None, parts: list[bytes], blob_id: bytes) -> bytes:
        tree = self.repo[tree_id].copy() if tree_id else Tree()
        if len(parts) == 1:
            tree.add(parts[0], 0o100644, blob_id)
        else:
            below = tree[parts[0]][1] if parts[0] in tree else None
            tree.add(parts[0], 0o040000, self._tree_with(below, parts[1:], blob_id))
        self.repo.object_store.add_object(tree)
        return tree.id


class _Quiet:
    """Where dulwich's progress goes: nowhere (the studio reports outcomes, not transfer progress)."""

    def write(self, data) -> None:
        pass

    def flush(self) -> None:
        pass
