"""oar.viz.to_html: the written page is self-contained, and in headless Chromium
it shows every parameter, searches, collapses/expands layer groups, shows
details, draws NaN gradients red, folds repeated blocks and opens a
10,000-node graph within a bound, with no console errors."""
import os
import re
import shutil
import time

import pytest

import oar
import oar.viz as viz
from oar import nn

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(oar.nn.functional.relu(self.fc1(x)))


def _model_graph(tmp_path, grads="watch"):
    oar.set_flags({"FLAGS_record_forward_stack": True})
    try:
        oar.seed(0)
        net = Net()
        x = oar.randn([5, 4])
        # sqrt of a negative: d/db = 0.5/sqrt(b - 10) is NaN, so fc1.bias gets a
        # NaN gradient while the loss of the network part stays finite.
        loss = net(x).sum() + oar.sqrt(net.fc1.bias - 10.0).sum()
        w = viz.watch(loss)
        # retain_graph keeps the saved tensors, so the page shows their bytes.
        loss.backward(retain_graph=True)
        w.remove()
    finally:
        oar.set_flags({"FLAGS_record_forward_stack": False})
    params = dict(net.named_parameters())
    g = viz.collect(loss, params=params, grads=w)
    path = viz.to_html(loss, tmp_path / "graph.html", params=params,
                       grads=w if grads == "watch" else grads)
    return net, params, g, path


# ---- file-level tests (no browser) ------------------------------------------

def test_self_contained(tmp_path):
    _, params, g, path = _model_graph(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    assert "http://" not in text and "https://" not in text
    assert "<link" not in text and "@import" not in text and "url(" not in text
    assert text.count("<script") == 2  # the JSON data and the inline viewer
    m = re.search(r'<script type="application/json" id="oar-graph">(.*?)</script>', text, re.S)
    import json
    data = json.loads(m.group(1))
    assert len(data["nodes"]) == len(g.nodes) and len(data["edges"]) == len(g.edges)
    assert {n["name"] for n in data["nodes"] if n["kind"] == "leaf"} == set(params)
    bias = next(n for n in data["nodes"] if n.get("name") == "fc1.bias")
    assert bias["grad_bad"] is True
    assert data["grads"] is True


def test_no_grads_strips_norms_and_escapes_script(tmp_path):
    x = oar.randn([2, 2])
    x.stop_gradient = False
    x.name = "</script><b>x"
    y = (x * 2.0).sum()
    y.backward()
    path = viz.to_html(y, str(tmp_path / "g.html"))
    text = path.read_text(encoding="utf-8")
    assert "</script><b>" not in text
    blob = re.search(r'id="oar-graph">(.*?)</script>', text, re.S).group(1)
    assert "\\u003c/script>\\u003cb>x" in blob
    assert "grad_norm" not in blob and "grad_bad" not in blob
    assert '"grads":false' in blob


def test_grads_true_gives_leaf_norms_only(tmp_path):
    import json
    _, params, g, path = _model_graph(tmp_path, grads=True)
    blob = re.search(r'id="oar-graph">(.*?)</script>', path.read_text(), re.S).group(1)
    data = json.loads(blob)
    leaves = {n["name"]: n for n in data["nodes"] if n["kind"] == "leaf"}
    assert leaves["fc1.bias"]["grad_bad"] is True
    assert leaves["fc2.bias"]["grad_bad"] is False
    assert leaves["fc2.bias"]["grad_norm"] == pytest.approx(
        float((params["fc2.bias"].grad.numpy() ** 2).sum()) ** 0.5, rel=1e-5)
    assert all("grad_norm" not in e for e in data["edges"])


def test_bad_arguments(tmp_path):
    y = oar.randn([2]).sum()
    with pytest.raises(TypeError, match=r"to_html: argument 'path'"):
        viz.to_html(y, 3)
    with pytest.raises(TypeError, match=r"to_html: argument 'grads'"):
        viz.to_html(y, tmp_path / "a.html", grads="yes")
    with pytest.raises(ValueError, match=r"to_html: argument 'collapse_above'"):
        viz.to_html(y, tmp_path / "a.html", collapse_above=0)
    with pytest.raises(ValueError, match=r"to_html: argument 'max_nodes'"):
        viz.to_html(y, tmp_path / "a.html", max_nodes=-1)
    with pytest.raises(TypeError, match=r"to_html: argument 'outputs'"):
        viz.to_html([y, 5], tmp_path / "a.html")


# ---- browser tests ----------------------------------------------------------

def _browser_missing():
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return "chromium is not installed (scripts/setup.sh installs it)"
    if not os.path.exists(CHROMEDRIVER):
        return "chromedriver is not installed (scripts/setup.sh installs chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (scripts/setup.sh installs it)"
    return None


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    reason = _browser_missing()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
              "--window-size=1400,900", "--proxy-server=127.0.0.1:9",
              "--proxy-bypass-list=<-loopback>"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The browser is not oar: under scripts/asan.sh the sanitizer runtime is
    # preloaded into this process, and chromedriver would abort on it.
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")}
    # Chromium's own temporary directories, which it leaves behind, go with pytest's.
    env["TMPDIR"] = str(tmp_path_factory.mktemp("chromium"))
    d = webdriver.Chrome(service=Service(CHROMEDRIVER, env=env), options=opts)
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions",
                      {"offline": True, "latency": 0, "downloadThroughput": 0,
                       "uploadThroughput": 0})
    yield d
    d.quit()


