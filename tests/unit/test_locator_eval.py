"""Locators evaluated by the engine against the fake app, and the locators it generates."""

from __future__ import annotations

import pytest
from fake_toolkit import FakeApp, FakeElement, Harness, by_name, by_text, harness, iter_elements

from wpfprobe.core.errors import InvalidArgumentError, LocatorAmbiguousError, LocatorNotFoundError
from wpfprobe.core.models import Node
from wpfprobe.engine.engine import Target


def resolve(h: Harness, *locators: str, nth: int | None = None) -> list[str]:
    return h.engine.resolve_ids(Target(locators=tuple(locators), nth=nth))


def one(h: Harness, *locators: str) -> str:
    return h.engine.node(Target(locators=tuple(locators))).node_id


# -- each form finds what it should ------------------------------------------------


def test_type_finds_every_element_of_that_type(fake: Harness) -> None:
    expected = {fake.id_of(by_name(fake.app, n, "TextBox")) for n in ("userName", "pinBox", "dup")}
    assert set(resolve(fake, "TextBox")) == expected


def test_type_is_case_insensitive_and_accepts_the_full_name(fake: Harness) -> None:
    textboxes = resolve(fake, "TextBox")
    assert resolve(fake, "textbox") == textboxes
    assert resolve(fake, "Fake.Controls.TextBox") == textboxes


def test_hash_finds_by_name(fake: Harness) -> None:
    assert one(fake, "#saveButton") == fake.id_of(by_name(fake.app, "saveButton"))


def test_hash_finds_by_automation_id(fake: Harness) -> None:
    assert one(fake, "#printAuto") == fake.id_of(by_text(fake.app, "Print"))


def test_type_and_name(fake: Harness) -> None:
    assert one(fake, "TextBox#dup") == fake.id_of(by_name(fake.app, "dup", "TextBox"))


def test_quoted_name(fake: Harness) -> None:
    assert one(fake, 'Button#"odd \\"one\\"/x"') == fake.id_of(by_text(fake.app, "Odd"))


def test_text_exact(fake: Harness) -> None:
    assert one(fake, 'text="Save"') == fake.id_of(by_name(fake.app, "saveButton"))
    assert resolve(fake, 'text="Sav"') == []


def test_text_substring_is_case_insensitive(fake: Harness) -> None:
    assert one(fake, "text=sTATus") == fake.id_of(by_name(fake.app, "statusLabel"))


def test_text_regex(fake: Harness) -> None:
    assert set(resolve(fake, "text=/^dup [ab]$/i")) == {
        fake.id_of(by_text(fake.app, "Dup A")),
        fake.id_of(by_text(fake.app, "Dup B")),
    }


def test_text_substring_does_not_match_elements_without_text(fake: Harness) -> None:
    # Panels and grids have no text at all; "ul" must not match them.
    assert resolve(fake, "text=ul") == []


def test_attribute_equality_on_bool(fake: Harness) -> None:
    assert one(fake, "Button[IsEnabled=false]") == fake.id_of(by_name(fake.app, "cancelButton"))


def test_attribute_equality_on_number(fake: Harness) -> None:
    width_100 = resolve(fake, "Button[Width=100]")
    assert fake.id_of(by_name(fake.app, "saveButton")) in width_100
    assert resolve(fake, "Button[Width=101]") == []


def test_attribute_equality_quoted(fake: Harness) -> None:
    assert one(fake, '[Text="not a button"]') == fake.id_of(by_name(fake.app, "dup", "TextBox"))


def test_attribute_contains(fake: Harness) -> None:
    assert one(fake, '[Content*="ANCE"]') == fake.id_of(by_name(fake.app, "cancelButton"))


def test_attribute_regex(fake: Harness) -> None:
    assert one(fake, '[Content~="^He.p$"]') == fake.id_of(by_text(fake.app, "Help"))


