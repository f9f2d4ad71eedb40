"""`pypto-verify graph`: the chains' picture. On every planted defect the red nodes are exactly the
findings' values (in the DOT and, where Graphviz is installed, in the SVG); golden DOT for three shapes."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest

from golden_util import check_golden
from pypto_verify import graph
from pypto_verify.run import Options, run
from pypto_verify.span import display_name

ROOT = Path(__file__).resolve().parents[2]
DEFECTS = sorted((ROOT / "corpus" / "defects").glob("*.py"))
OPTIONS = Options(sim=False, smt=False, cache=False, jobs=1)
# A node line of our DOT: `k0_v18 [id="k0_v18", label="x\nline 42: matmul_acc...", ...];`
NODE = re.compile(r'^\s+k(\d+)_(v\d+|p\d+) \[id="[^"]*", label="((?:[^"\\]|\\.)*)"(.*)\];$', re.M)
EDGE = re.compile(r'^\s+k(\d+)_\S+ -> k\d+_\S+ \[label="((?:[^"\\]|\\.)*)"(.*)\];$', re.M)


def red_nodes(dot: str) -> dict[int, set[str]]:
    """kernel cluster index -> the names of the nodes drawn red."""
    out: dict[int, set[str]] = defaultdict(set)
    for index, _key, label, rest in NODE.findall(dot):
        if 'color="#d62728"' in rest:
            out[int(index)].add(label.split("\\n")[0])
    return out


@pytest.fixture(scope="module", params=["fixed", "legacy"])
def defects(request: pytest.FixtureRequest) -> tuple[dict[str, list], dict[str, list]]:
    """Per file: the pictures of its kernels, and the findings `check` reports (Datalog and lowering), with
    either pipeline (the legacy one is where shapes B and C fail)."""
    options = replace(OPTIONS, mode=request.param)
    drawn, _ = graph.pictures([str(p) for p in DEFECTS], options)
    by_file: dict[str, list] = defaultdict(list)
    for chains in drawn:
        by_file[chains.path].append(chains)
    found: dict[str, list] = defaultdict(list)
    for f in run([str(p) for p in DEFECTS], options).findings:
        found[f.span.path].append(f)
    return by_file, found


@pytest.mark.parametrize("path", DEFECTS, ids=lambda p: p.name)
def test_red_nodes_are_exactly_the_findings_values(path: Path, defects) -> None:
    by_file, found = defects
    pictures = by_file.get(str(path), [])
    dot = graph.to_dot(pictures, path.name)
    red = red_nodes(dot)
    for index, chains in enumerate(pictures):
        # (as the user named them: a lowering error may give a value's SSA name, `acc__ssa_v2`)
        expected = {display_name(v) for f in found.get(str(path), []) if f.kernel == chains.kernel for v in f.values}
        assert red.get(index, set()) == expected, chains.kernel
        # every red edge names a finding of its kernel, and joins nodes of the picture
        rules = {f.rule.id for f in found.get(str(path), []) if f.kernel == chains.kernel}
        for e in chains.edges:
            assert set(e.rules) <= rules
    if graph.dot_binary() is not None and pictures:
        svg = graph.to_svg(dot)
        assert svg is not None and svg.lstrip().startswith("<?xml")
        assert svg.count('class="node finding"') == sum(len([n for n in c.nodes if n.rules]) for c in pictures)


def test_every_defect_with_valued_findings_has_red_in_its_picture(defects) -> None:
    by_file, found = defects
    valued = {p for p, fs in found.items() if any(f.values for f in fs)}
    assert len(valued) >= 10  # the test above is not vacuous
    assert all(red_nodes(graph.to_dot(by_file[p], p)) for p in valued)


def test_a_finding_flow_is_a_red_edge() -> None:
    drawn, _ = graph.pictures(["tests/fixtures/form3/shape_b_post_if_read.py"], OPTIONS)
    (chains,) = drawn
    red = [(e.kind, e.line, e.rules) for e in chains.edges if e.rules]
    assert red == [("drain", 38, ("PV004",))]  # the clobbered read of `acc_1` by the store at line 38


SHAPES = {
    "divergent-phi": "tests/fixtures/form3/shape_a_divergent_tail_phi.py",
    "fragmented-chain": "tests/fixtures/form3/shape_c_fragmented_chain.py",
    "clobbered-read": "tests/fixtures/form3/shape_b_post_if_read.py",
}


@pytest.mark.parametrize("case", sorted(SHAPES))
def test_graph_dot_matches_golden(case: str, update_golden: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    done = subprocess.run([sys.executable, "-m", "pypto_verify.cli", "graph", SHAPES[case]], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    check_golden(ROOT / "tests" / "golden" / "graph" / case / "expected.dot", done.stdout, update_golden)


def test_svg_without_graphviz_writes_the_dot_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    env_path = str(bare)  # no `dot` on PATH
    out = tmp_path / "chains.svg"
    done = subprocess.run([sys.executable, "-m", "pypto_verify.cli", "graph", SHAPES["clobbered-read"], "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env={"PATH": env_path})
    assert done.returncode == 0, done.stderr
    assert "Graphviz `dot` is not installed" in done.stderr
    assert not out.exists() and out.with_suffix(".dot").read_text().startswith("digraph chains {")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed (apt-get install graphviz)")
def test_svg_with_graphviz(tmp_path: Path) -> None:
    out = tmp_path / "chains.svg"
    done = subprocess.run([sys.executable, "-m", "pypto_verify.cli", "graph", SHAPES["divergent-phi"], "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    svg = out.read_text()
    assert "<svg" in svg and "PV001" in svg and "mem_acc_12[0:16384]" in svg


def test_an_unknown_kernel_exits_2() -> None:
    done = subprocess.run([sys.executable, "-m", "pypto_verify.cli", "graph", SHAPES["divergent-phi"], "--kernel", "nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "no kernel to draw named nope" in done.stderr


def test_graph_html_is_one_self_contained_page(tmp_path: Path) -> None:
    out = tmp_path / "chains.html"
    done = subprocess.run([sys.executable, "-m", "pypto_verify.cli", "graph", SHAPES["fragmented-chain"], "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "<link" not in page
    assert ("<svg" in page) == (graph.dot_binary() is not None)
    assert "mem_acc_11[0:4096]" in page and "co-live bytes" in page  # the legend and the timeline tables


def test_walk_exprs_is_the_recursive_preorder() -> None:
    """`walk_exprs` (children by exact class) visits what a recursive pre-order over every child field visits, in
    the same order, through each expression class with children."""
    from pypto_verify.ir import (BinOp, BoolOp, Call, Compare, Const, DictExpr, IterArg, ListExpr, Sym, TupleExpr,
                                 UnaryOp, Var, walk_exprs)

    def preorder(e):
        yield e
        if isinstance(e, (BinOp, Compare)):
            kids = [e.lhs, e.rhs]
        elif isinstance(e, UnaryOp):
            kids = [e.operand]
        elif isinstance(e, BoolOp):
            kids = list(e.operands)
        elif isinstance(e, (ListExpr, TupleExpr)):
            kids = list(e.items)
        elif isinstance(e, DictExpr):
            kids = [v for _, v in e.items]
        elif isinstance(e, Call):
            kids = [*e.args, *(v for _, v in e.kwargs)]
        else:
            kids = []
        for k in kids:
            yield from preorder(k)

    a, b, i = Var("a"), Var("b"), IterArg("i")
    expr = Call("tile.matmul_acc", (BinOp("+", a, Const(1)), UnaryOp("-", i)),
                (("attrs", DictExpr((("k", Compare("<", b, Sym("Mem.Acc"))),))),
                 ("init_cond", BoolOp("and", (Compare("==", i, Const(0)), Var("c")))),
                 ("shape", ListExpr((Const(16), TupleExpr((a, b)))))))
    assert [id(e) for e in walk_exprs(expr)] == [id(e) for e in preorder(expr)]
    assert [id(e) for e in walk_exprs(Call("tile.load", (a,)))] == [id(e) for e in preorder(Call("tile.load", (a,)))]
    assert list(walk_exprs(a)) == [a]
