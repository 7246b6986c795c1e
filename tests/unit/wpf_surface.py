"""Check Python code that drives WPF through pythonnet against the public WPF API.

WPF only runs on Windows, so code like the WPF adapter
(``src/wpfprobe_clr/toolkits/wpf/``) cannot be executed here. This checker
reads it with ``ast`` and verifies every WPF type and member it uses against
``wpf-api.tsv`` (the public surface of the WPF assemblies as data, see
``../shared/wpf-api/README.md``), following base types because members are
listed only on the type that declares them, and interfaces' members too.

Files are checked together (``check_files``, ``check_package``): a name one
module imports from another of the files keeps its kind there (a class with
its annotated attributes, followed through its bases for mixins; a function
with its declared return type), so code split over a package is checked as
closely as code in one file. Importing a name the other module does not bind
is an error.

The convention it enforces (also documented in the adapter package's __init__):

1. WPF types are imported by name, ``from System.Windows.Controls import
   Button``; importing or walking a namespace (``import System.Windows``,
   ``System.Windows.Controls.Button``) is refused, and an unknown imported name
   from a ``System.Windows*``/``System.Xaml*`` namespace is an error.
2. ``Type.Member`` on an imported WPF type must be static (static field,
   property, method or event, enum value, nested type); ``Type(...)`` must match
   a public constructor (or construct a delegate from a callable), and
   ``IInterface(value)`` is pythonnet's interface cast: exactly one value, seen
   through the interface, whose members (``IInvokeProvider.Invoke``) are then
   checked. Only methods are called: calling a property, field, event or enum
   value is an error (unless the property could hold a delegate).
3. A value whose WPF type is known may only use public instance members of
   that type and its base classes, plus System.Object's ``GetType``,
   ``ToString``, ``Equals`` and ``GetHashCode``. A type is known from an
   annotation (``el: FrameworkElement``, parameters, ``self.x: T`` and class
   attributes), an ``isinstance(x, T)`` test (inside the branch, or after
   ``if not isinstance(x, T): return``), an assignment of a typed expression,
   or the declared type of a member's result (``PresentationSource
   .FromVisual(v).CompositionTarget`` is checked link by link).
4. A PascalCase member used on a value of unknown type (``Any``, ``object``,
   an un-annotated local) is an error, so nothing escapes the check by being
   untyped: annotate it with its WPF type, or with a BCL type (BCL types are
   not in the file and are not checked; they run for real on Mono).
5. Members that WPF types inherit from BCL base classes (other than
   System.Object) are unknown to the file; the few that code needs are listed
   explicitly in ``BCL_BASE_MEMBERS``.

Protected members, assigning to a method, ``+=`` on a non-event, and calls
whose argument count fits no overload are reported too.

Run it on files or packages (checked together): ``python tests/unit/wpf_surface.py PATH...``.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ENV_VAR = "WPFPROBE_WPF_API"
#: The expression builder (``net/expr.py``): WPF members named by strings in its calls are checked too.
EXPR_MODULE = "wpfprobe_clr.net.expr"
EXPR_MEMBER_HELPERS = frozenset({"method", "static_call", "prop", "call"})
REPO_ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- API data


@dataclass(frozen=True, slots=True)
class ApiMember:
    declaring_type: str
    name: str
    kind: str  # ctor, method, property, indexer, field, event, enumvalue
    is_static: bool
    is_public: bool
    signature: str


@dataclass(slots=True)
class ApiType:
    full_name: str
    kind: str  # class, struct, enum, interface, delegate
    is_static: bool
    bases: tuple[str, ...]
    members: dict[str, list[ApiMember]] = field(default_factory=dict)


#: Members of System.Object usable on every .NET value (pythonnet exposes them).
OBJECT_INSTANCE_MEMBERS = frozenset({"GetType", "ToString", "Equals", "GetHashCode"})
OBJECT_STATIC_MEMBERS = frozenset({"Equals", "ReferenceEquals"})

#: Members that WPF types inherit from BCL base classes (which the file does not
#: list), allowed explicitly as {BCL base class: member names}. Keep it short:
#: each entry is a claim only Windows checks. The project's code needs none
#: (it annotates such values with the BCL type instead, which is not checked).
BCL_BASE_MEMBERS: dict[str, frozenset[str]] = {}

_ROOT_BASES = frozenset(
    {"System.Object", "System.ValueType", "System.Enum", "System.Delegate", "System.MulticastDelegate"}
)

_CSHARP_KEYWORD_TYPES = frozenset(
    {
        *("void", "bool", "byte", "sbyte", "short", "ushort", "int", "uint", "long", "ulong"),
        *("float", "double", "decimal", "char", "string", "object", "nint", "nuint", "dynamic"),
    }
)


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside <>, [] and () (generic arguments, arrays, parameters)."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _generic_key(name: str) -> str:
    """``A<B, C>`` -> ``A`2`` (the file's spelling of generic type names)."""
    if "<" not in name:
        return name
    head, _, rest = name.partition("<")
    return f"{head}`{len(_split_top(rest[:-1], ','))}"