def test_attribute_exists_only_where_the_property_has_a_value(fake: Harness) -> None:
    ids = resolve(fake, "StackPanel#toolbar [Content]")
    assert len(ids) == 7
    assert resolve(fake, "[NoSuchProperty]") == []


def test_child_step_only_matches_direct_children(fake: Harness) -> None:
    assert resolve(fake, "Window > Button") == [
        fake.id_of(by_name(fake.app, "toolButton")),
        fake.id_of(by_name(by_name(fake.app, "toolWindow"), "okButton")),
    ]


def test_descendant_step(fake: Harness) -> None:
    toolbar = by_name(fake.app, "toolbar")
    assert resolve(fake, "Window#mainWindow StackPanel#toolbar Button") == [fake.id_of(b) for b in toolbar.children]


def test_mixed_child_and_descendant_steps(fake: Harness) -> None:
    assert one(fake, "Window > Grid StackPanel > CheckBox") == fake.id_of(by_name(fake.app, "rememberMe"))


def test_nth_picks_among_matches(fake: Harness) -> None:
    toolbar = by_name(fake.app, "toolbar")
    assert one(fake, "StackPanel#toolbar > Button:nth(1)") == fake.id_of(toolbar.children[1])
    assert one(fake, "StackPanel#toolbar > Button:nth(-1)") == fake.id_of(toolbar.children[-1])
    assert resolve(fake, "StackPanel#toolbar > Button:nth(99)") == []


def test_target_nth_picks_among_final_matches(fake: Harness) -> None:
    toolbar = by_name(fake.app, "toolbar")
    assert resolve(fake, "Button#dup", nth=1) == [fake.id_of(toolbar.children[4])]


def test_visible_pseudo_skips_hidden_elements(fake: Harness) -> None:
    assert len(resolve(fake, "Label")) == 2
    assert resolve(fake, "Label:visible") == [fake.id_of(by_text(fake.app, "User name"))]


def test_visible_pseudo_skips_children_of_hidden_windows(fake: Harness) -> None:
    assert fake.id_of(by_name(fake.app, "toolButton")) not in resolve(fake, "Button:visible")


def test_path_form(fake: Harness) -> None:
    toolbar = by_name(fake.app, "toolbar")
    assert one(fake, "Window[0]/Grid[0]/StackPanel[0]/Button[2]") == fake.id_of(toolbar.children[2])


def test_path_form_index_counts_only_siblings_of_that_type(fake: Harness) -> None:
    form = by_name(fake.app, "userName").parent
    assert form is not None
    # Label, TextBox, PasswordBox, TextBox(pinBox): the second TextBox is pinBox.
    assert one(fake, "Window[0]/Grid[0]/StackPanel[1]/TextBox[1]") == fake.id_of(by_name(fake.app, "pinBox"))


def test_path_form_without_index_means_the_first(fake: Harness) -> None:
    assert one(fake, "Window/Grid/StackPanel/Button") == fake.id_of(by_name(fake.app, "saveButton"))


def test_path_form_reaches_other_windows(fake: Harness) -> None:
    assert one(fake, "Window[2]/Button[0]") == fake.id_of(by_name(fake.app, "toolButton"))


def test_path_form_anchored_at_a_name(fake: Harness) -> None:
    assert one(fake, "#toolbar/Button[1]") == fake.id_of(by_name(fake.app, "cancelButton"))
    assert one(fake, "StackPanel#toolbar/Button[1]") == fake.id_of(by_name(fake.app, "cancelButton"))


def test_path_with_index_beyond_the_siblings_is_not_found(fake: Harness) -> None:
    with pytest.raises(LocatorNotFoundError) as info:
        fake.engine.node(Target(locators=("Window[0]/Grid[0]/StackPanel[0]/Button[7]",)))
    assert info.value.code == "LOCATOR_NOT_FOUND"
    assert resolve(fake, "Window[0]/Grid[0]/StackPanel[5]/Button[0]") == []
    assert resolve(fake, "Window[3]/Button[0]") == []


