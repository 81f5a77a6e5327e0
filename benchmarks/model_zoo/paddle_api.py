"""The models of benchmarks/models.py in Paddle's API, for oar and for Paddle alike: the
same code runs with P = oar or P = paddle (ResNet-18 and MobileNetV2 are each
framework's own vision.models). torch_models.py has the same models in PyTorch."""

import importlib

from workloads import GPT, LSTM, OPT

P = None  # the framework module, set by use()


def use(name):
    global P
    P = importlib.import_module(name)
    if name == "paddle":
        P.set_device("cpu")
        P.base.core.set_num_threads(2)
    return P


def version():
    return P.__version__


def _models():
    nn = P.nn

    class CNN(nn.Layer):
        """examples/fashion_mnist_cnn.py's CNN."""

        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2D(1, 32, 3, padding=1),
                nn.BatchNorm2D(32),
                nn.ReLU(),
                nn.MaxPool2D(2),
                nn.Conv2D(32, 64, 3, padding=1),
                nn.BatchNorm2D(64),
                nn.ReLU(),
                nn.MaxPool2D(2),
            )
            self.classifier = nn.Sequential(
                nn.Flatten(),
                nn.Linear(64 * 7 * 7, 128),
                nn.ReLU(),
                nn.Dropout(0.25),
                nn.Linear(128, 10),
            )

        def forward(self, x):
            return self.classifier(self.features(x))

    class GPTDecoder(nn.Layer):
        """Token and position embeddings, pre-norm blocks under a causal mask, a head."""

        def __init__(self, vocab, d_model, heads, layers, seq):
            super().__init__()
            self.tok = nn.Embedding(vocab, d_model)
            self.pos = nn.Embedding(seq, d_model)
            self.blocks = nn.LayerList(
                [
                    nn.TransformerEncoderLayer(
                        d_model,
                        heads,
                        4 * d_model,
                        dropout=0.0,
                        activation="gelu",
                        normalize_before=True,
                    )
                    for _ in range(layers)
                ]
            )
            self.ln = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, ids):
            n = ids.shape[1]
            h = self.tok(ids) + self.pos(P.arange(n).unsqueeze(0))
            mask = P.triu(P.full([n, n], float("-inf")), 1)
            for block in self.blocks:
                h = block(h, mask)
            return self.head(self.ln(h))

    class LSTMLM(nn.Layer):
        def __init__(self, vocab, emb, hidden, layers, seq):
            super().__init__()
            self.emb = nn.Embedding(vocab, emb)
            self.lstm = nn.LSTM(emb, hidden, num_layers=layers)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, ids):
            h, _ = self.lstm(self.emb(ids))
            return self.head(h)

    return {
        "resnet18": lambda: P.vision.models.resnet18(),
        "mobilenetv2": lambda: P.vision.models.mobilenet_v2(),
        "cnn": CNN,
        "gpt": lambda: GPTDecoder(**GPT),
        "lstm": lambda: LSTMLM(**LSTM),
    }


def build(model):
    P.seed(0)
    return _models()[model]()


def count_params(net):
    """Trainable parameters (Paddle's parameters() also holds batch norm's statistics)."""
    return sum(int(p.numel()) for p in net.parameters() if not p.stop_gradient)


def train_step(net, opt_name, x, y):
    o = OPT[opt_name]
    params = net.parameters()
    opt = {
        "momentum": lambda: P.optimizer.Momentum(o["lr"], o["momentum"], parameters=params),
        "adamw": lambda: P.optimizer.AdamW(
            o["lr"], parameters=params, weight_decay=o["weight_decay"]
        ),
        "sgd": lambda: P.optimizer.SGD(o["lr"], parameters=params),
        "adam": lambda: P.optimizer.Adam(o["lr"], parameters=params),
    }[opt_name]()
    x, y = P.to_tensor(x), P.to_tensor(y)
    loss_fn = P.nn.CrossEntropyLoss()
    net.train()

    def step():
        out = net(x)
        loss = loss_fn(out.reshape([-1, out.shape[-1]]), y.reshape([-1]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)  # the step is done when its loss is readable

    return step


def infer_step(net, x):
    x = P.to_tensor(x)
    net.eval()

    def step():
        with P.no_grad():
            return net(x).numpy()

    return step


def export(net, x, prefix):
    """The oar model as ONNX (prefix.onnx) and as oar.jit.save's files, with its input
    in prefix.inputs.safetensors (oar only)."""
    from oar.static import InputSpec
    from safetensors.numpy import save_file

    net.eval()
    spec = [InputSpec([None, *x.shape[1:]], str(x.dtype), name="x")]
    P.onnx.export(net, prefix, input_spec=spec)
    P.jit.save(net, prefix, input_spec=spec)
    save_file({"x": x}, prefix + ".inputs.safetensors")
