"""SPEC section 6 redaction: names, declared types, runtime types, password boxes, and getters never run."""

from __future__ import annotations

import json

import pytest
from fake_toolkit import (
    API_KEY,
    PASSWORD,
    PIN,
    FakeApp,
    FakeElement,
    FakeProp,
    Harness,
    by_name,
    harness,
)

from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Target

#: Copied from SPEC section 6 on purpose: the test must fail if the engine drops one.
SPEC_KEYWORDS = [
    "password", "passwd", "pwd", "secret", "apikey", "connectionstring", "connstr", "credential",
    "privatekey", "sharedkey", "cookie", "sessionkey", "authorization", "authtoken", "authkey",
    "accesstoken", "bearertoken", "refreshtoken", "sessiontoken", "sastoken", "jwttoken",
]  # fmt: skip

SECRET_VALUE = "s3cr3t-value"
WIDGET = Target(locators=("#widget",))


def alternating_case(word: str) -> str:
    return "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(word))


def split_with(word: str, sep: str) -> str:
    mid = len(word) // 2
    return word[:mid].capitalize() + sep + word[mid:].capitalize()


VARIANTS = {
    "mixed-case": lambda kw: "My" + alternating_case(kw) + "Value",
    "upper": lambda kw: kw.upper(),
    "underscore": lambda kw: split_with(kw, "_"),
    "dash": lambda kw: "x-" + split_with(kw, "-"),
}


def widget_app(*props: FakeProp) -> FakeApp:
    widget = FakeElement("Widget", "widget", common_props=False, props=[FakeProp("Plain", value="visible"), *props])
    return FakeApp(FakeElement("Window", "w", children=[widget]))


def all_rows(h: Harness, target: Target) -> dict[str, object]:
    page = h.engine.properties(target, include_defaults=True, take=200)
    assert not page.has_more
    return {p.name: p for p in page.items}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("keyword", SPEC_KEYWORDS)
def test_every_keyword_is_redacted(keyword: str, variant: str) -> None:
    name = VARIANTS[variant](keyword)
    secret = FakeProp(name, "System.String", SECRET_VALUE)
    with harness(widget_app(secret)) as h:
        rows = all_rows(h, WIDGET)
        row = rows[name]
        assert row.value == REDACTED, name  # type: ignore[attr-defined]
        assert row.is_redacted is True  # type: ignore[attr-defined]
        assert rows["Plain"].value == "visible"  # type: ignore[attr-defined]
        assert h.engine.property(WIDGET, name).value == REDACTED
        tree = h.engine.tree(WIDGET, include_properties=[name])
        assert tree.root.properties == {name: REDACTED}
        assert secret.calls == 0


def test_api_key_with_separator_is_redacted() -> None:
    secret = FakeProp("Api_Key", "System.String", SECRET_VALUE)
    with harness(widget_app(secret)) as h:
        assert h.engine.property(WIDGET, "Api_Key").value == REDACTED
        assert secret.calls == 0


@pytest.mark.parametrize(
    "name", ["Auth", "Token", "TokenizerMode", "Author", "AuthenticationMode", "TokenCount", "Session", "Key"]
)
def test_look_alikes_are_not_redacted(name: str) -> None:
    prop = FakeProp(name, "System.String", "shown")
    with harness(widget_app(prop)) as h:
        row = h.engine.property(WIDGET, name)
        assert row.value == "shown" and row.is_redacted is False
        assert prop.calls == 1


@pytest.mark.parametrize(
    "type_name",
    [
        "System.Security.SecureString",
        "System.Net.NetworkCredential",
        "System.Data.SqlClient.SqlConnectionStringBuilder",
        "Microsoft.Data.SqlClient.SqlConnectionStringBuilder",
        "System.Data.Common.DbConnectionStringBuilder",
        "System.Security.SecureString, mscorlib, Version=4.0.0.0, Culture=neutral",
    ],
)
def test_secret_declared_types_are_redacted(type_name: str) -> None:
    prop = FakeProp("Blob", type_name, SECRET_VALUE)
    with harness(widget_app(prop)) as h:
        row = all_rows(h, WIDGET)["Blob"]
        assert row.value == REDACTED and row.is_redacted is True  # type: ignore[attr-defined]
        assert h.engine.property(WIDGET, "Blob").value == REDACTED
        assert prop.calls == 0


