"""oar.viz.make_dot and oar.viz.summary: a fully connected net and a 5-step tanh RNN
rendered through Graphviz `dot`, with the DOT text and the SVG parsed back."""
import collections
import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

import oar
import oar.nn as nn
import oar.nn.functional as F
from oar.viz import GraphvizNotFoundError, make_dot, summary

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz 'dot' is not installed (apt-get install graphviz)")

SVG = "{http://www.w3.org/2000/svg}"


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 5)
        self.fc3 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc3(F.tanh(self.fc2(F.relu(self.fc1(x)))))


class RNN5(nn.Layer):
    """One SimpleRNNCell applied to five steps: its weights are shared by all five."""

    def __init__(self):
        super().__init__()
        self.cell = nn.SimpleRNNCell(3, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, xs, h):
        for x in xs:
            h, _ = self.cell(x, h)
        return self.head(h)


def _mlp_loss():
    oar.seed(1)
    net = MLP()
    return net, net(oar.randn([6, 3])).sum()


def _rnn_loss():
    oar.seed(2)
    net = RNN5()
    xs = [oar.randn([2, 3]) for _ in range(5)]
    return net, net(xs, oar.zeros([2, 4])).sum()


def _dot_nodes(src):
    """{node id: attribute text} of the DOT source's node statements."""
    out = {}
    for line in src.splitlines():
        m = re.match(r"\s*(\w+) \[(.*)\];$", line)
        if m and m.group(1) not in ("graph", "node", "edge"):
            out[m.group(1)] = m.group(2)
    return out


def _dot_edges(src):
    return [(m.group(1), m.group(2)) for m in
            (re.match(r"\s*(\w+) -> (\w+) \[", line) for line in src.splitlines()) if m]


def _svg(d, tmp_path, name="g.svg"):
    path = d.render(str(tmp_path / name), format="svg")
    assert path == str(tmp_path / name)
    root = ET.parse(path).getroot()
    nodes, edges, clusters = {}, [], {}
    for g in root.iter(SVG + "g"):
        cls = g.get("class")
        title = g.find(SVG + "title").text if g.find(SVG + "title") is not None else None
        texts = [t.text for t in g.iter(SVG + "text") if t.text]
        if cls == "node":
            nodes[title] = texts
        elif cls == "edge":
            edges.append(tuple(title.split("->")))
        elif cls == "cluster":
            clusters[title] = texts
    return nodes, edges, clusters


def _param_node(nodes, name):
    """The one SVG node whose bold first line is `name`."""
    hits = [nid for nid, texts in nodes.items() if texts and texts[0] == name]
    assert len(hits) == 1, (name, hits)
    return hits[0]


@needs_dot
def test_mlp_every_parameter_is_one_node_with_name_shape_dtype(tmp_path):
    net, loss = _mlp_loss()
    d = make_dot(loss, params=net)
    nodes, edges, _ = _svg(d, tmp_path)
    for name, p in net.named_parameters():
        nid = _param_node(nodes, name)
        shape = "[" + ", ".join(str(s) for s in p.shape) + "]"
        assert f"{shape} float32" in nodes[nid]
        # each Linear uses its weight and bias once
        assert sum(1 for s, _ in edges if s == nid) == 1
    # 3 linear + relu + tanh + sum grad nodes, 6 parameters, the output, the input's cut
    kinds = collections.Counter(texts[0] for texts in nodes.values())
    assert kinds["LinearGradNode"] == 3 and kinds["ReluGradNode"] == 1
    assert kinds["TanhGradNode"] == 1 and kinds["SumGradNode"] == 1
    assert kinds["stop_gradient"] == 1 and kinds["output 0"] == 1
    # the edge into the second Linear's grad node carries a [6, 4] float32 gradient
    assert "float32[6, 4]" in d.source


@needs_dot
def test_rnn_shared_weights_once_with_five_gradient_paths(tmp_path):
    net, loss = _rnn_loss()
    d = make_dot(loss, params=net)
    nodes, edges, _ = _svg(d, tmp_path)
    dot_edges = _dot_edges(d.source)
    for name in ("cell.weight_ih", "cell.weight_hh", "cell.bias_ih", "cell.bias_hh"):
        nid = _param_node(nodes, name)
        assert sum(1 for s, _ in edges if s == nid) == 5, name
        assert sum(1 for s, _ in dot_edges if s == nid) == 5, name
        targets = {t for s, t in edges if s == nid}
        assert len(targets) == 5  # five different grad nodes, one per step
    for name in ("head.weight", "head.bias"):
        assert sum(1 for s, _ in edges if s == _param_node(nodes, name)) == 1
    kinds = collections.Counter(texts[0] for texts in nodes.values())
    assert kinds["TanhGradNode"] == 5


