"""Keeping a pipeline and its file in Git in step: bind, commit each saved version, pull commits in.

The rule that keeps both histories whole: ``synced_commit``/``synced_version`` mark where they
last agreed. A saved version is committed only when the file has not changed in Git since; a
commit is pulled in only when the studio has saved nothing since. When both moved, nothing is
written on either side: the binding records the conflict (the two definitions' difference),
and a person resolves it by choosing a side with ``resolve``, which writes the chosen
definition as a new version *and* a new commit, so both histories keep the other side too.

The repository is input: it is resolved against the grants of the user acting (a local path
inside a granted location, writable; or an https address a granted location covers) at every
use, not only when the binding is made.
"""
from __future__ import annotations

import difflib
import hashlib
import logging
import os
from pathlib import Path

from django.conf import settings
from django.db import transaction

from studio.cli_files import problem_text
from studio.environment_files import (SUFFIX as ENVIRONMENT_SUFFIX, EnvironmentFileRefused, NotAnEnvironmentOfYours,
                                      environment_files_of, take_environment_file)
from studio.gitstore.models import GitBinding
from studio.gitstore.repository import FileCommit, FileInRepository, GitStoreError
from studio.location_policy import LocationRefused, resolve_path, resolve_url
from studio.locations import policy_for
from studio.models import Pipeline, PipelineVersion

log = logging.getLogger(__name__)


class Conflict(Exception):
    """Both sides changed since they last agreed; ``diff`` shows the two definitions' logic."""

    def __init__(self, diff: str):
        super().__init__("the pipeline changed in the studio and in Git since they last agreed")
        self.diff = diff


class Refused(Exception):
    """The repository is not one the user may use, or a commit in it is not a valid pipeline."""


def file_for(binding: GitBinding, user, write: bool = True) -> FileInRepository:
    """The bound file, its repository checked against ``user``'s grants now (for reading only: ``write`` off)."""
    remote = binding.repository.strip()
    policy = policy_for(user, binding.pipeline)
    try:
        if remote.startswith("https://"):
            resolve_url(remote, policy)
        elif "://" in remote or remote.startswith(("git@", "ssh:")):
            raise Refused(f"{remote!r}: only a local path in a granted location or an https address can be bound")
        else:
            remote = resolve_path(remote, policy, write=write)[0]
            _refuse_borrowed_objects(Path(remote))
    except LocationRefused as error:
        raise Refused(str(error)) from None
    except OSError as error:  # a name too long, a folder it may not read: not a repository to bind
        raise Refused(f"{binding.repository!r} cannot be opened as a repository: {error.strerror}") from None
    mirror = Path(settings.STUDIO_GIT_MIRRORS) / f"binding-{binding.pk}.git"
    return FileInRepository(remote, binding.branch, binding.path, mirror)


def _refuse_borrowed_objects(repository: Path) -> None:
    """A repository on disk is read only from itself: a symlink inside it (to another user's refs or
    objects) or an ``alternates`` file (objects borrowed from elsewhere) would let a binding read
    what its user was never granted. (dulwich pushes to a local path without running its hooks.)"""
    if not (repository / "objects").is_dir() or not (repository / "refs").is_dir():
        raise Refused(f"{repository} is not a bare Git repository (git init --bare)")
    for folder, subfolders, files in os.walk(repository):
        for name in [*subfolders, *files]:
            if os.path.islink(os.path.join(folder, name)):
                raise Refused(f"{os.path.join(folder, name)} is a symbolic link: a bound repository holds "
                              "its own files only")
    for borrowed in ("alternates", "http-alternates"):
        if (repository / "objects" / "info" / borrowed).exists():
            raise Refused(f"{repository} borrows objects from elsewhere (objects/info/{borrowed}): not bound")