class WpfApi:
    """The public WPF surface loaded from wpf-api.tsv."""

    def __init__(self, types: dict[str, ApiType], source: Path | None = None) -> None:
        self.types = types
        self.source = source
        self.namespaces: set[str] = set()
        self.short_names: dict[str, list[str]] = {}
        for full in types:
            outer = full.split("+", 1)[0]
            ns, _, short = outer.rpartition(".")
            self.namespaces.add(ns)
            self.short_names.setdefault(short.split("`")[0], []).append(full)
        # Every prefix of a namespace is a namespace too (System.Windows.Media -> System.Windows).
        for ns in list(self.namespaces):
            parts = ns.split(".")
            for i in range(1, len(parts)):
                self.namespaces.add(".".join(parts[:i]))

    @classmethod
    def load(cls, path: Path) -> WpfApi:
        types: dict[str, ApiType] = {}
        pending: list[list[str]] = []
        with path.open(encoding="utf-8") as fh:
            for raw in fh:
                cols = raw.rstrip("\r\n").split("\t")
                if cols[0] == "T" and len(cols) >= 3:
                    kind_parts = cols[2].split()
                    bases = tuple(_split_top(cols[3], ",")) if len(cols) > 3 else ()
                    types[cols[1]] = ApiType(
                        full_name=cols[1],
                        kind=kind_parts[0],
                        is_static="static" in kind_parts[1:],
                        bases=tuple(_generic_key(b) for b in bases),
                    )
                elif cols[0] == "M" and len(cols) >= 7:
                    pending.append(cols)
        for cols in pending:
            _, type_name, name, kind, scope, access, signature = cols[:7]
            owner = types.get(type_name)
            if owner is None:
                continue
            if "this[" in signature:
                # The file's indexer rows carry a mangled name; pythonnet uses x[i].
                name, kind = "Item", "indexer"
            elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                continue  # a few nested-type declarations leak in as odd member rows
            owner.members.setdefault(name, []).append(
                ApiMember(type_name, name, kind, scope == "static", access == "public", signature)
            )
        return cls(types, path)

    # -- type relations

    def is_interface(self, name: str) -> bool:
        t = self.types.get(name)
        if t is not None:
            return t.kind == "interface"
        short = name.rsplit(".", 1)[-1]
        return len(short) > 1 and short[0] == "I" and short[1].isupper()

    def base_class(self, name: str) -> str | None:
        t = self.types.get(name)
        if t is None:
            return None
        if t.kind == "struct":
            return "System.ValueType"
        if t.kind == "enum":
            return "System.Enum"
        if t.kind == "delegate":
            return "System.MulticastDelegate"
        if t.kind == "class":
            for base in t.bases:
                if not self.is_interface(base):
                    return base
            return "System.Object"
        return None

    def lookup_chain(self, name: str) -> tuple[list[str], str | None]:
        """Types to search for members, and the BCL class where the chain leaves the file."""
        t = self.types.get(name)
        if t is None:
            return [], name
        if t.kind == "interface":
            seen: list[str] = []
            queue = [name]
            while queue:
                interface = queue.pop(0)
                if interface in seen or interface not in self.types:
                    continue
                seen.append(interface)
                queue.extend(self.types[interface].bases)
            return seen, None
        chain: list[str] = []
        current: str | None = name
        while current is not None and current in self.types:
            chain.append(current)
            current = self.base_class(current)
        left = current if current is not None and current not in _ROOT_BASES else None
        return chain, left

    def find_members(self, type_name: str, member: str) -> tuple[list[ApiMember], str | None]:
        """All declarations of ``member`` along the chain (overloads may be split across it)."""
        chain, left = self.lookup_chain(type_name)
        found: list[ApiMember] = []
        for t in chain:
            found.extend(self.types[t].members.get(member, ()))
        return found, left

    def nested_type(self, type_name: str, name: str) -> str | None:
        chain, _ = self.lookup_chain(type_name)
        for t in chain:
            candidate = f"{t}+{name}"
            if candidate in self.types:
                return candidate
        return None

    def resolve_signature_type(self, text: str) -> str | None:
        """A type as spelt in a C# signature -> the file's type name, if it is a WPF type."""
        text = text.strip().rstrip("?")
        key = _generic_key(text)
        if key in self.types:
            return key
        # Nested types are written with dots in signatures.
        parts = key.split(".")
        for i in range(len(parts) - 1, 0, -1):
            candidate = ".".join(parts[:i]) + "+" + "+".join(parts[i:])
            if candidate in self.types:
                return candidate
        return None

    def member_names(self, type_name: str) -> set[str]:
        chain, _ = self.lookup_chain(type_name)
        names: set[str] = set()
        for t in chain:
            names.update(n for n in self.types[t].members if n != t.rsplit(".", 1)[-1])
        return names

    def suggest_type(self, namespace: str, name: str) -> str:
        in_ns = [full.rsplit(".", 1)[-1] for full in self.types if full.rpartition(".")[0] == namespace]
        close = difflib.get_close_matches(name, in_ns, n=3)
        elsewhere = [full for full in self.short_names.get(name, [])]
        hints = []
        if close:
            hints.append("did you mean " + " or ".join(close) + "?")
        if elsewhere:
            hints.append("it lives in " + ", ".join(f.rpartition(".")[0] for f in elsewhere))
        return f" ({'; '.join(hints)})" if hints else ""


def _signature_parts(member: ApiMember) -> tuple[str | None, str | None]:
    """(declared value or return type, parameter list) of a member's C# signature."""
    sig = member.signature
    params: str | None = None
    if member.kind in ("method", "ctor"):
        depth = 0
        cut = -1
        for i, ch in enumerate(sig):
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
            elif ch == "(" and depth == 0:
                cut = i
                break
        if cut < 0:
            return None, None
        head = sig[:cut]
        params = sig[cut + 1 : sig.rfind(")")]
    elif member.kind == "indexer":
        head = sig[: sig.find("this[")] + "Item"
        params = sig[sig.find("this[") + 5 : sig.rfind("]")]
    else:
        head = sig
    tokens = _split_top(head, " ")
    if member.kind == "ctor" or len(tokens) < 2:
        return None, params
    return tokens[-2], params


def _arity(params: str | None) -> tuple[int, float]:
    if params is None:
        return 0, float("inf")
    low = 0
    high: float = 0
    for p in _split_top(params, ","):
        p = re.sub(r"^\[[^\]]*\]\s*", "", p)
        if p.startswith("params "):
            high = float("inf")
            continue
        high += 1
        if " = " in p or p.startswith("out "):
            continue  # optional, or an out parameter pythonnet returns instead
        low += 1
    return low, high


# --------------------------------------------------------------------------- static kinds


@dataclass(frozen=True, slots=True)
class WpfTypeRef:
    """The WPF type object itself (``Window``): its static members are usable."""

    name: str


@dataclass(frozen=True, slots=True)
class WpfValue:
    """A value of a known WPF type: its instance members are usable."""

    name: str


@dataclass(frozen=True, slots=True)
class WpfMethod:
    owner: str
    name: str
    overloads: tuple[ApiMember, ...]
    generic: bool = False


@dataclass(frozen=True, slots=True)
class Opaque:
    """Not WPF and not checked: a BCL type or value, a Python module or object."""

    what: str = ""


@dataclass(frozen=True, slots=True)
class PyFunction:
    returns: Kind


@dataclass(frozen=True, slots=True)
class PyClass:
    name: str


@dataclass(frozen=True, slots=True)
class PyInstance:
    name: str


@dataclass(frozen=True, slots=True)
class Unknown:
    pass