# -- ambiguity, absence, chaining ---------------------------------------------------


def test_ambiguous_locator_lists_the_candidates(fake: Harness) -> None:
    with pytest.raises(LocatorAmbiguousError) as info:
        fake.engine.inspect(Target(locators=("Button#dup",)))
    err = info.value
    assert err.code == "LOCATOR_AMBIGUOUS"
    assert err.detail["count"] == 2
    toolbar = by_name(fake.app, "toolbar")
    expected = {fake.id_of(toolbar.children[3]), fake.id_of(toolbar.children[4])}
    assert {c["nodeId"] for c in err.detail["candidates"]} == expected
    # Each candidate's locator picks that candidate alone.
    for cand in err.detail["candidates"]:
        assert resolve(fake, cand["locator"]) == [cand["nodeId"]]
    assert err.suggestion


def test_ambiguity_is_reported_by_every_single_element_call(fake: Harness) -> None:
    target = Target(locators=("Button",))
    for call in (fake.engine.node, fake.engine.inspect, fake.engine.ancestors, fake.engine.properties):
        with pytest.raises(LocatorAmbiguousError):
            call(target)


def test_no_match_is_locator_not_found(fake: Harness) -> None:
    with pytest.raises(LocatorNotFoundError) as info:
        fake.engine.node(Target(locators=("Button#doesNotExist",)))
    assert info.value.code == "LOCATOR_NOT_FOUND"
    assert info.value.suggestion


def test_malformed_locator_in_a_target_is_invalid_argument(fake: Harness) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.node(Target(locators=("Button[",)))


def test_chained_locators_search_inside_the_first(fake: Harness) -> None:
    assert one(fake, "StackPanel#toolbar", "text=Help") == fake.id_of(by_text(fake.app, "Help"))
    # TextBoxes exist, but not inside the toolbar.
    assert resolve(fake, "StackPanel#toolbar", "TextBox") == []
    assert len(resolve(fake, "Window#mainWindow", "TextBox")) == 3


def test_chained_path_is_relative_to_the_first(fake: Harness) -> None:
    assert one(fake, "Window#settingsWindow", "StackPanel[0]/Button[1]") == fake.id_of(
        by_name(by_name(fake.app, "settingsWindow"), "okButton")
    )


def test_chain_with_an_ambiguous_first_step_fails(fake: Harness) -> None:
    with pytest.raises(LocatorAmbiguousError):
        fake.engine.node(Target(locators=("StackPanel", "Button")))


def test_probe_locator_api_chains_and_picks(fake: Harness) -> None:
    toolbar = fake.probe.locator("StackPanel#toolbar")
    buttons = toolbar.locator("Button")
    assert buttons.count() == 7
    assert buttons.first.node().node_id == fake.id_of(by_name(fake.app, "saveButton"))
    assert buttons.last.node().text == "Odd"
    assert [loc.node().node_id for loc in buttons.all()] == [
        fake.id_of(b) for b in by_name(fake.app, "toolbar").children
    ]
    assert fake.probe.locator("Button#dup").nth(1).node().text == "Dup B"


# -- generated locators re-find their node --------------------------------------------


def all_nodes(h: Harness, tree_type: str = "visual") -> list[Node]:
    nodes: list[Node] = []
    for window in h.engine.windows(include_hidden=True):
        tree = h.engine.tree(Target(node_id=window.node_id), max_depth=10, tree_type=tree_type)  # type: ignore[arg-type]
        assert not tree.truncated
        nodes.extend(tree.walk())
    return nodes


def test_every_tree_node_locator_refinds_exactly_that_node(fake: Harness) -> None:
    nodes = all_nodes(fake)
    assert len(nodes) == sum(1 for _ in iter_elements(fake.app))
    for node in nodes:
        assert resolve(fake, node.locator) == [node.node_id], node.locator