@needs_dot
def test_layer_clusters_nested_by_path(tmp_path):
    net, loss = _mlp_loss()
    d = make_dot(loss, params=net)
    _, _, clusters = _svg(d, tmp_path)
    labels = {texts[0] for texts in clusters.values() if texts}
    assert {"MLP", "MLP.fc1", "MLP.fc2", "MLP.fc3", "legend"} <= labels
    # MLP.fc1 is drawn inside MLP: its subgraph opens while MLP's is open
    depth, open_at = 0, {}
    for line in d.source.splitlines():
        m = re.search(r"label=<([\w.]+)>;", line)
        if m and depth:
            open_at[m.group(1)] = depth
        depth += line.count("{") - line.count("}") if "subgraph" in line or line.strip() == "}" \
            else 0
    assert open_at["MLP.fc1"] == open_at["MLP"] + 1
    # a layer's weight sits in its layer's cluster
    fc1 = d.source.split("label=<MLP.fc1>;")[1].split("}")[0]
    assert "<B>fc1.weight</B>" in fc1 and "<B>fc2.weight</B>" not in fc1
    flat = make_dot(loss, params=net, group_by_layer=False).source
    assert "cluster_legend" in flat and flat.count("subgraph cluster_") == 1


@needs_dot
def test_max_nodes_hides_and_says_how_many(tmp_path):
    net, loss = _mlp_loss()
    # sum, 3 linear, relu, tanh and 6 accumulation nodes
    assert sum(1 for nid in _dot_nodes(make_dot(loss).source) if re.fullmatch(r"n\d+", nid)) == 12
    d = make_dot(loss, params=net, max_nodes=4)
    nodes, edges, _ = _svg(d, tmp_path)
    hidden = [nid for nid, t in nodes.items() if t[0] == "8 more nodes hidden"]
    assert hidden == ["hidden"]
    assert "max_nodes=4" in nodes["hidden"]
    # breadth-first from the loss: sum, fc3's linear, then its inputs tanh and fc3.weight
    kept = sorted(t[0] for nid, t in nodes.items() if re.fullmatch(r"n\d+", nid))
    assert kept == ["LinearGradNode", "SumGradNode", "TanhGradNode", "fc3.weight"]
    assert any(s == "hidden" for s, _ in edges)
    assert "more nodes hidden" not in make_dot(loss, params=net).source


@needs_dot
def test_stop_gradient_cut_is_marked(tmp_path):
    oar.seed(3)
    net = MLP()
    h = net.fc1(oar.randn([2, 3])).detach()  # cut between fc1 and fc2
    loss = net.fc3(net.fc2(h)).sum()
    d = make_dot(loss, params=net)
    nodes, edges, _ = _svg(d, tmp_path)
    cuts = [nid for nid, t in nodes.items() if t[0] == "stop_gradient"]
    assert len(cuts) == 1 and "[2, 4] float32" in nodes[cuts[0]]
    line = _dot_nodes(d.source)[cuts[0]]
    assert "dashed" in line and "#cc0000" in line
    assert re.search(rf"{cuts[0]} -> \w+ \[.*style=\"dashed\", color=\"#cc0000\"", d.source)
    assert not any(t[0] == "fc1.weight" for t in nodes.values())  # behind the cut


@needs_dot
def test_show_saved_bytes_then_released_after_backward(tmp_path):
    net, loss = _mlp_loss()
    d = make_dot(loss, params=net, show_saved=True)
    # fc1's grad node saves its [6, 3] float32 input (72 B) and [3, 4] weight (48 B)
    assert "saved x: [6, 3] float32, 72 B" in d.source
    assert "saved weight: [3, 4] float32, 48 B" in d.source
    assert "released" not in d.source
    loss.backward()
    after = make_dot(loss, params=net, show_saved=True)
    nodes, _, _ = _svg(after, tmp_path)
    assert "saved x: [6, 3] float32, released" in after.source
    assert not re.search(r"saved \w+: [^<]*, \d+ B", after.source)
    assert any("saved weight: [3, 4] float32, released" in t for ts in nodes.values() for t in ts)