def _open(driver, path, timeout=60):
    driver.get(path.resolve().as_uri())
    end = time.time() + timeout
    while time.time() < end:
        if driver.execute_script("return !!(window.__oar && window.__oar.ready)"):
            return
        time.sleep(0.05)
    raise AssertionError(f"viewer not ready after {timeout}s; console: {driver.get_log('browser')}")


def _severe(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def _nodes(driver):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, "#nodes g.node")


def _node(driver, key):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.CSS_SELECTOR, f'#nodes g.node[data-key="{key}"]')


def test_viewer_in_browser(driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    net, params, g, path = _model_graph(tmp_path)
    driver.get_log("browser")  # drop anything from before this page
    _open(driver, path)

    # Every parameter name is drawn (SVG text), not just present in the JSON.
    drawn = driver.execute_script("return document.getElementById('nodes').textContent")
    for name in params:
        assert name in drawn, name
    n_all = len(_nodes(driver))
    assert n_all == len(g.nodes)  # small graph: nothing collapsed, all drawn

    # Search: the match is highlighted (and only it) and centred.
    box = driver.find_element(By.ID, "search")
    box.send_keys("fc2.bias")
    box.send_keys(Keys.ENTER)
    bias2 = next(n for n in g.nodes if n.get("name") == "fc2.bias")
    time.sleep(0.3)
    hit = _node(driver, bias2["id"])
    assert "hit" in hit.get_attribute("class").split()
    assert len(driver.find_elements(By.CSS_SELECTOR, "#nodes g.node.hit")) == 1
    rc = driver.execute_script(
        "var r=arguments[0].getBoundingClientRect(), v=document.getElementById('view')"
        ".getBoundingClientRect(); return [r.left+r.width/2-(v.left+v.width/2),"
        " r.top+r.height/2-(v.top+v.height/2)]", hit)
    assert abs(rc[0]) < 5 and abs(rc[1]) < 5, rc
    box.clear()
    box.send_keys(Keys.ENTER)
    driver.find_element(By.ID, "fit").click()

    # Collapse the Net.fc1 group to one box, then expand it again.
    # The group holds the linear op, its weight and the cut where x (no grad)
    # enters; not fc1.bias, which also feeds the sqrt outside the layer.
    lin = next(n for n in g.nodes if n.get("layer") == "Net.fc1")
    fc1_members = [n for n in g.nodes if n["id"] == lin["id"] or n.get("name") == "fc1.weight"
                   or n["id"].startswith(lin["id"] + "_cut")]
    assert len(fc1_members) == 3
    driver.find_element(By.CSS_SELECTOR, '#frames text[data-group="Net.fc1"]').click()
    time.sleep(0.2)
    assert len(_nodes(driver)) == n_all - len(fc1_members) + 1
    grp = _node(driver, "g:Net.fc1")
    assert "3 nodes" in grp.text
    for n in fc1_members:
        assert not driver.find_elements(By.CSS_SELECTOR, f'#nodes g.node[data-key="{n["id"]}"]')
    grp.click()
    time.sleep(0.2)
    assert len(_nodes(driver)) == n_all
    assert not driver.find_elements(By.CSS_SELECTOR, '#nodes g.node[data-key="g:Net.fc1"]')

    # Details: a leaf's shape and dtype; an op's saved tensors and bytes.
    w1 = next(n for n in g.nodes if n.get("name") == "fc1.weight")
    _node(driver, w1["id"]).click()
    det = driver.find_element(By.ID, "details").text
    assert "fc1.weight" in det and "[4, 8]" in det and "float32" in det
    assert lin["saved_bytes"] == (5 * 4 + 4 * 8) * 4
    _node(driver, lin["id"]).click()
    det = driver.find_element(By.ID, "details").text
    assert f"({lin['saved_bytes']} bytes)" in det
    assert "Net.fc1" in det and "forward" in det  # layer path, forward stack
    for s in lin["saved"]:
        assert f"{s['bytes']} bytes" in det
    assert "selected" in _node(driver, lin["id"]).get_attribute("class")

    # Gradients: fc1.bias has a NaN gradient and is drawn red; fc2.bias is not.
    b1 = next(n for n in g.nodes if n.get("name") == "fc1.bias")
    el = _node(driver, b1["id"])
    assert "bad" in el.get_attribute("class").split()
    stroke = driver.execute_script(
        "return getComputedStyle(arguments[0].querySelector('rect')).stroke", el)
    assert stroke == "rgb(221, 0, 0)", stroke
    el2 = _node(driver, bias2["id"])
    assert "bad" not in el2.get_attribute("class").split()
    stroke2 = driver.execute_script(
        "return getComputedStyle(arguments[0].querySelector('rect')).stroke", el2)
    assert stroke2 != "rgb(221, 0, 0)"
    red_edges = driver.execute_script(
        "return Array.from(document.querySelectorAll('#edges path.edge.bad'))"
        ".map(function(p){return getComputedStyle(p).stroke})")
    assert red_edges and all(s == "rgb(221, 0, 0)" for s in red_edges)
    _node(driver, b1["id"]).click()
    assert "has NaN/Inf" in driver.find_element(By.ID, "details").text

    # Zoom (button, wheel) and pan (drag on the background) move the view.
    def transform():
        t = driver.find_element(By.ID, "vp").get_attribute("transform")
        return [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", t)]
    tx, ty, s0 = transform()
    driver.find_element(By.ID, "zin").click()
    assert transform()[2] == pytest.approx(s0 * 1.25)
    driver.execute_script(
        "var v=document.getElementById('view'), r=v.getBoundingClientRect();"
        "v.dispatchEvent(new WheelEvent('wheel',{deltaY:-200,clientX:r.left+50,"
        "clientY:r.top+50,bubbles:true,cancelable:true}))")
    assert transform()[2] > s0 * 1.25 * 1.2
    from selenium.webdriver.common.action_chains import ActionChains
    tx, ty, s1 = transform()
    view = driver.find_element(By.ID, "view")
    vs = view.size  # start near the bottom-left corner, clear of the boxes
    ActionChains(driver).move_to_element_with_offset(
        view, -vs["width"] // 2 + 10, vs["height"] // 2 - 100).click_and_hold() \
        .move_by_offset(40, 30).move_by_offset(40, 30).release().perform()
    tx2, ty2, s2 = transform()
    assert (tx2 - tx, ty2 - ty, s2) == (pytest.approx(80), pytest.approx(60), s1)

    assert _severe(driver) == []


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return oar.tanh(self.fc(x))


class Deep(nn.Layer):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(3, 6)
        self.blocks = nn.Sequential(*[Block() for _ in range(4)])
        self.out = nn.Linear(6, 1)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def test_repeated_blocks_folded(driver, tmp_path):
    from selenium.webdriver.common.by import By
    net = Deep()
    y = net(oar.randn([2, 3])).sum()
    g = viz.collect(y, params=net)
    layers = set(g.layers)
    assert {"Deep.blocks.0", "Deep.blocks.3"} <= layers or \
        {"Deep.blocks.0.fc", "Deep.blocks.3.fc"} <= layers, g.layers
    path = viz.to_html(y, tmp_path / "deep.html", params=net)
    driver.get_log("browser")
    _open(driver, path)
    fold = _node(driver, "g:Deep.blocks.[0-3]")
    assert "\u00d74" in fold.text
    drawn = driver.execute_script("return document.getElementById('nodes').textContent")
    assert "blocks.2.fc.weight" not in drawn
    n_before = len(_nodes(driver))
    fold.click()
    time.sleep(0.2)
    drawn = driver.execute_script("return document.getElementById('nodes').textContent")
    for k in range(4):
        assert f"blocks.{k}.fc.weight" in drawn
    assert len(_nodes(driver)) > n_before
    assert _severe(driver) == []


def test_collapse_above_and_search_into_collapsed_group(driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    oar.seed(1)
    net = Net()
    y = net(oar.randn([2, 4])).sum()
    g = viz.collect(y, params=net)
    # Net.fc1 holds 4 nodes (linear, weight, bias, the cut of x): above
    # collapse_above=3, so one box; Net.fc2 holds 3 and stays open; Net then
    # shows relu + 1 + 3 = 5 boxes, above 3, so it starts collapsed as well.
    path = viz.to_html(y, tmp_path / "c.html", params=net, collapse_above=3)
    driver.get_log("browser")
    _open(driver, path)
    keys = {e.get_attribute("data-key") for e in _nodes(driver)}
    assert keys == {"g:Net", g.nodes[0]["id"], "out0"}  # Net, the sum, the output
    _node(driver, "g:Net").click()
    time.sleep(0.2)
    keys = {e.get_attribute("data-key") for e in _nodes(driver)}
    w1 = next(n for n in g.nodes if n.get("name") == "fc1.weight")
    w2 = next(n for n in g.nodes if n.get("name") == "fc2.weight")
    assert "g:Net.fc1" in keys and w2["id"] in keys and w1["id"] not in keys
    box = driver.find_element(By.ID, "search")
    box.send_keys("fc1.weight", Keys.ENTER)
    time.sleep(0.3)
    keys = {e.get_attribute("data-key") for e in _nodes(driver)}
    assert w1["id"] in keys and "g:Net.fc1" not in keys and w2["id"] in keys
    assert "hit" in _node(driver, w1["id"]).get_attribute("class").split()
    assert _severe(driver) == []


def test_ten_thousand_nodes_open_fast(driver, tmp_path):
    x = oar.randn([4])
    x.stop_gradient = False
    y = x
    for _ in range(10000):
        y = y * 1.0001
    y = y.sum()
    path = viz.to_html(y, tmp_path / "big.html", params={"x": x})
    driver.get_log("browser")
    t0 = time.time()
    _open(driver, path)
    wall = time.time() - t0
    info = driver.execute_script(
        "var o=window.__oar; return {nodes:o.nodes, ready:o.ready_at_ms, layout:o.layout_ms,"
        " render:o.render_ms, dom:document.querySelectorAll('#vp *').length}")
    print(f"\n10k-node graph: {info['nodes']} nodes, ready {info['ready']:.0f} ms after "
          f"navigation start (layout {info['layout']:.0f} ms, first render "
          f"{info['render']:.0f} ms), wall {wall:.2f} s, {info['dom']} SVG elements")
    assert info["nodes"] >= 10002
    assert info["ready"] < 20000 and wall < 20
    assert info["dom"] < 3000  # only what is in view is in the DOM
    # Zoom all the way out: still a small DOM (boxes drawn as one path).
    t1 = time.time()
    driver.find_element("id", "fit").click()
    dom = driver.execute_script(
        "return new Promise(function(r){requestAnimationFrame(function(){"
        "r(document.querySelectorAll('#vp *').length)})})")
    print(f"fit to all: {dom} SVG elements, {time.time() - t1:.2f} s")
    assert dom < 50
    # Searching 10,000 matches stays quick and reports them all.
    from selenium.webdriver.common.keys import Keys
    t2 = time.time()
    driver.find_element("id", "search").send_keys("scale", Keys.ENTER)
    status = driver.find_element("id", "status").text
    print(f"search with 10,000 matches: {time.time() - t2:.2f} s")
    assert "match 1/10000" in status, status
    assert _severe(driver) == []
