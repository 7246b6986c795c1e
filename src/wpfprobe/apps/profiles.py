"""Profiles: the apps a user launches often, by name, in one file.

``$WPFPROBE_HOME/profiles.json`` (the same base directory as the session
manifests), owner-only, replaced atomically on every change. A file that
cannot be read as profiles is an error naming the file, never silently
emptied or overwritten.

A profile either launches its app (``command``) or names one that is already
running (``attach``: by its process or script name, or a window title), which
``wpfprobe launch --profile``, ``wpf_launch_app``, scenarios and exploration then
attach to instead of starting (SPEC section 10): a running app cannot be started
again, so such a profile serves no minimization or replay from a fresh start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.paths import home_dir, write_private_json

SCHEMA_VERSION = 1
NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
FILE_NAME = "profiles.json"

ProfileName = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]


class AttachTo(BaseModel):
    """A running app a profile attaches to, named as ``wpfprobe attach --name/--title`` names it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=200)
    """The process's name or its script's (``orders`` for ``python orders.py``)."""
    title: str | None = Field(default=None, min_length=1, max_length=1000)
    """A regular expression searched (case-insensitive) in the app's window titles."""

    @model_validator(mode="after")
    def _one(self) -> AttachTo:
        if (self.name is None) == (self.title is None):
            raise ValueError("attach names the app by exactly one of name or title")
        if self.title is not None:
            import re  # noqa: PLC0415

            try:
                re.compile(self.title)
            except re.error as exc:
                raise ValueError(f"attach.title is not a valid regular expression ({exc})") from None
        return self

    def describe(self) -> str:
        return f"the running app named {self.name}" if self.name else f"the running app titled /{self.title}/"