Kind = WpfTypeRef | WpfValue | WpfMethod | Opaque | PyFunction | PyClass | PyInstance | Unknown
UNKNOWN = Unknown()
OPAQUE = Opaque()


@dataclass(frozen=True, slots=True)
class Problem:
    filename: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


@dataclass(slots=True)
class Report:
    filename: str
    problems: list[Problem] = field(default_factory=list)
    #: Every verified use of a WPF member or constructor.
    references: int = 0
    #: Distinct verified members, as ``Declaring.Type.Member``.
    members: set[str] = field(default_factory=set)
    #: WPF types imported by name.
    types: set[str] = field(default_factory=set)

    def __str__(self) -> str:
        head = (
            f"{self.filename}: {self.references} WPF references "
            f"({len(self.members)} distinct members, {len(self.types)} types), "
            f"{len(self.problems)} problem(s)"
        )
        return "\n".join([head, *(f"  {p}" for p in self.problems)])


def _is_wpf_namespace(module: str) -> bool:
    """Namespaces wholly owned by WPF: an unknown name imported from them is an error."""
    if module.startswith("System.Windows.Forms"):
        return False
    return module in ("System.Windows", "System.Xaml") or module.startswith(("System.Windows.", "System.Xaml."))


# --------------------------------------------------------------------------- checker


@dataclass(slots=True)
class _ClassInfo:
    name: str
    attrs: dict[str, Kind] = field(default_factory=dict)
    #: The keys (in ``_Project.classes``) of the project's classes it derives from, in order.
    bases: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Project:
    """The modules checked together, so that one module's names are known where another imports them.

    A name imported from a module of the project (``from pkg._tree import
    _TreeAdapter``, relative imports too) has the kind it has in that module:
    a class with its annotated attributes and methods, a function with its
    declared return type, a WPF type imported there. Without this, everything
    a split package passes between its modules would be an unchecked Python
    object. Classes are keyed ``module.Name``; a class's bases from the
    project are followed for ``self.x`` and ``instance.x`` (mixins).
    """

    #: Module name -> its checker, once it has run (modules run in import order).
    checkers: dict[str, _Checker] = field(default_factory=dict)
    #: Module name -> every name bound at its top level (read before any module runs).
    names: dict[str, set[str]] = field(default_factory=dict)
    classes: dict[str, _ClassInfo] = field(default_factory=dict)


