"""Label selectors match as ``k8s.io/apimachinery/pkg/labels`` matches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from framework.objects import LabelSelector, LabelSelectorRequirement
from framework.objects.labels import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    IN,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    label_selector_as_selector,
    parse_selector,
    selector_from_set,
    validate_dns1123_label,
    validate_dns1123_subdomain,
    validate_label_key,
    validate_label_value,
)

WEB = {"app": "web", "tier": "frontend", "zone": "a"}


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        pytest.param("", WEB, True, id="empty selects everything"),
        pytest.param("app=web", WEB, True, id="equals"),
        pytest.param("app==web", WEB, True, id="double equals"),
        pytest.param("app=db", WEB, False, id="equals other value"),
        pytest.param("owner=me", WEB, False, id="equals on a missing key"),
        pytest.param("app!=db", WEB, True, id="not equals"),
        pytest.param("app!=web", WEB, False, id="not equals same value"),
        pytest.param("owner!=me", WEB, True, id="not equals matches a missing key"),
        pytest.param("zone in (a,b)", WEB, True, id="in"),
        pytest.param("zone in (b,c)", WEB, False, id="in other values"),
        pytest.param("owner in (me)", WEB, False, id="in on a missing key"),
        pytest.param("zone notin (b,c)", WEB, True, id="notin"),
        pytest.param("zone notin (a)", WEB, False, id="notin its value"),
        pytest.param("owner notin (me)", WEB, True, id="notin matches a missing key"),
        pytest.param("tier", WEB, True, id="exists"),
        pytest.param("owner", WEB, False, id="exists missing"),
        pytest.param("!owner", WEB, True, id="does not exist"),
        pytest.param("!tier", WEB, False, id="does not exist present"),
        pytest.param("app=web,zone in (a),!owner", WEB, True, id="all requirements hold"),
        pytest.param("app=web,zone in (b)", WEB, False, id="one requirement fails"),
        pytest.param("  app = web ,  tier  ", WEB, True, id="spaces are ignored"),
        pytest.param("owner=", {"owner": ""}, True, id="equals the empty value"),
        pytest.param("owner=", {}, False, id="empty value needs the key"),
        pytest.param("app in (web,)", {"app": ""}, True, id="trailing comma is the empty value"),
        pytest.param("replicas>2", {"replicas": "3"}, True, id="greater than"),
        pytest.param("replicas<2", {"replicas": "3"}, False, id="less than"),
        pytest.param("replicas>2", {"replicas": "many"}, False, id="greater than a non-number"),
        pytest.param("example.com/tier=gold", {"example.com/tier": "gold"}, True, id="prefix"),
    ],
)
def test_selector_matches_like_kubernetes(selector: str, labels: dict[str, str], matches: bool):
    assert parse_selector(selector).matches(labels) is matches


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("tier!=cache,app=web", "app=web,tier!=cache"),
        ("zone in (b,a,a)", "zone in (a,b)"),
        ("!spot,gpu", "gpu,!spot"),
        ("a==b", "a==b"),
        ("n>5", "n>5"),
    ],
)
def test_selector_prints_canonically_sorted_by_key(text: str, canonical: str):
    assert str(parse_selector(text)) == canonical
    assert parse_selector(str(parse_selector(text))) == parse_selector(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("app in web", "'(' to open the set of values", id="in without parens"),
        pytest.param("app in (web", "',' or ')'", id="unclosed set"),
        pytest.param("app=web,", "a requirement after ','", id="trailing comma"),
        pytest.param("app web", "after a label key", id="two words"),
        pytest.param("!", "a label key after '!'", id="bang alone"),
        pytest.param("=web", "a label key", id="no key"),
        pytest.param("app in ()x", "',' or the end", id="junk after set"),
        pytest.param("app notin ()", None, id="notin with only empty value is fine"),
    ],
)
def test_parse_errors_name_the_selector_and_what_was_expected(text: str, expected: str | None):
    if expected is None:
        parse_selector(text)
        return
    with pytest.raises(SelectorError) as caught:
        parse_selector(text)
    assert repr(text) in str(caught.value)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Bad Key=x", "found 'Key'"),
        ("-app=x", "invalid label key '-app'"),
        ("app=-x", "invalid label value '-x'"),
        ("a/b/c=x", "invalid label key 'a/b/c'"),
        ("/app=x", "prefix part must be non-empty"),
        ("n>five", "must be an integer"),
        ("x" * 64 + "=y", "no more than 63 characters"),
    ],
)
def test_parse_rejects_invalid_keys_and_values(text: str, problem: str):
    with pytest.raises(SelectorError, match="invalid label selector") as caught:
        parse_selector(text)
    assert problem in str(caught.value)


def test_selector_error_is_a_value_error():
    assert issubclass(SelectorError, ValueError)


def test_everything_and_nothing():
    assert Selector.everything().matches({}) and Selector.everything().empty()
    assert not Selector.nothing().matches({}) and not Selector.nothing().empty()
    assert not Selector.nothing().add(Requirement.new("a", EXISTS)).matches({"a": "b"})


def test_nil_label_selector_selects_nothing_and_empty_selects_everything():
    assert label_selector_as_selector(None) == Selector.nothing()
    assert label_selector_as_selector(LabelSelector()) == Selector.everything()


def test_label_selector_object_compiles_to_the_same_requirements_as_the_text():
    selector = LabelSelector(
        match_labels={"app": "web"},
        match_expressions=(
            LabelSelectorRequirement(key="zone", operator="In", values=("b", "a")),
            LabelSelectorRequirement(key="env", operator="NotIn", values=("dev",)),
            LabelSelectorRequirement(key="gpu", operator="Exists"),
            LabelSelectorRequirement(key="spot", operator="DoesNotExist"),
        ),
    )
    compiled = label_selector_as_selector(selector)
    assert compiled == parse_selector("app=web,zone in (a,b),env notin (dev),gpu,!spot")
    assert compiled.matches({"app": "web", "zone": "a", "gpu": "1"})
    assert not compiled.matches({"app": "web", "zone": "a", "gpu": "1", "spot": "yes"})


@pytest.mark.parametrize(
    ("operator", "values", "problem"),
    [
        ("Equals", ("x",), "'Equals' is not a valid label selector operator"),
        ("In", (), "values set can't be empty"),
        ("NotIn", (), "values set can't be empty"),
        ("Exists", ("x",), "values set must be empty"),
        ("DoesNotExist", ("x",), "values set must be empty"),
    ],
)
def test_invalid_match_expressions_raise_clear_errors(operator, values, problem):
    selector = LabelSelector(
        match_expressions=(LabelSelectorRequirement(key="k", operator=operator, values=values),)
    )
    with pytest.raises(SelectorError, match=problem):
        label_selector_as_selector(selector)


def test_selector_from_set_requires_every_pair():
    selector = selector_from_set({"app": "web", "zone": "a"})
    assert str(selector) == "app=web,zone=a"
    assert selector.matches(WEB) and not selector.matches({"app": "web"})
    assert selector_from_set({}).empty()


def test_requirement_new_checks_value_counts():
    with pytest.raises(SelectorError, match="exactly one value"):
        Requirement.new("n", "gt", ["1", "2"])
    with pytest.raises(SelectorError, match="one single value"):
        Requirement.new("n", EQUALS, [])
    with pytest.raises(SelectorError, match="not recognized"):
        Requirement.new("n", "~", ["1"])


@pytest.mark.parametrize(
    ("check", "value", "valid"),
    [
        (validate_dns1123_subdomain, "web.example.com", True),
        (validate_dns1123_subdomain, "Web", False),
        (validate_dns1123_subdomain, "a" * 254, False),
        (validate_dns1123_label, "web-1", True),
        (validate_dns1123_label, "web.1", False),
        (validate_label_key, "app.kubernetes.io/name", True),
        (validate_label_key, "app_Name.x", True),
        (validate_label_key, "", False),
        (validate_label_value, "", True),
        (validate_label_value, "a-b_c.D", True),
        (validate_label_value, "a b", False),
    ],
)
def test_name_rules(check, value: str, valid: bool):
    assert (check(value) == []) is valid


# --- properties ---------------------------------------------------------------------

KEYS = st.sampled_from(["app", "tier", "zone", "example.com/team"])
VALUES = st.sampled_from(["a", "b", "web", "x-1"])
LABELS = st.dictionaries(KEYS, VALUES, max_size=4)
REQUIREMENTS = st.one_of(
    st.builds(lambda k, v: Requirement.new(k, EQUALS, [v]), KEYS, VALUES),
    st.builds(lambda k, v: Requirement.new(k, "!=", [v]), KEYS, VALUES),
    st.builds(lambda k, vs: Requirement.new(k, IN, vs), KEYS, st.lists(VALUES, min_size=1)),
    st.builds(lambda k, vs: Requirement.new(k, NOT_IN, vs), KEYS, st.lists(VALUES, min_size=1)),
    st.builds(lambda k: Requirement.new(k, EXISTS), KEYS),
    st.builds(lambda k: Requirement.new(k, DOES_NOT_EXIST), KEYS),
)


@given(st.lists(REQUIREMENTS, max_size=4), LABELS)
def test_printing_and_parsing_a_selector_changes_nothing(requirements, labels):
    selector = Selector.everything().add(*requirements)
    reparsed = parse_selector(str(selector))
    assert reparsed == selector
    assert reparsed.matches(labels) == selector.matches(labels)


@given(st.lists(REQUIREMENTS, max_size=4), LABELS)
def test_a_selector_matches_exactly_when_every_requirement_does(requirements, labels):
    selector = Selector.everything().add(*requirements)
    assert selector.matches(labels) == all(r.matches(labels) for r in requirements)


@given(KEYS, st.lists(VALUES, min_size=1), LABELS)
def test_notin_is_the_negation_of_in(key, values, labels):
    assert Requirement.new(key, NOT_IN, values).matches(labels) != Requirement.new(
        key, IN, values
    ).matches(labels)