def test_every_logical_tree_node_locator_refinds_exactly_that_node(fake: Harness) -> None:
    nodes = all_nodes(fake, "logical")
    assert "Border" not in {n.type for n in nodes}
    for node in nodes:
        assert resolve(fake, node.locator) == [node.node_id], node.locator


def test_tree_locators_agree_with_inspect(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=10)
    for node in tree.walk():
        assert fake.engine.inspect(Target(node_id=node.node_id)).locator == node.locator


def test_find_paths_refind_their_node(fake: Harness) -> None:
    results = fake.engine.find(type_name="Button", max_results=100).results
    assert len(results) == 13
    for r in results:
        assert resolve(fake, r.path) == [r.node.node_id], r.path


def test_unique_name_is_used_in_the_locator(fake: Harness) -> None:
    node = fake.engine.node(Target(locators=("#saveButton",)))
    assert "#saveButton" in node.locator
    assert "/" not in node.locator


def test_unique_automation_id_is_used_in_the_locator(fake: Harness) -> None:
    node = fake.engine.node(Target(locators=("#printAuto",)))
    assert "#printAuto" in node.locator


def test_unnamed_node_falls_back_to_a_path(fake: Harness) -> None:
    label = fake.engine.node(Target(locators=('text="User name"',)))
    assert "/" in label.locator
    assert resolve(fake, label.locator) == [label.node_id]


def test_duplicate_name_is_not_used_in_the_locator(fake: Harness) -> None:
    for i in (0, 1):
        node = fake.engine.node(Target(locators=("Button#dup",), nth=i))
        assert "#dup" not in node.locator, node.locator
        assert resolve(fake, node.locator) == [node.node_id]


def test_name_duplicated_across_windows_is_not_used(fake: Harness) -> None:
    for i in (0, 1):
        node = fake.engine.node(Target(locators=("Button#okButton",), nth=i))
        assert "#okButton" not in node.locator
        assert resolve(fake, node.locator) == [node.node_id]


def test_name_clashing_with_another_automation_id_is_handled(fake: Harness) -> None:
    alpha = fake.engine.node(Target(locators=('text="Alpha"',)))
    beta = fake.engine.node(Target(locators=('text="Beta"',)))
    assert resolve(fake, alpha.locator) == [alpha.node_id]
    assert resolve(fake, beta.locator) == [beta.node_id]
    assert "#alpha" in alpha.locator


def test_named_ancestor_anchors_an_unnamed_node(fake: Harness) -> None:
    help_button = fake.engine.node(Target(locators=('text="Help"',)))
    assert "#toolbar" in help_button.locator
    assert not help_button.locator.startswith("Window")
    assert resolve(fake, help_button.locator) == [help_button.node_id]


def test_name_needing_quotes_round_trips(fake: Harness) -> None:
    odd = fake.engine.node(Target(locators=('text="Odd"',)))
    assert odd.name == 'odd "one"/x'
    assert resolve(fake, odd.locator) == [odd.node_id]


def test_locator_survives_a_restart_of_the_app() -> None:
    # A locator is a way to find an element again in a fresh app with fresh ids.
    with harness() as first:
        node = first.engine.node(Target(locators=('text="Help"',)))
        locator = node.locator
    with harness() as second:
        again = second.engine.node(Target(locators=(locator,)))
        assert again.text == "Help"


def test_locator_of_unnamed_duplicate_siblings_distinguishes_them() -> None:
    window = FakeElement("Window", children=[FakeElement("Button", text="x"), FakeElement("Button", text="x")])
    with harness(FakeApp(window)) as h:
        tree = h.engine.tree(max_depth=2)
        assert tree.root.children is not None
        first, second = tree.root.children
        assert first.locator != second.locator
        assert resolve(h, first.locator) == [first.node_id]
        assert resolve(h, second.locator) == [second.node_id]