class Profile(BaseModel):
    """A known app: how to start it (or which running app to attach to), where, and the tier its probe allows."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True, extra="forbid")

    name: ProfileName
    command: list[str] = Field(default_factory=list)
    """The app's command line, e.g. ``["python", "app.py", "--demo"]``; empty for an ``attach`` profile."""
    attach: AttachTo | None = None
    """Instead of a command: the running app to attach to."""
    cwd: str | None = None
    """Working directory (absolute); None: wherever the launcher runs."""
    allow: Literal["read", "interact", "mutate"] = "read"
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the app (kept in the owner-only file; never printed)."""
    allow_actions: list[str] = Field(default_factory=list)
    """Test kit: destructive actions exploration may take after all (locators, or ``text:REGEX``);
    only together with ``confirm_destructive``."""
    confirm_destructive: bool = False
    """Test kit: the explicit confirmation that the ``allow_actions`` may run against this app."""

    @field_validator("command")
    @classmethod
    def _launchable(cls, command: list[str]) -> list[str]:
        from wpfprobe.apps.launch import probe_command  # noqa: PLC0415

        if not command:
            return command  # an attach profile's; _one_way checks there is one or the other
        try:
            probe_command(command)
        except InvalidArgumentError as err:
            raise ValueError(err.message) from None
        return command

    @model_validator(mode="after")
    def _one_way(self) -> Profile:
        if bool(self.command) == (self.attach is not None):
            raise ValueError("a profile has a command to launch its app, or attach naming a running one (not both)")
        if self.attach is not None and (self.cwd is not None or self.env):
            raise ValueError("cwd and env are for launching: an attach profile's app is already running")
        return self


def profiles_path() -> Path:
    return home_dir() / FILE_NAME


def check_name(name: Any) -> str:
    import re  # noqa: PLC0415

    if not isinstance(name, str) or not re.match(NAME_PATTERN, name):
        raise InvalidArgumentError(
            f"Invalid profile name {name!r}: use 1 to 64 letters, digits, '_' or '-'.",
            suggestion="Name it like a tool: e.g. orders-app or orders_app.",
        )
    return name


def new_profile(
    name: str,
    command: list[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    allow: Literal["read", "interact", "mutate"] = "read",
    env: dict[str, str] | None = None,
    allow_actions: list[str] | None = None,
    confirm_destructive: bool = False,
    attach: AttachTo | dict[str, str] | None = None,
) -> Profile:
    """A checked Profile (cwd made absolute); InvalidArgumentError says what is wrong.
    ``attach`` (with an empty ``command``) names a running app instead of launching one.

    The command is kept as it runs from anywhere: its script made absolute (relative to ``cwd``, else the
    current directory, which then is its ``cwd``) and a bare ``python`` the interpreter running wpfprobe,
    which has wpfprobe."""
    check_name(name)
    if command:
        from wpfprobe.apps.launch import resolve_command  # noqa: PLC0415

        base = os.path.abspath(cwd) if cwd is not None else os.getcwd()
        where = "the profile's working directory" if cwd is not None else "the current directory"
        command = resolve_command(command, base, where=where)
        cwd = base  # the app runs where its command was typed, from wherever it is launched
    try:
        return Profile(
            name=name, command=list(command), cwd=None if cwd is None else os.path.abspath(cwd),
            allow=allow, env=dict(env or {}), allow_actions=list(allow_actions or []),
            confirm_destructive=confirm_destructive,
            attach=AttachTo.model_validate(attach) if isinstance(attach, dict) else attach,
        )  # fmt: skip
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
        raise InvalidArgumentError(f"Invalid profile {name!r}: {problems}.") from None


def load_profiles(path: Path | None = None) -> dict[str, Profile]:
    """Every profile by name; an empty dict when the file does not exist yet."""
    path = path or profiles_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InvalidArgumentError(f"Cannot read the profiles file {path}: {exc.strerror or exc}.") from None
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("profiles"), dict):
            raise ValueError('expected {"schemaVersion": 1, "profiles": {name: profile}}')
        profiles = {}
        for key, value in data["profiles"].items():
            profile = Profile.model_validate(value)
            if profile.name != key:
                raise ValueError(f"profile {key!r} names itself {profile.name!r}")
            profiles[key] = profile
    except (ValueError, ValidationError) as exc:
        reason = " ".join(str(exc).split())
        raise InvalidArgumentError(
            f"The profiles file {path} is corrupt: {reason[:500]}",
            suggestion=f"Fix or move away {path}; wpfprobe leaves it as it is.",
            detail={"path": str(path)},
        ) from None
    return profiles


def get_profile(name: str, path: Path | None = None) -> Profile:
    profiles = load_profiles(path)
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none yet"
        raise InvalidArgumentError(
            f"No profile named {name!r} (known: {known}).",
            suggestion="List them with `wpfprobe profiles list`; add one with `wpfprobe profiles add NAME -- python app.py`.",
            detail={"known": sorted(profiles)},
        )
    return profiles[name]


def add_profile(profile: Profile, *, replace: bool = False, path: Path | None = None) -> Path:
    """Save ``profile``; a name already taken needs ``replace=True``. Returns the file."""
    path = path or profiles_path()
    profiles = load_profiles(path)
    if profile.name in profiles and not replace:
        raise InvalidArgumentError(
            f"A profile named {profile.name!r} exists already.",
            suggestion="Pass --replace (replace=True) to overwrite it, or pick another name.",
        )
    profiles[profile.name] = profile
    _write(path, profiles)
    return path


def remove_profile(name: str, path: Path | None = None) -> None:
    path = path or profiles_path()
    profiles = load_profiles(path)
    get_profile(name, path)  # the error lists the known names
    del profiles[name]
    _write(path, profiles)


def _write(path: Path, profiles: dict[str, Profile]) -> None:
    data = {
        "schemaVersion": SCHEMA_VERSION,
        "profiles": {n: p.model_dump(mode="json", by_alias=True) for n, p in sorted(profiles.items())},
    }
    write_private_json(path, data, indent=2)