class _Checker:
    def __init__(
        self,
        api: WpfApi,
        filename: str,
        strict: bool,
        *,
        module: str | None = None,
        package: str | None = None,
        project: _Project | None = None,
    ) -> None:
        self.api = api
        self.strict = strict
        self.report = Report(filename)
        self.module = module
        self.package = package
        self.project = project if project is not None else _Project()
        self.imports: dict[str, Kind] = {}
        self.module_env: dict[str, Kind] = {}
        self.classes: dict[str, _ClassInfo] = self.project.classes
        #: The members each attribute node resolved to (to tell a called property from a method).
        self.used: dict[int, list[ApiMember]] = {}
        self.env: dict[str, Kind] = {}
        self.fixed: set[str] = set()
        self.self_class: _ClassInfo | None = None
        self.self_name: str | None = None
        #: Names bound to the expression builder (``from wpfprobe_clr.net import expr as E``): see ``expression``.
        self.expr_aliases: set[str] = set()

    # -- reporting

    def problem(self, node: ast.AST, message: str) -> None:
        self.report.problems.append(
            Problem(self.report.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1, message)
        )

    def verified(self, member: ApiMember | str) -> None:
        self.report.references += 1
        if isinstance(member, ApiMember):
            self.report.members.add(f"{member.declaring_type}.{member.name}")
        else:
            self.report.members.add(member)

    # -- entry

    def run(self, tree: ast.Module) -> Report:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.import_(node)
        self.declare_scope(tree.body, self.module_env)
        self.env = self.module_env
        deferred: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, _ClassInfo | None]] = []
        self.block(tree.body, deferred)
        for fn, cls in deferred:
            self.function(fn, dict(self.module_env), cls)
        return self.report

    # -- imports

    def import_(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == EXPR_MODULE and alias.asname:
                    self.expr_aliases.add(alias.asname)
                if alias.name.startswith(("System.Windows", "System.Xaml")) and not alias.name.startswith(
                    "System.Windows.Forms"
                ):
                    self.problem(node, f"import WPF types by name (from {alias.name} import T), not the namespace")
                bound = alias.asname or alias.name.split(".")[0]
                self.imports[bound] = Opaque(f"module {(alias.asname and alias.name) or bound}")
            return
        module = node.module or ""
        self.expr_aliases.update(
            alias.asname or alias.name for alias in node.names if f"{module}.{alias.name}" == EXPR_MODULE
        )
        if node.level or not module.startswith(("System", "Microsoft")):
            source = _absolute_module(self.package, node)
            for alias in node.names:
                self.imports[alias.asname or alias.name] = self.import_python(node, source, alias.name)
            return
        for alias in node.names:
            if alias.name == "*":
                if _is_wpf_namespace(module):
                    self.problem(node, f"import WPF types by name, not with *: from {module} import *")
                continue
            full = f"{module}.{alias.name}"
            bound = alias.asname or alias.name
            resolved = full if full in self.api.types else None
            if resolved is None:
                generic = [t for t in self.api.types if t.startswith(full + "`") and "+" not in t]
                resolved = generic[0] if generic else None
            if resolved is not None:
                self.imports[bound] = WpfTypeRef(resolved)
                self.report.types.add(resolved)
            elif _is_wpf_namespace(full) and full in self.api.namespaces:
                self.problem(node, f"import WPF types by name (from {full} import T), not the namespace {full}")
                self.imports[bound] = UNKNOWN
            elif _is_wpf_namespace(module):
                if full in self.api.namespaces:
                    self.problem(node, f"import WPF types by name (from {full} import T), not the namespace {full}")
                else:
                    self.problem(node, f"unknown WPF type {full}{self.api.suggest_type(module, alias.name)}")
                self.imports[bound] = UNKNOWN
            else:
                self.imports[bound] = Opaque(f"BCL {full}")

    def import_python(self, node: ast.ImportFrom, module: str | None, name: str) -> Kind:
        """A Python name: its kind in the project's module ``module`` if it is one, else unchecked."""
        if module is None or module not in self.project.names:
            return Opaque(f"python {module}.{name}")
        if f"{module}.{name}" in self.project.names:
            return Opaque(f"module {module}.{name}")  # a submodule, imported from its package
        if name not in self.project.names[module]:
            self.problem(node, f"{module} has no name '{name}' to import (it would fail only on Windows)")
            return UNKNOWN
        checker = self.project.checkers.get(module)
        if checker is None:
            return UNKNOWN  # an import cycle: unknown, so members used on it are refused, not passed
        return checker.exported(name)

    def exported(self, name: str) -> Kind:
        """What another module gets when it imports ``name`` from this one."""
        if name in self.module_env:
            return self.module_env[name]
        return self.imports.get(name, UNKNOWN)

    def qual(self, name: str) -> str:
        """The key of a class defined in this module."""
        return f"{self.module}.{name}" if self.module else name

    def class_attr(self, key: str, name: str) -> Kind | None:
        """An attribute of a project class, looked up through its project bases (depth first, like a simple MRO)."""
        seen: set[str] = set()
        pending = [key]
        while pending:
            current = pending.pop(0)
            if current in seen:
                continue
            seen.add(current)
            info = self.classes.get(current)
            if info is None:
                continue
            if name in info.attrs:
                return info.attrs[name]
            pending[:0] = info.bases
        return None

    # -- scopes

    def declare_scope(self, body: list[ast.stmt], env: dict[str, Kind]) -> None:
        """Functions and classes defined in a body, known before any statement runs."""
        classes = [s for s in body if isinstance(s, ast.ClassDef)]
        for cls in classes:
            # Names first, so annotations can refer to classes defined further down.
            env[cls.name] = PyClass(self.qual(cls.name))
            self.classes.setdefault(self.qual(cls.name), _ClassInfo(self.qual(cls.name)))
        for cls in classes:
            self.class_info(cls)
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                env[stmt.name] = PyFunction(self.annotation(stmt.returns))

    def class_info(self, node: ast.ClassDef) -> _ClassInfo:
        info = _ClassInfo(self.qual(node.name))
        self.classes[info.name] = info
        for base in node.bases:
            if isinstance(base, ast.Name):
                bound = self.lookup(base.id)
                if isinstance(bound, PyClass):
                    info.bases.append(bound.name)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                info.attrs[stmt.target.id] = self.annotation(stmt.annotation)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        info.attrs.setdefault(target.id, OPAQUE)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                is_property = any(isinstance(d, ast.Name) and d.id == "property" for d in stmt.decorator_list)
                returns = self.annotation(stmt.returns)
                info.attrs[stmt.name] = returns if is_property else PyFunction(returns)
                if stmt.args.args:
                    me = stmt.args.args[0].arg
                    for sub in ast.walk(stmt):
                        if (
                            isinstance(sub, ast.AnnAssign)
                            and isinstance(sub.target, ast.Attribute)
                            and isinstance(sub.target.value, ast.Name)
                            and sub.target.value.id == me
                        ):
                            info.attrs[sub.target.attr] = self.annotation(sub.annotation)
        return info

    def lookup(self, name: str) -> Kind:
        if name in self.env:
            return self.env[name]
        if name in self.module_env:
            return self.module_env[name]
        return self.imports.get(name, UNKNOWN)

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        env: dict[str, Kind],
        cls: _ClassInfo | None,
    ) -> None:
        saved = (self.env, self.fixed, self.self_class, self.self_name)
        self.env = env
        self.fixed = set()
        self.self_class, self.self_name = None, None
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        decorators = getattr(node, "decorator_list", [])
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)
        for i, arg in enumerate([*positional, *args.kwonlyargs]):
            if cls is not None and i == 0 and not is_static and arg in positional:
                self.self_class, self.self_name = cls, arg.arg
                self.env[arg.arg] = PyInstance(cls.name)
                continue
            self.env[arg.arg] = self.annotation(arg.annotation)
            if arg.annotation is not None:
                self.fixed.add(arg.arg)
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                self.env[extra.arg] = UNKNOWN
        for default in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.expr(default)
        if isinstance(node, ast.Lambda):
            self.expr(node.body)
        else:
            self.declare_scope(node.body, self.env)
            deferred: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, _ClassInfo | None]] = []
            self.block(node.body, deferred)
            for fn, inner_cls in deferred:
                self.function(fn, {**self.env}, inner_cls)
        self.env, self.fixed, self.self_class, self.self_name = saved

    # -- annotations

    def annotation(self, node: ast.expr | None) -> Kind:
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.annotation(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return UNKNOWN
        if isinstance(node, ast.Name):
            bound = self.imports.get(node.id) or self.module_env.get(node.id)
            if isinstance(bound, WpfTypeRef):
                return WpfValue(bound.name)
            if isinstance(bound, PyClass):
                return PyInstance(bound.name)
            if self.qual(node.id) in self.classes:
                return PyInstance(self.qual(node.id))
            if isinstance(bound, Opaque) and node.id not in ("Any", "object"):
                return OPAQUE  # a BCL type, or a Python class imported from elsewhere
            return UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [s for s in (node.left, node.right) if not (isinstance(s, ast.Constant) and s.value is None)]
            return self.annotation(sides[0]) if len(sides) == 1 else UNKNOWN
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            if node.value.id == "Optional":
                return self.annotation(node.slice)
            if node.value.id == "Union" and isinstance(node.slice, ast.Tuple):
                sides = [s for s in node.slice.elts if not (isinstance(s, ast.Constant) and s.value is None)]
                return self.annotation(sides[0]) if len(sides) == 1 else UNKNOWN
        return UNKNOWN

    # -- statements

    def block(
        self,
        body: list[ast.stmt],
        deferred: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, _ClassInfo | None]],
    ) -> None:
        for stmt in body:
            self.stmt(stmt, deferred)

    def bind(self, target: ast.expr, kind: Kind) -> None:
        if isinstance(target, ast.Name):
            if target.id not in self.fixed:
                self.env[target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self.bind(elt, UNKNOWN)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN)
        elif isinstance(target, ast.Attribute):
            self.attribute(target, store="assign")
        elif isinstance(target, ast.Subscript):
            self.expr(target.value)
            self.expr(target.slice)

    def stmt(
        self,
        node: ast.stmt,
        deferred: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, _ClassInfo | None]],
    ) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                self.expr(d)
            deferred.append((node, None))
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                self.expr(base)
            info = self.classes.get(self.qual(node.name)) or self.class_info(node)
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for d in sub.decorator_list:
                        self.expr(d)
                    deferred.append((sub, info))
                elif isinstance(sub, ast.AnnAssign):
                    if sub.value is not None:
                        self.expr(sub.value)
                elif isinstance(sub, ast.Assign):
                    self.expr(sub.value)
                elif isinstance(sub, ast.ClassDef):
                    self.stmt(sub, deferred)
        elif isinstance(node, ast.Assign):
            kind = self.expr(node.value)
            for target in node.targets:
                self.bind(target, kind)
        elif isinstance(node, ast.AnnAssign):
            declared = self.annotation(node.annotation)
            if node.value is not None:
                self.expr(node.value)
            if isinstance(node.target, ast.Name):
                self.env[node.target.id] = declared
                self.fixed.add(node.target.id)
            elif isinstance(node.target, ast.Attribute):
                if not (isinstance(node.target.value, ast.Name) and node.target.value.id == self.self_name):
                    self.attribute(node.target, store="assign")
            else:
                self.expr(node.target)
        elif isinstance(node, ast.AugAssign):
            self.expr(node.value)
            if isinstance(node.target, ast.Attribute):
                self.attribute(node.target, store="augment")
            elif isinstance(node.target, ast.Subscript):
                self.expr(node.target)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.expr(node.iter)
            self.bind(node.target, UNKNOWN)
            self.block(node.body, deferred)
            self.block(node.orelse, deferred)
        elif isinstance(node, ast.While):
            self.expr(node.test)
            with self.narrowed(self.narrowings(node.test)):
                self.block(node.body, deferred)
            self.block(node.orelse, deferred)
        elif isinstance(node, ast.If):
            self.if_(node, deferred)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, UNKNOWN)
            self.block(node.body, deferred)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self.block(node.body, deferred)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                if handler.type is not None:
                    self.expr(handler.type)
                if handler.name:
                    self.env[handler.name] = UNKNOWN
                self.block(handler.body, deferred)
            self.block(node.orelse, deferred)  # type: ignore[attr-defined]
            self.block(node.finalbody, deferred)  # type: ignore[attr-defined]
        elif isinstance(
            node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue)
        ):
            return
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child)
                elif isinstance(child, ast.stmt):
                    self.stmt(child, deferred)
                elif isinstance(child, ast.match_case):
                    self.block(child.body, deferred)

    def if_(
        self,
        node: ast.If,
        deferred: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, _ClassInfo | None]],
    ) -> None:
        self.expr(node.test)
        positive = self.narrowings(node.test)
        negative = self.narrowings(node.test.operand) if _is_not(node.test) else {}  # type: ignore[attr-defined]
        with self.narrowed(positive):
            self.block(node.body, deferred)
        with self.narrowed(negative):
            self.block(node.orelse, deferred)
        if (
            negative
            and not node.orelse
            and node.body
            and isinstance(node.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
        ):
            # `if not isinstance(x, T): return` narrows x for the rest of the block.
            self.env.update(negative)

    def narrowings(self, test: ast.expr) -> dict[str, Kind]:
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            merged: dict[str, Kind] = {}
            for value in test.values:
                merged.update(self.narrowings(value))
            return merged
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)
            and isinstance(test.args[1], ast.Name)
        ):
            bound = self.lookup(test.args[1].id)
            if isinstance(bound, WpfTypeRef):
                return {test.args[0].id: WpfValue(bound.name)}
            if isinstance(bound, PyClass):
                return {test.args[0].id: PyInstance(bound.name)}
            if isinstance(bound, Opaque):
                return {test.args[0].id: OPAQUE}
        return {}

    class _Narrowed:
        def __init__(self, checker: _Checker, names: dict[str, Kind]) -> None:
            self.checker = checker
            self.names = names
            self.saved: dict[str, Kind | None] = {}

        def __enter__(self) -> None:
            for name, kind in self.names.items():
                self.saved[name] = self.checker.env.get(name)
                self.checker.env[name] = kind

        def __exit__(self, *exc: object) -> None:
            for name, previous in self.saved.items():
                if previous is None:
                    self.checker.env.pop(name, None)
                else:
                    self.checker.env[name] = previous

    def narrowed(self, names: dict[str, Kind]) -> _Checker._Narrowed:
        return _Checker._Narrowed(self, names)

    # -- expressions

    def expr(self, node: ast.expr) -> Kind:
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Lambda):
            self.function(node, {**self.env}, None)
            return UNKNOWN
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node)
        if isinstance(node, ast.BoolOp):
            applied: dict[str, Kind] = {}
            for value in node.values:
                with self.narrowed(applied):
                    self.expr(value)
                if isinstance(node.op, ast.And):
                    applied = {**applied, **self.narrowings(value)}
                elif _is_not(value):
                    # `not isinstance(x, T) or x.Member`: the right side sees x as T.
                    applied = {**applied, **self.narrowings(value.operand)}  # type: ignore[attr-defined]
            return UNKNOWN
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            with self.narrowed(self.narrowings(node.test)):
                body = self.expr(node.body)
            orelse = self.expr(node.orelse)
            return body if body == orelse else UNKNOWN
        if isinstance(node, ast.NamedExpr):
            kind = self.expr(node.value)
            self.bind(node.target, kind)
            return kind
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
        return UNKNOWN

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Kind:
        saved_env, saved_fixed = self.env, self.fixed
        self.env, self.fixed = {**self.env}, set(self.fixed)
        try:
            for gen in node.generators:
                self.expr(gen.iter)
                self.bind(gen.target, UNKNOWN)
                for cond in gen.ifs:
                    self.expr(cond)
                    self.env.update(self.narrowings(cond))
            if isinstance(node, ast.DictComp):
                self.expr(node.key)
                self.expr(node.value)
            else:
                self.expr(node.elt)
        finally:
            self.env, self.fixed = saved_env, saved_fixed
        return UNKNOWN

    def subscript(self, node: ast.Subscript) -> Kind:
        base = self.expr(node.value)
        self.expr(node.slice)
        if isinstance(base, WpfMethod):
            return WpfMethod(base.owner, base.name, base.overloads, generic=True)
        if isinstance(base, WpfTypeRef):
            return base
        if isinstance(base, WpfValue):
            indexers, _ = self.api.find_members(base.name, "Item")
            for member in indexers:
                self.verified(member)
                return self.value_kind(member)
            return UNKNOWN
        if isinstance(base, Opaque):
            return OPAQUE
        return UNKNOWN

    def call(self, node: ast.Call) -> Kind:
        self.expression(node)
        func = self.expr(node.func)
        self.check_callable(node)
        for arg in node.args:
            self.expr(arg.value if isinstance(arg, ast.Starred) else arg)
        for kw in node.keywords:
            self.expr(kw.value)
        countable = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        n_args = len(node.args)
        if isinstance(func, WpfTypeRef):
            return self.construct(node, func.name, n_args if countable else None)
        if isinstance(func, WpfMethod):
            matching = list(func.overloads)
            if countable and not func.generic:
                matching = [m for m in func.overloads if _fits(m, n_args)]
                if not matching:
                    counts = sorted({_arity_text(m) for m in func.overloads})
                    self.problem(
                        node,
                        f"{_short(func.owner)}.{func.name} takes {' or '.join(counts)} argument(s), not {n_args}",
                    )
                    return UNKNOWN
            kinds = {self.value_kind(m) for m in matching}
            return kinds.pop() if len(kinds) == 1 else UNKNOWN
        if isinstance(func, PyFunction):
            return func.returns
        if isinstance(func, PyClass):
            return PyInstance(func.name)
        if isinstance(func, Opaque):
            return OPAQUE
        return UNKNOWN

    def expression(self, node: ast.Call) -> None:
        """A WPF member named by a string in an expression builder call, where its owner type is in sight.

        ``E.method(T, "M", *parameter_types)`` and ``E.static_call(T, "M", *args)``
        name a method of T (a static one for static_call); ``E.prop(E.convert(x, T), "M")``
        an instance property or field of T, ``E.call(E.convert(x, T), "M", *args)`` an
        instance method. Other builder calls (a BCL type, an expression of unknown type)
        are not WPF's to check.
        """
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return
        if func.value.id not in self.expr_aliases or func.attr not in EXPR_MEMBER_HELPERS:
            return
        if len(node.args) < 2 or any(isinstance(a, ast.Starred) for a in node.args):
            return
        owner, name = node.args[0], node.args[1]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return
        if func.attr in ("prop", "call"):
            if not (
                isinstance(owner, ast.Call)
                and isinstance(owner.func, ast.Attribute)
                and isinstance(owner.func.value, ast.Name)
                and owner.func.value.id in self.expr_aliases
                and owner.func.attr == "convert"
                and len(owner.args) == 2
            ):
                return
            owner = owner.args[1]
        kind = self.lookup(owner.id) if isinstance(owner, ast.Name) else UNKNOWN
        if not isinstance(kind, WpfTypeRef):
            return
        type_name, member = kind.name, name.value
        wanted = {"method": ("method",), "static_call": ("method",), "call": ("method",)}.get(
            func.attr, ("property", "field")
        )
        members, left = self.api.find_members(type_name, member)
        public = [m for m in members if m.is_public and m.kind in wanted]
        if func.attr == "static_call":
            public = [m for m in public if m.is_static]
        elif func.attr in ("prop", "call"):
            public = [m for m in public if not m.is_static]
        if not public:
            if left is not None and member in BCL_BASE_MEMBERS.get(left, frozenset()):
                self.verified(f"{left}.{member}")
                return
            what = {"static_call": "static method", "method": "method", "call": "instance method"}.get(
                func.attr, "instance property or field"
            )
            close = difflib.get_close_matches(member, sorted(self.api.member_names(type_name)), n=3)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            self.problem(node, f"{type_name} has no public {what} '{member}' (named in an expression){hint}")
            return
        n_args = len(node.args) - 2
        if "method" in wanted and not any(_fits(m, n_args) for m in public):
            counts = sorted({_arity_text(m) for m in public})
            self.problem(
                node,
                f"{_short(type_name)}.{member} takes {' or '.join(counts)} argument(s), not {n_args} (in an expression)",
            )
            return
        self.verified(public[0])

    def check_callable(self, node: ast.Call) -> None:
        """A property, field, event or enum value called like a method fails at run time: say so."""
        members = self.used.get(id(node.func)) if isinstance(node.func, ast.Attribute) else None
        if not members or any(m.kind in ("method", "ctor") for m in members):
            return
        if any(self.may_be_callable(m) for m in members):
            return
        member = members[0]
        how = "subscribe with +=" if member.kind == "event" else "read it without ()"
        self.problem(
            node,
            f"{_short(member.declaring_type)}.{member.name} is a{'n' if member.kind[0] in 'aeiou' else ''} "
            f"{member.kind}, not a method: it cannot be called ({how})",
        )

    def may_be_callable(self, member: ApiMember) -> bool:
        """Whether the value a property, field or indexer holds could be a delegate."""
        if member.kind not in ("property", "field", "indexer"):
            return False
        declared, _ = _signature_parts(member)
        if declared is None:
            return True
        declared = declared.rstrip("?")
        if declared in _CSHARP_KEYWORD_TYPES:
            return declared in ("object", "dynamic")
        if declared.endswith("]"):
            return False  # an array
        resolved = self.api.resolve_signature_type(declared)
        if resolved is not None:
            return self.api.types[resolved].kind == "delegate"
        return True  # a BCL type (System.Action...) or a generic parameter: not known here

    def construct(self, node: ast.Call, type_name: str, n_args: int | None) -> Kind:
        t = self.api.types[type_name]
        if t.kind == "delegate":
            self.verified(f"{type_name}.ctor")
            return WpfValue(type_name)
        if t.kind == "interface" and n_args == 1:
            # pythonnet's interface cast, IInvokeProvider(provider): the value seen through
            # the interface, whose members are then checked like any other type's. It is the
            # only way to reach members a class implements explicitly (automation peers do).
            self.verified(f"{type_name}.cast")
            return WpfValue(type_name)
        if t.kind == "interface":
            self.problem(
                node,
                f"{type_name} is an interface: it cannot be constructed; "
                f"{_short(type_name)}(value) casts exactly one value to it",
            )
            return WpfValue(type_name)
        if t.kind == "enum" or t.is_static:
            what = "a static class" if t.is_static else f"an {t.kind}"
            self.problem(node, f"{type_name} is {what}: it cannot be constructed")
            return WpfValue(type_name)
        short_name = type_name.rsplit(".", 1)[-1].rsplit("+", 1)[-1].split("`", 1)[0]
        ctors = t.members.get(short_name, [])
        ctors = [c for c in ctors if c.kind == "ctor"]
        public = [c for c in ctors if c.is_public]
        if not public and not (t.kind == "struct" and not ctors):
            self.problem(node, f"{type_name} has no public constructor")
            return WpfValue(type_name)
        if n_args is not None:
            if t.kind == "struct" and n_args == 0:
                pass  # a struct always has its default constructor
            elif not any(_fits(c, n_args) for c in public):
                counts = sorted({_arity_text(c) for c in public})
                self.problem(node, f"{_short(type_name)}(...) takes {' or '.join(counts)} argument(s), not {n_args}")
                return WpfValue(type_name)
        self.verified(f"{type_name}.ctor")
        return WpfValue(type_name)

    def value_kind(self, member: ApiMember) -> Kind:
        """What reading a property/field or calling a method gives, from the declared type."""
        if member.kind == "enumvalue":
            return WpfValue(member.declaring_type)
        if member.kind == "event":
            return OPAQUE
        declared, _ = _signature_parts(member)
        if declared is None:
            return UNKNOWN
        declared = declared.rstrip("?")
        if declared.endswith("]") or declared in _CSHARP_KEYWORD_TYPES:
            return UNKNOWN if declared in _CSHARP_KEYWORD_TYPES else OPAQUE
        resolved = self.api.resolve_signature_type(declared)
        if resolved is not None:
            return WpfValue(resolved)
        if declared.startswith(("System.", "Microsoft.")):
            return OPAQUE
        return UNKNOWN  # a generic parameter (T, TResult)

    def attribute(self, node: ast.Attribute, store: str | None = None) -> Kind:
        if (
            isinstance(node.value, ast.Name)
            and node.value.id == self.self_name
            and self.self_class is not None
            and node.value.id not in self.fixed
        ):
            if store is None:
                found = self.class_attr(self.self_class.name, node.attr)
                return OPAQUE if found is None else found
            return OPAQUE
        receiver = self.expr(node.value)
        name = node.attr
        if isinstance(receiver, WpfTypeRef):
            return self.static_member(node, receiver.name, name, store)
        if isinstance(receiver, WpfValue):
            return self.instance_member(node, receiver.name, name, store)
        if isinstance(receiver, PyInstance):
            found = self.class_attr(receiver.name, name)
            return OPAQUE if found is None else found
        if isinstance(receiver, Opaque):
            if receiver.what == "module System" and name == "Windows":
                self.problem(
                    node, "import WPF types by name (from System.Windows... import T), not through System.Windows"
                )
            return OPAQUE
        if isinstance(receiver, (WpfMethod, PyFunction, PyClass)):
            return OPAQUE
        # Unknown receiver.
        if name in OBJECT_INSTANCE_MEMBERS:
            return OPAQUE if name == "GetType" else UNKNOWN
        if self.strict and name[:1].isupper():
            what = ast.unparse(node.value)
            self.problem(
                node,
                f"cannot verify .{name}: the type of '{what}' is unknown; annotate it with its WPF "
                f"type (or a BCL type) or narrow it with isinstance",
            )
        return UNKNOWN

    def static_member(self, node: ast.Attribute, type_name: str, name: str, store: str | None) -> Kind:
        nested = self.api.nested_type(type_name, name)
        if nested is not None and store is None:
            self.verified(nested)
            return WpfTypeRef(nested)
        members, left = self.api.find_members(type_name, name)
        if not members:
            if name in OBJECT_STATIC_MEMBERS and store is None:
                return OPAQUE
            return self.missing(node, type_name, name, left, static=True)
        public = [m for m in members if m.is_public]
        if not public:
            self.problem(node, f"{_short(type_name)}.{name} is protected on {members[0].declaring_type}")
            return UNKNOWN
        statics = [m for m in public if m.is_static]
        if not statics:
            self.problem(
                node,
                f"{_short(type_name)}.{name} is an instance {public[0].kind} of {public[0].declaring_type}: "
                "use it on an instance, not on the type",
            )
            return UNKNOWN
        return self.use(node, type_name, name, statics, store)

    def instance_member(self, node: ast.Attribute, type_name: str, name: str, store: str | None) -> Kind:
        members, left = self.api.find_members(type_name, name)
        if not members:
            if name in OBJECT_INSTANCE_MEMBERS and store is None:
                return OPAQUE if name == "GetType" else UNKNOWN
            return self.missing(node, type_name, name, left, static=False)
        public = [m for m in members if m.is_public]
        if not public:
            self.problem(node, f".{name} is protected on {members[0].declaring_type}")
            return UNKNOWN
        instances = [m for m in public if not m.is_static and m.kind not in ("ctor", "enumvalue")]
        if not instances:
            self.problem(
                node,
                f".{name} is a static {public[0].kind} of {public[0].declaring_type}: use "
                f"{_short(public[0].declaring_type)}.{name}, not an instance of {_short(type_name)}",
            )
            return UNKNOWN
        return self.use(node, type_name, name, instances, store)

    def use(self, node: ast.Attribute, type_name: str, name: str, members: list[ApiMember], store: str | None) -> Kind:
        kinds = {m.kind for m in members}
        if store == "assign" and not kinds & {"property", "field"}:
            self.problem(node, f"{_short(type_name)}.{name} is a {members[0].kind}: it cannot be assigned")
            return UNKNOWN
        if store == "augment" and not kinds & {"property", "field", "event"}:
            self.problem(node, f"{_short(type_name)}.{name} is a {members[0].kind}: += needs an event")
            return UNKNOWN
        self.verified(members[0])
        if kinds == {"method"}:
            return WpfMethod(type_name, name, tuple(members))
        if store is None:
            self.used[id(node)] = members
        results = {self.value_kind(m) for m in members if m.kind != "method"}
        return results.pop() if len(results) == 1 else UNKNOWN

    def missing(self, node: ast.Attribute, type_name: str, name: str, left: str | None, *, static: bool) -> Kind:
        if left is not None and name in BCL_BASE_MEMBERS.get(left, frozenset()):
            self.verified(f"{left}.{name}")
            return OPAQUE
        close = difflib.get_close_matches(name, sorted(self.api.member_names(type_name)), n=3)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        elsewhere = ""
        owners = sorted({t for t, info in self.api.types.items() if name in info.members})
        if owners:
            listed = ", ".join(owners[:3]) + (f" and {len(owners) - 3} more" if len(owners) > 3 else "")
            elsewhere = f"; it is declared on {listed}, which {_short(type_name)} does not derive from"
        beyond = f"; if it is inherited from the BCL base {left}, list it in BCL_BASE_MEMBERS" if left else ""
        self.problem(node, f"{type_name} has no {'static ' if static else ''}member '{name}'{hint}{elsewhere}{beyond}")
        return UNKNOWN