@needs_dot
def test_attrs_stack_hooks_and_escaping(tmp_path):
    oar.set_flags({"FLAGS_record_forward_stack": True})
    try:
        net, loss = _mlp_loss()
    finally:
        oar.set_flags({"FLAGS_record_forward_stack": False})
    weird = 'w"<b>\\x&'
    d = make_dot(loss, params={weird: net.fc1.weight}, show_attrs=True, show_stack=True)
    nodes, _, _ = _svg(d, tmp_path)
    assert _param_node(nodes, weird)
    assert "keepdim=false" in d.source  # sum's attributes
    line = MLP.forward.__code__.co_firstlineno + 1
    assert f"test_viz_dot.py:{line} in forward" in d.source

    oar.seed(4)
    x = oar.randn([2, 3])
    x.stop_gradient = False
    h = F.tanh(x)
    h.retain_grads()
    src = make_dot((h * 2).sum()).source
    tanh = [a for a in _dot_nodes(src).values() if "TanhGradNode" in a]
    assert len(tanh) == 1 and "hooks: retain_grad" in tanh[0] and "#e69138" in tanh[0]


@needs_dot
def test_deterministic_and_other_formats(tmp_path):
    net, loss = _mlp_loss()
    a = make_dot(loss, params=net, show_saved=True, show_attrs=True)
    b = make_dot(loss, params=net, show_saved=True, show_attrs=True)
    assert a.source == b.source
    net2, loss2 = _mlp_loss()  # a new graph of a same-shaped model: same picture
    assert make_dot(loss2, params=net2).source == make_dot(loss, params=net).source
    png = a.render(str(tmp_path / "g.png"), format="png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    pdf = a.render(str(tmp_path / "g.pdf"), format="pdf")
    with open(pdf, "rb") as f:
        assert f.read(5) == b"%PDF-"
    assert "<svg" in a._repr_svg_()


def test_missing_dot_is_a_clear_error(tmp_path, monkeypatch):
    _, loss = _mlp_loss()
    d = make_dot(loss)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GraphvizNotFoundError, match="Debian package 'graphviz'") as e:
        d.render(str(tmp_path / "g.svg"))
    assert isinstance(e.value, RuntimeError)
    assert not os.path.exists(tmp_path / "g.svg")
    assert d.source.startswith("digraph")  # the text needs no dot


def test_bad_arguments():
    _, loss = _mlp_loss()
    with pytest.raises(TypeError, match="make_dot: argument 'outputs'"):
        make_dot([loss, 3])
    with pytest.raises(ValueError, match="make_dot: argument 'max_nodes'"):
        make_dot(loss, max_nodes=0)
    with pytest.raises(TypeError, match="make_dot: argument 'show_saved'"):
        make_dot(loss, show_saved="yes")
    with pytest.raises(ValueError, match="Digraph.render: argument 'format'"):
        make_dot(loss).render("x.gif", format="gif")
    with pytest.raises(TypeError, match="make_dot: argument 'params'"):
        make_dot(loss, params=5)
    with pytest.raises(TypeError, match="summary: argument 'outputs'"):
        summary("loss")
    with pytest.raises(TypeError, match="summary: argument 'file'"):
        summary(loss, file=3)


class Small(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def test_summary_counts_and_bytes_by_hand():
    import io
    oar.seed(5)
    net = Small()
    h = net(oar.randn([5, 3]))  # [5, 2]
    loss = (h * h).sum()
    buf = io.StringIO()
    text = summary(loss, params=net, file=buf)
    assert buf.getvalue() == text
    # Saved tensors, float32: fc1 saves x [5,3] = 60 B and W1 [3,4] = 48 B; relu its
    # output [5,4] = 80 B, which fc2 saves as its x (80 B, the same storage) with
    # W2 [4,2] = 32 B; multiply saves h twice (2 x 40 B, one storage); sum keeps a
    # shape only (0 B).
    assert re.search(r"LinearGradNode +2\n", text)
    assert re.search(r"GradNodeAccumulation +4\n", text)
    assert re.search(r"MultiplyGradNode +1\n", text)
    assert re.search(r"total +10\n", text)  # 5 grad nodes, 4 leaves, the input's cut
    assert re.search(r"LinearGradNode +220 B\n", text)
    assert re.search(r"ReluGradNode +80 B\n", text)
    assert re.search(r"MultiplyGradNode +80 B\n", text)
    assert re.search(r"SumGradNode +0 B\n", text)
    # storages once: 60 + 48 + 80 + 32 + 40 = 260 B
    assert "memory held by the graph: 260 B in 5 storages" in text
    # h's grad node is reached twice (h * h): printed once, then referenced
    assert text.count("-> (see above)") == 1
    assert text.splitlines()[0].startswith("output 0")
    assert text.count("fc1.weight  float32[3, 4]  (leaf)") == 1
    loss.backward()
    after = summary(loss, params=net, file=False)
    assert "memory held by the graph: 0 B in 0 storages" in after
    assert "released" in after