def bind(binding: GitBinding, user) -> list[str]:
    """Start keeping the pipeline in its file: the studio's versions become commits when the file is
    new; a file already there comes in as a version. What happened, a line per step."""
    repo = file_for(binding, user)
    head = repo.head()
    if repo.text_at(head) is None:
        steps = []
        for version in binding.pipeline.versions.order_by("number"):
            steps.append(_commit(binding, repo, head, version))
            head = binding.synced_commit
        return steps
    binding.synced_commit, binding.synced_version = "", None
    return pull(binding, user, repo=repo, from_start=True)


def compare(binding: GitBinding, user) -> dict:
    """The studio's latest version as the file it would commit, next to the file in Git's newest commit: both
    texts, their line diff, and whether their logic differs (a layout change is no logic change)."""
    from engine.api import PipelineFileError, logic_of, pipeline_from_text, pipeline_to_text

    repo = file_for(binding, user, write=False)
    head = repo.head()
    theirs = repo.text_at(head)
    version = binding.pipeline.latest_version()
    definition = {**version.definition, "name": binding.pipeline.name}
    ours = pipeline_to_text(definition, existing=theirs)
    try:
        logic_changed = theirs is None or logic_of(pipeline_from_text(theirs)) != logic_of(definition)
    except PipelineFileError:
        logic_changed = True
    diff = "\n".join(difflib.unified_diff((theirs or "").splitlines(), ours.splitlines(),
                                          f"git {(head or '')[:7]}".strip(), f"studio v{version.number}", lineterm=""))
    return {"version": version.number, "commit": head or "", "studio_text": ours, "git_text": theirs,
            "diff": diff, "logic_changed": logic_changed}


def commit_saved_version(version_pk: int) -> None:
    """After a version was saved: commit it, unless Git moved since the last agreement (a conflict)."""
    version = PipelineVersion.objects.select_related("pipeline", "created_by").get(pk=version_pk)
    binding = GitBinding.objects.filter(pipeline=version.pipeline).first()
    if binding is None or (binding.synced_version or 0) >= version.number:
        return  # not bound, or the version came from Git itself
    try:
        repo = file_for(binding, version.created_by or binding.created_by)
        head = repo.head()
        theirs = repo.text_at(head)
        if (head != (binding.synced_commit or None) and theirs != repo.text_at(binding.synced_commit or None)
                and not _same_logic(theirs, binding, version)):
            _record_conflict(binding, repo, head)
            return
        _commit(binding, repo, head, version)  # on top of Git's change when both made the same one (its comments kept)
    except (GitStoreError, Refused) as error:
        log.warning("pipeline %s: version %s not committed: %s", version.pipeline_id, version.number, error)
        GitBinding.objects.filter(pk=binding.pk).update(last_error=f"v{version.number} not committed: {error}")


def pull(binding: GitBinding, user, *, repo: FileInRepository | None = None, from_start: bool = False) -> list[str]:
    """Bring in the commits that changed the file since the last agreement (``from_start``: all of
    them, when binding to a file that is already there), one version each."""
    from engine.api import PipelineFileError, pipeline_from_text

    repo = repo or file_for(binding, user)
    head = repo.head()
    since = None if from_start else binding.synced_commit or None
    if not head:
        return ["nothing new in Git"]
    environments, notes = _environments_from_git(binding, repo, head, user)  # checked before anything is written
    if head == since and not environments:
        return ["nothing new in Git", *notes]
    latest = binding.pipeline.latest_version()
    commits = repo.commits_since(since, head)
    if not from_start and commits and latest.number > (binding.synced_version or 0):
        if _same_logic(repo.text_at(head), binding, latest):  # both sides made the same change: they agree
            GitBinding.objects.filter(pk=binding.pk).update(synced_commit=head, synced_version=latest.number,
                                                            conflict="", last_error="")
            return [f"Git's commit {head[:7]} holds what v{latest.number} holds: nothing to bring in"]
        _record_conflict(binding, repo, head)
        raise Conflict(binding.conflict)
    steps = []
    with transaction.atomic():  # a commit refused on the way leaves the studio as it was
        for commit in commits:
            try:
                definition = pipeline_from_text(commit.text)
            except PipelineFileError as error:
                raise Refused(f"commit {commit.sha[:7]}: {error}") from None
            version = _save_from_git(binding, commit, definition, user)
            steps.append(f"v{version.number} from commit {commit.sha[:7]}")
        for path, text in environments.items():
            steps.append(take_environment_file(user, text, path) or f"{path}: as the studio has it")
        steps += notes
        _agree_on_environments(binding, repo, head, user)
        GitBinding.objects.filter(pk=binding.pk).update(synced_commit=head, conflict="", last_error="")
    return steps or ["nothing new in Git"]