def test_secure_string_behind_an_object_property_is_redacted(fake: Harness) -> None:
    target = Target(locators=("#connection",))
    row = fake.engine.property(target, "Payload")
    assert row.value == REDACTED and row.is_redacted is True
    assert all_rows(fake, target)["Payload"].value == REDACTED  # type: ignore[attr-defined]
    tree = fake.engine.tree(target, include_properties=["Payload"])
    assert tree.root.properties == {"Payload": REDACTED}
    assert "hunter-payload" not in tree.model_dump_json()


def test_secret_runtime_type_as_element_text_is_redacted() -> None:
    label = FakeElement("Label", "credLabel", text="user:hunter-cred")
    label.text_prop.runtime_type = "System.Net.NetworkCredential"  # type: ignore[union-attr]
    with harness(FakeApp(FakeElement("Window", "w", children=[label]))) as h:
        node = h.engine.node(Target(locators=("#credLabel",)))
        assert node.text == REDACTED


def test_password_box_text_is_redacted_everywhere(fake: Harness) -> None:
    outputs = []
    for name, secret_prop in (("passwordBox", "Password"), ("pinBox", "Text")):
        target = Target(locators=(f"#{name}",))
        node = fake.engine.node(target)
        assert node.text == REDACTED
        found = fake.engine.find(name=name).results[0].node
        assert found.text == REDACTED
        assert fake.engine.inspect(target).node.text == REDACTED
        row = fake.engine.property(target, secret_prop)
        assert row.value == REDACTED and row.is_redacted
        assert all_rows(fake, target)[secret_prop].value == REDACTED  # type: ignore[attr-defined]
        included = fake.engine.tree(target, include_properties=[secret_prop]).root.properties
        assert included == {secret_prop: REDACTED}
        outputs += [node, found, row]
    blob = json.dumps([o.to_json_dict() for o in outputs])
    assert PASSWORD not in blob and PIN not in blob


def test_windows_and_children_redact_password_text(fake: Harness) -> None:
    form = fake.engine.node(Target(locators=("#userName",)))
    parent = fake.engine.ancestors(Target(node_id=form.node_id), max_levels=1)[0]
    texts = {n.name: n.text for n in fake.engine.children(parent.node_id).items}
    assert texts["passwordBox"] == REDACTED and texts["pinBox"] == REDACTED


@pytest.mark.parametrize(
    "locator",
    [
        '[ApiKey~="^h"]',
        "[ApiKey*=hunter]",
        f'[ApiKey="{API_KEY}"]',
        "[Password*=hunt]",
        '[Password~="2$"]',
        'TextBox[Text~="^hunter"]',
        "text=hunter",
        "text=/hunter/",
        f'text="{PASSWORD}"',
    ],
)
def test_locator_conditions_cannot_probe_a_secret(fake: Harness, locator: str) -> None:
    assert fake.engine.find(locator=locator).results == []


def test_locator_conditions_compare_against_the_redaction_marker(fake: Harness) -> None:
    results = fake.engine.find(locator='[ApiKey="[REDACTED]"]').results
    assert [r.node.name for r in results] == ["connection"]
    results = fake.engine.find(locator='PasswordBox[Password="[REDACTED]"]').results
    assert [r.node.name for r in results] == ["passwordBox"]
    assert [r.node.name for r in fake.engine.find(locator='text="[REDACTED]"').results] == ["passwordBox", "pinBox"]


@pytest.mark.parametrize(
    ("operator", "value"), [("Regex", "^h"), ("Contains", "hunter"), ("Equals", API_KEY), ("Regex", "key$")]
)
def test_property_conditions_cannot_probe_a_secret(fake: Harness, operator: str, value: str) -> None:
    cond = {"property": "ApiKey", "operator": operator, "value": value}
    assert fake.engine.find(property_conditions=[cond]).results == []


def test_property_condition_on_the_redaction_marker_matches(fake: Harness) -> None:
    cond = {"property": "ApiKey", "operator": "Equals", "value": REDACTED}
    assert [r.node.name for r in fake.engine.find(property_conditions=[cond]).results] == ["connection"]