def _absolute_module(package: str | None, node: ast.ImportFrom) -> str | None:
    """The module an import names, a relative one resolved in ``package`` (None if it cannot be)."""
    if not node.level:
        return node.module
    if not package:
        return None
    parts = package.split(".")
    if node.level - 1 >= len(parts):
        return None
    base = ".".join(parts[: len(parts) - (node.level - 1)])
    return f"{base}.{node.module}" if node.module else base


def _package_of(path: Path, module: str) -> str:
    """The package relative imports in ``path`` start from: the module itself for an __init__.py."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _is_not(test: ast.expr) -> bool:
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)


def _short(type_name: str) -> str:
    return type_name.rsplit(".", 1)[-1]


def _fits(member: ApiMember, n_args: int) -> bool:
    if member.kind not in ("method", "ctor"):
        return True
    low, high = _arity(_signature_parts(member)[1])
    return low <= n_args <= high


def _arity_text(member: ApiMember) -> str:
    low, high = _arity(_signature_parts(member)[1])
    if high == float("inf"):
        return f"{low}+"
    return str(low) if low == high else f"{low}-{int(high)}"


# --------------------------------------------------------------------------- public entry points


def api_candidates() -> list[Path]:
    """Where the tsv is looked for, in order: $WPFPROBE_WPF_API, ../shared, tests/data."""
    found: list[Path] = []
    env = os.environ.get(ENV_VAR)
    if env:
        found.append(Path(env))
    found.append(REPO_ROOT.parent / "shared" / "wpf-api" / "wpf-api.tsv")
    found.append(REPO_ROOT / "tests" / "data" / "wpf-api.tsv")
    return found


def find_api_file() -> Path:
    candidates = api_candidates()
    for path in candidates:
        if path.is_file():
            return path
    tried = "\n  ".join(str(p) for p in candidates)
    raise FileNotFoundError(
        f"wpf-api.tsv (the public WPF API surface) was not found; tried:\n  {tried}\n"
        f"Set {ENV_VAR} to its path, or restore tests/data/wpf-api.tsv."
    )


@lru_cache(maxsize=4)
def load_api(path: Path | None = None) -> WpfApi:
    return WpfApi.load(path or find_api_file())


def check_source(source: str, api: WpfApi, *, filename: str = "<source>", strict: bool = True) -> Report:
    tree = ast.parse(source, filename=filename)
    return _Checker(api, filename, strict).run(tree)


def check_file(path: Path | str, api: WpfApi, *, strict: bool = True) -> Report:
    (report,) = check_files([path], api, strict=strict)
    return report


def check_files(paths: Iterable[Path | str], api: WpfApi, *, strict: bool = True) -> list[Report]:
    """One report per file, the files checked together (see ``_Project``): in the order given."""
    files = [Path(p) for p in paths]
    trees: dict[str, tuple[Path, ast.Module]] = {}
    project = _Project()
    for path in files:
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        trees[module] = (path, tree)
        project.names[module] = _top_level_names(tree.body)
    reports: dict[str, Report] = {}
    for module in _import_order(trees, project):
        path, tree = trees[module]
        checker = _Checker(api, str(path), strict, module=module, package=_package_of(path, module), project=project)
        reports[module] = checker.run(tree)
        project.checkers[module] = checker
    by_path = {Path(r.filename): r for r in reports.values()}
    return [by_path[path] for path in files]


def package_files(package: Path) -> list[Path]:
    """Every module of a package, subpackages included, in a stable order."""
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def check_package(package: Path | str, api: WpfApi, *, strict: bool = True) -> list[Report]:
    return check_files(package_files(Path(package)), api, strict=strict)


def combined(name: str, reports: Iterable[Report]) -> Report:
    """The reports of several files as one: what a package as a whole uses."""
    total = Report(name)
    for report in reports:
        total.problems.extend(report.problems)
        total.references += report.references
        total.members |= report.members
        total.types |= report.types
    return total


def _module_name(path: Path) -> str:
    """The dotted module name of a file, from the packages (folders with __init__.py) it is in."""
    path = path.resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.stem


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    """Every name a module binds at its top level, also inside if/try/with blocks (not in functions)."""
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                statements = [s for s in inner if isinstance(s, ast.stmt)]
                statements += [s for h in inner if isinstance(h, ast.ExceptHandler) for s in h.body]
                names |= _top_level_names(statements)
    return names


def _import_order(trees: dict[str, tuple[Path, ast.Module]], project: _Project) -> list[str]:
    """Modules ordered so that each runs after the project modules it imports (cycles: as given)."""
    depends: dict[str, set[str]] = {}
    for module, (path, tree) in trees.items():
        needs: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute_module(_package_of(path, module), node)
                if source in trees:
                    needs.add(source)
                needs.update(f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in trees)
        depends[module] = needs - {module}
    order: list[str] = []
    visiting: set[str] = set()

    def visit(module: str) -> None:
        if module in order or module in visiting:
            return
        visiting.add(module)
        for needed in sorted(depends[module]):
            visit(needed)
        visiting.discard(module)
        order.append(module)

    for module in trees:
        visit(module)
    return order


def _iter_reports(paths: Iterable[str], api: WpfApi) -> Iterator[Report]:
    files: list[Path] = []
    for p in paths:
        files.extend(package_files(Path(p)) if Path(p).is_dir() else [Path(p)])
    yield from check_files(files, api)


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print(__doc__)
        return 2
    api = load_api()
    failed = False
    for report in _iter_reports(paths, api):
        print(report)
        failed = failed or bool(report.problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