def _environments_from_git(binding: GitBinding, repo: FileInRepository, head: str,
                           user) -> tuple[dict[str, str], list[str]]:
    """The environment files beside the pipeline's that changed in Git since both sides last agreed on them,
    each checked against ``user``'s environment of its name, and notes on those left alone: a file of an
    environment the user has not, or one the studio changed too (the studio's is kept; its next commit
    writes it). Agreement is per file (``environments_agreed``), not per commit: a save may commit the
    pipeline over a commit whose environment file it leaves for the next pull."""
    agreed = binding.environments_agreed or {}
    ours = {f"{_folder_of(repo)}{name}": text for name, text in environment_files_of(user).items()}
    changed, notes = {}, []
    for path, text in sorted(repo.files_beside(head, ENVIRONMENT_SUFFIX).items()):
        if _digest(text) == agreed.get(path) or ours.get(path) == text:
            continue
        if path in ours and _digest(ours[path]) != agreed.get(path):
            notes.append(f"{path}: changed in the studio and in Git since they agreed: the studio's kept "
                         f"(Git's is in commit {head[:7]}; the next saved version commits the studio's)")
            continue
        try:
            take_environment_file(user, text, path, apply=False)
        except NotAnEnvironmentOfYours as error:
            notes.append(f"{error}: left alone")
            continue
        except EnvironmentFileRefused as error:
            raise Refused(f"commit {head[:7]}: {error}") from None
        changed[path] = text
    return changed, notes


def _agree_on_environments(binding: GitBinding, repo: FileInRepository, head: str, user) -> None:
    """After a pull: the files Git and the studio now hold alike are agreed."""
    ours = {f"{_folder_of(repo)}{name}": text for name, text in environment_files_of(user).items()}
    agreed = dict(binding.environments_agreed or {})
    for path, text in repo.files_beside(head, ENVIRONMENT_SUFFIX).items():
        if ours.get(path) == text:
            agreed[path] = _digest(text)
    binding.environments_agreed = agreed
    GitBinding.objects.filter(pk=binding.pk).update(environments_agreed=agreed)


def _environments_to_commit(binding: GitBinding, repo: FileInRepository, head: str | None, user) -> dict[str, str]:
    """The files of ``user``'s environments to commit beside the pipeline's: not those Git changed since both
    sides last agreed on them (the next pull brings them in; a commit does not write over them)."""
    agreed = binding.environments_agreed or {}
    at_head = repo.files_beside(head, ENVIRONMENT_SUFFIX)
    folder = _folder_of(repo)
    return {name: text for name, text in environment_files_of(user).items()
            if folder + name not in at_head or _digest(at_head[folder + name]) == agreed.get(folder + name)}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _folder_of(repo: FileInRepository) -> str:
    folder = repo.path.rpartition("/")[0]
    return f"{folder}/" if folder else ""


def resolve(binding: GitBinding, user, take: str) -> list[str]:
    """End a conflict: ``take`` "git" saves Git's file as a version and records the agreement;
    "studio" commits the studio's latest version on top of Git's newest commit."""
    from engine.api import pipeline_from_text

    repo = file_for(binding, user)
    head = repo.head()
    if take == "git":
        text = repo.text_at(head) or ""
        commit = FileCommit(head or "", "taken from Git to resolve a conflict", "", text)
        version = _save_from_git(binding, commit, pipeline_from_text(text), user)
        GitBinding.objects.filter(pk=binding.pk).update(synced_commit=head or "", conflict="")
        return [f"v{version.number} from commit {(head or '')[:7]}"]
    version = binding.pipeline.latest_version()
    step = _commit(binding, repo, head, version, message=f"{version.message or f'v{version.number}'} "
                                                         "(the studio's side of a conflict)")
    GitBinding.objects.filter(pk=binding.pk).update(conflict="")
    return [step]


