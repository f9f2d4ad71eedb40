"""The schema, the exporter and the rule table agree; facts are deterministic and format-safe."""

from __future__ import annotations

import re
from pathlib import Path

from pypto_verify.facts import RELATIONS, export_facts, render_facts
from pypto_verify.frontend import kernels, read_file
from pypto_verify.rules import RULES, Engine
from pypto_verify.target import TARGETS

DATALOG = Path(__file__).resolve().parents[2] / "datalog"
FORM3 = Path(__file__).resolve().parents[1] / "fixtures" / "form3"


def _decls(text: str) -> dict[str, int]:
    return {m.group(1): len([c for c in m.group(2).split(",") if c.strip()])
            for m in re.finditer(r"^\.decl (\w+)\((.*)\)", text, re.M)}


def test_exporter_writes_exactly_the_schema_inputs_with_their_arity() -> None:
    schema = (DATALOG / "schema.dl").read_text()
    inputs = set(re.findall(r"^\.input (\w+)", schema, re.M))
    assert inputs == set(RELATIONS)
    assert {name: arity for name, arity in _decls(schema).items() if name in inputs} == RELATIONS


def test_input_and_output_and_include_each_live_in_one_file() -> None:
    for path in DATALOG.glob("*.dl"):
        text = path.read_text()
        assert (".input " in text) == (path.name == "schema.dl"), path.name
        assert (".output " in text) == (path.name == "outputs.dl"), path.name
        assert ("#include" in text) == (path.name == "main.dl"), path.name


def test_every_datalog_rule_has_an_output_relation() -> None:
    outputs = set(re.findall(r"^\.output (\w+)", (DATALOG / "outputs.dl").read_text(), re.M))
    declared: set[str] = set()
    for path in DATALOG.glob("*.dl"):
        declared |= set(_decls(path.read_text()))
    for rule in RULES.values():
        if rule.engine is Engine.DATALOG:
            assert rule.relation in outputs, rule.id
            assert rule.relation in declared, rule.id


def test_every_decl_has_a_comment_above_it() -> None:
    for path in DATALOG.glob("*.dl"):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith(".decl "):
                j = i - 1
                while j >= 0 and lines[j].startswith(".decl "):
                    j -= 1
                assert j >= 0 and lines[j].startswith("//"), f"{path.name}:{i + 1} has no comment"


def _facts_text(paths):
    ks = []
    for p in paths:
        result = read_file(p)
        ks.extend((str(p), fn) for _, fn in kernels(result.module))
    return render_facts(export_facts(ks, TARGETS["a2a3"]))


def test_fact_export_is_deterministic_and_sorted() -> None:
    files = sorted(FORM3.glob("*.py"))
    first, second = _facts_text(files), _facts_text(files)
    assert first == second
    for name, text in first.items():
        rows = [line for line in text.splitlines() if line]
        assert rows == sorted(rows, key=lambda r: tuple(int(c) if c.lstrip("-").isdigit() else c
                                                         for c in r.split("\t"))), name


def test_no_tab_newline_or_backslash_reaches_a_symbol_column() -> None:
    text = _facts_text(sorted(FORM3.glob("*.py")))
    for name, body in text.items():
        for row in body.splitlines():
            assert "\\" not in row
            assert len(row.split("\t")) == RELATIONS[name], (name, row)


def test_every_op_name_the_rules_match_is_an_op_of_ops_py() -> None:
    """The `.dl` files compare `op(k, s, "tile.matmul_acc")` against names the fact export writes from
    `ops.py`: a name spelled in a rule and nowhere in `ops.py` would silently match nothing."""
    import re

    from pypto_verify import ops

    known = {value for name, value in vars(ops).items() if name.isupper() and isinstance(value, str)}
    datalog = Path(__file__).resolve().parents[2] / "datalog"
    spelled = {m for path in datalog.glob("*.dl")
               for m in re.findall(r'"((?:tile|tensor)\.[a-z_]+)"', path.read_text(encoding="utf-8"))}
    assert spelled, "no op name found in the rules: the pattern is stale"
    assert spelled <= known, f"op names in datalog/*.dl that ops.py does not define: {sorted(spelled - known)}"


def test_the_engine_is_given_the_input_relations_and_nothing_else(monkeypatch) -> None:
    # the side table (names, spans) is for the reporter: writing it for the engine cost a JSON dump per run
    from pypto_verify.engines import api
    from pypto_verify.run.chain import datalog_relations

    given: list[set[str]] = []
    real = api.run_rows

    def spy(program, rows, **options):
        given.append(set(rows))
        return real(program, rows, **options)

    monkeypatch.setattr(api, "run_rows", spy)
    path = sorted(FORM3.glob("*.py"))[0]
    facts = export_facts([(str(path), fn) for _, fn in kernels(read_file(path).module)], TARGETS["a2a3"])
    datalog_relations(facts, "clingo")
    assert given == [set(RELATIONS)]