def test_secret_getters_are_never_invoked(fake: Harness) -> None:
    """THE KEY TEST: every read path leaves the secret getters at zero calls."""
    panel = by_name(fake.app, "connection")
    password_box = by_name(fake.app, "passwordBox")
    pin_box = by_name(fake.app, "pinBox")
    secrets = {
        "ApiKey": panel.prop("ApiKey"),
        "ConnectionString": panel.prop("ConnectionString"),
        "SecureBlob": panel.prop("SecureBlob"),
        "Login": panel.prop("Login"),
        "Builder": panel.prop("Builder"),
        "Password": password_box.prop("Password"),
        "pin Text": pin_box.prop("Text"),
    }
    plain = panel.prop("Title")
    user_text = by_name(fake.app, "userName", "TextBox").prop("Text")
    include = ["ApiKey", "Title", "Password", "Text", "ConnectionString", "Builder", "Login", "SecureBlob"]

    e = fake.engine
    outputs = []
    for window in e.windows(include_hidden=True):
        outputs.append(e.tree(Target(node_id=window.node_id), max_depth=10, include_properties=include))
        outputs.append(e.tree(Target(node_id=window.node_id), max_depth=10, tree_type="logical"))
    for target in (
        Target(locators=("#connection",)),
        Target(locators=("#passwordBox",)),
        Target(locators=("#pinBox",)),
    ):
        cursor = None
        while True:
            page = e.properties(target, include_defaults=True, take=3, cursor=cursor)
            outputs.append(page)
            if not page.has_more:
                break
            cursor = page.next_cursor
        outputs.append(e.properties(target))
        outputs.append(e.inspect(target))
        outputs.extend(e.ancestors(target))
    for name in ("ApiKey", "ConnectionString", "Builder", "Login", "SecureBlob"):
        outputs.append(e.property(Target(locators=("#connection",)), name))
    outputs.append(e.property(Target(locators=("#passwordBox",)), "Password"))
    outputs.append(e.property(Target(locators=("#pinBox",)), "Text"))
    for locator in ('[ApiKey~="^h"]', "[ApiKey]", "[Password*=x]", "text=hunter", "TextBox[Text=x]", "[Builder]"):
        outputs.append(e.find(locator=locator, max_results=100))
    outputs.append(
        e.find(
            property_conditions=[
                {"property": "ApiKey", "operator": "Regex", "value": "^h"},
                {"property": "Password", "operator": "Contains", "value": "h"},
            ]
        )
    )
    outputs.append(e.find(text="hunter", max_results=100))
    outputs.append(e.find(property_conditions=[{"property": "Text", "operator": "Contains", "value": "x"}]))
    list_id = e.node(Target(locators=("#bigList",))).node_id
    outputs.append(e.children(e.ancestors(Target(node_id=list_id), max_levels=1)[0].node_id))
    e.count(Target(locators=('[ApiKey="[REDACTED]"]',)))

    assert {k: p.calls for k, p in secrets.items()} == dict.fromkeys(secrets, 0)
    # The harness can see getters run: the non-secret ones were called.
    assert plain.calls > 0
    assert user_text.calls > 0

    blob = json.dumps([o.to_json_dict() for o in outputs])
    for value in (API_KEY, PASSWORD, PIN, "hunter3", "hunter4"):
        assert value not in blob
    assert REDACTED in blob


def test_redaction_can_be_switched_off() -> None:
    with harness(settings=ProbeSettings(redact=False)) as h:
        assert h.engine.node(Target(locators=("#passwordBox",))).text == PASSWORD
        assert h.engine.node(Target(locators=("#pinBox",))).text == PIN
        target = Target(locators=("#connection",))
        row = h.engine.property(target, "ApiKey")
        assert row.value == API_KEY and row.is_redacted is False
        assert h.engine.property(target, "Payload").value == "hunter-payload"
        assert [r.node.name for r in h.engine.find(locator='[ApiKey~="^h"]').results] == ["connection"]
        assert by_name(h.app, "connection").prop("ApiKey").calls > 0


def test_extra_redaction_keywords() -> None:
    with harness(settings=ProbeSettings(extra_redaction_keywords=("Title", "my-Pin"))) as h:
        target = Target(locators=("#connection",))
        assert h.engine.property(target, "Title").value == REDACTED
        assert h.engine.property(target, "Auth").value == "basic"
        assert by_name(h.app, "connection").prop("Title").calls == 0


def test_redaction_does_not_leak_in_the_ambiguity_error(fake: Harness) -> None:
    with pytest.raises(Exception) as info:
        fake.engine.node(Target(locators=("TextBox",)))
    assert PIN not in json.dumps(info.value.to_dict())  # type: ignore[attr-defined]
    assert by_name(fake.app, "pinBox").prop("Text").calls == 0