def test_unnamed_top_level_windows_locators_refind_them() -> None:
    windows = [FakeElement("Window", text=f"W{i}", children=[FakeElement("Button", text=f"B{i}")]) for i in range(2)]
    with harness(FakeApp(*windows)) as h:
        for window in h.engine.windows():
            assert resolve(h, window.locator) == [window.node_id], window.locator
            tree = h.engine.tree(Target(node_id=window.node_id), max_depth=3)
            for node in tree.walk():
                assert resolve(h, node.locator) == [node.node_id], node.locator


def test_nth_on_an_intermediate_step(fake: Harness) -> None:
    # StackPanels in document order: toolbar, the form panel, the settings panel.
    labels = resolve(fake, "StackPanel:nth(1) > Label")
    assert labels == [fake.id_of(by_text(fake.app, "User name")), fake.id_of(by_name(fake.app, "statusLabel"))]


def test_descendant_step_lists_each_element_once(fake: Harness) -> None:
    ids = resolve(fake, "* Button")
    assert len(ids) == len(set(ids)) == 13


def test_nth_applies_to_the_whole_result_not_per_parent(fake: Harness) -> None:
    assert resolve(fake, "StackPanel Button:nth(0)") == [fake.id_of(by_name(fake.app, "saveButton"))]
    assert resolve(fake, "StackPanel Button:nth(-1)") == [fake.id_of(by_text(fake.app, "Beta"))]


def test_state_attributes_without_a_property_use_the_element_state(fake: Harness) -> None:
    hidden = set(resolve(fake, "[IsVisible=false]"))
    assert fake.id_of(by_name(fake.app, "statusLabel")) in hidden
    assert fake.id_of(by_name(fake.app, "toolButton")) in hidden
    assert fake.id_of(by_name(fake.app, "saveButton")) not in hidden
    assert resolve(fake, "[IsFocused=true]") == [fake.id_of(by_name(fake.app, "userName", "TextBox"))]


def test_window_paths_refind_their_window(fake: Harness) -> None:
    for result in fake.engine.find(type_name="Window").results:
        assert result.path.startswith("Window")
        assert resolve(fake, result.path) == [result.node.node_id], result.path


def test_text_alone_skips_template_parts_but_a_typed_step_reaches_them() -> None:
    """Regression: on WPF a Button's template holds a TextBlock with the Button's text,
    which made text="Save" ambiguous between the control and its own chrome."""
    chrome = FakeElement("TextBlock", text="Save", visual_only=True)
    button = FakeElement("Button", "saveButton", text="Save", children=[chrome])
    app = FakeApp(FakeElement("Window", "main", text="Main", children=[button]))
    with harness(app) as h:
        assert resolve(h, 'text="Save"') == [h.id_of(button)]
        assert [r.node.node_id for r in h.engine.find(text="save").results] == [h.id_of(button)]
        assert resolve(h, 'TextBlock[text="Save"]') == [h.id_of(chrome)]


# -- lists of many items ---------------------------------------------------------------


def test_a_descendant_step_under_nested_candidates_finds_each_element_once(fake: Harness) -> None:
    # "*" matches every element, so each Button is reached from each of its ancestors.
    found = resolve(fake, "* Button")
    buttons = {fake.id_of(el) for w in fake.app.windows for el in iter_elements(w) if el.type_name == "Button"}
    assert len(found) == len(set(found)) and set(found) <= buttons and found


def test_a_child_step_over_a_long_list_compares_no_pair_of_items(fake: Harness) -> None:
    """Issue 11: `#list > ListBoxItem:nth(4999)` compared every match with every earlier one (a 5,000-item
    list took 22 s); the matches of a single parent's children are distinct and need no comparison."""
    compared = []

    def counting(a: object, b: object) -> bool:
        compared.append(1)
        return a is b

    fake.engine.same = counting
    assert one(fake, "#bigList > ListBoxItem:nth(119)") == fake.id_of(by_name(fake.app, "bigList").children[119])
    assert compared == []