def _commit(binding: GitBinding, repo: FileInRepository, head: str | None, version: PipelineVersion,
            message: str | None = None) -> str:
    from engine.api import pipeline_to_text

    definition = {**version.definition, "name": binding.pipeline.name}
    text = pipeline_to_text(definition, existing=repo.text_at(head))
    author = version.created_by
    beside = _environments_to_commit(binding, repo, head, author)
    sha = repo.commit(text, head, message or version.message or f"v{version.number}",
                      f"{getattr(author, 'username', 'studio')} <{getattr(author, 'email', '') or 'studio@localhost'}>",
                      beside=beside)
    folder = _folder_of(repo)
    binding.environments_agreed = {**(binding.environments_agreed or {}),
                                   **{folder + name: _digest(content) for name, content in beside.items()}}
    GitBinding.objects.filter(pk=binding.pk).update(synced_commit=sha, synced_version=version.number,
                                                    environments_agreed=binding.environments_agreed,
                                                    conflict="", last_error="")
    binding.synced_commit, binding.synced_version = sha, version.number
    return f"commit {sha[:7]} from v{version.number}"


def _save_from_git(binding: GitBinding, commit: FileCommit, definition: dict, user) -> PipelineVersion:
    """Save a commit's definition as a version, checked as any save is (the user's grants and sinks)."""
    from studio.api.definitions import problems_of  # the check every save passes, with the user's grants
    from studio.trusted_code import TrustedCodeRefused, require_code_permission

    pipeline: Pipeline = binding.pipeline
    try:
        require_code_permission(user, definition, "save")
    except TrustedCodeRefused as error:
        raise Refused(f"commit {commit.sha[:7]}: {error}") from None
    problems = problems_of(definition, user, pipeline)
    if problems:
        listed = "; ".join(problem_text(problem) for problem in problems[:20])
        raise Refused(f"commit {commit.sha[:7]} is not a pipeline you may save: {listed}")
    message = f"{commit.message} (git {commit.sha[:7]}{f' by {commit.author}' if commit.author else ''})"
    with transaction.atomic():
        number = (pipeline.versions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
        # recorded first, so the version's own save does not commit it back to Git
        GitBinding.objects.filter(pk=binding.pk).update(synced_version=number, synced_commit=commit.sha)
        binding.synced_version = number
        return pipeline.save_version(definition, message[:500], user)


def _same_logic(text: str | None, binding: GitBinding, version: PipelineVersion) -> bool:
    """Whether the file ``text`` defines what ``version`` defines, layout and comments aside."""
    from engine.api import PipelineFileError, logic_of, pipeline_from_text

    if text is None:
        return False
    try:
        return logic_of(pipeline_from_text(text)) == logic_of({**version.definition, "name": binding.pipeline.name})
    except PipelineFileError:
        return False


def _record_conflict(binding: GitBinding, repo: FileInRepository, head: str | None) -> None:
    """Record both sides' logic as a diff from Git's file to the studio's, the direction ``compare`` shows too."""
    from engine.api import logic_of, pipeline_from_text, pipeline_to_text

    studio = binding.pipeline.latest_version()
    theirs = repo.text_at(head) or ""
    try:
        theirs = pipeline_to_text(logic_of(pipeline_from_text(theirs)))
    except ValueError:
        pass
    ours = pipeline_to_text(logic_of({**studio.definition, "name": binding.pipeline.name}))
    diff = "\n".join(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), f"git {(head or '')[:7]}",
                                          f"studio v{studio.number}", lineterm=""))
    binding.conflict = diff or "the files differ only in layout"
    GitBinding.objects.filter(pk=binding.pk).update(conflict=binding.conflict)

