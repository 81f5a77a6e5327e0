"""The models of benchmarks/models.py in PyTorch, layer for layer those of paddle_api.py:
ResNet-18 and MobileNetV2 are written out here (torchvision is not used) as
oar.vision.models.resnet18 and mobilenet_v2 build them."""

import torch
from torch import nn

from workloads import GPT, LSTM, OPT

P = torch


def use(name):
    torch.set_num_threads(2)
    return torch


def version():
    return torch.__version__


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers, inplanes = [], 64
        for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers.append(
                nn.Sequential(BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes))
            )
            inplanes = planes
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def _conv_bn_relu6(inp, out, kernel=3, stride=1, groups=1):
    return nn.Sequential(
        nn.Conv2d(inp, out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(out),
        nn.ReLU6(),
    )


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = [_conv_bn_relu6(inp, hidden, 1)] if expand_ratio != 1 else []
        layers += [
            _conv_bn_relu6(hidden, hidden, stride=stride, groups=hidden),
            nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    """Width 1.0: the channel counts make_divisible gives there are the table's own."""

    def __init__(self, num_classes=1000):
        super().__init__()
        settings = [
            [1, 16, 1, 1],
            [6, 24, 2, 2],
            [6, 32, 3, 2],
            [6, 64, 4, 2],
            [6, 96, 3, 1],
            [6, 160, 3, 2],
            [6, 320, 1, 1],
        ]
        features, inp = [_conv_bn_relu6(3, 32, stride=2)], 32
        for t, c, n, s in settings:
            for i in range(n):
                features.append(InvertedResidual(inp, c, s if i == 0 else 1, t))
                inp = c
        features.append(_conv_bn_relu6(inp, 1280, 1))
        self.features = nn.Sequential(*features)
        self.pool2d_avg = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool2d_avg(self.features(x)), 1))


class CNN(nn.Module):
    """examples/fashion_mnist_cnn.py's CNN."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.MaxPool2d(2),
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


class GPTDecoder(nn.Module):
    """Token and position embeddings, pre-norm blocks under a causal mask, a head."""

    def __init__(self, vocab, d_model, heads, layers, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq, d_model)
        self.blocks = nn.ModuleList(
            [
                nn.TransformerEncoderLayer(
                    d_model,
                    heads,
                    4 * d_model,
                    dropout=0.0,
                    activation="gelu",
                    norm_first=True,
                    batch_first=True,
                )
                for _ in range(layers)
            ]
        )
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, ids):
        n = ids.shape[1]
        h = self.tok(ids) + self.pos(torch.arange(n).unsqueeze(0))
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        for block in self.blocks:
            h = block(h, mask)
        return self.head(self.ln(h))


class LSTMLM(nn.Module):
    def __init__(self, vocab, emb, hidden, layers, seq):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        h, _ = self.lstm(self.emb(ids))
        return self.head(h)


MODELS = {
    "resnet18": ResNet18,
    "mobilenetv2": MobileNetV2,
    "cnn": CNN,
    "gpt": lambda: GPTDecoder(**GPT),
    "lstm": lambda: LSTMLM(**LSTM),
}


def build(model):
    torch.manual_seed(0)
    return MODELS[model]()


def count_params(net):
    return sum(p.numel() for p in net.parameters())


def train_step(net, opt_name, x, y):
    o, params = OPT[opt_name], net.parameters()
    opt = {
        "momentum": lambda: torch.optim.SGD(params, o["lr"], momentum=o["momentum"]),
        "adamw": lambda: torch.optim.AdamW(params, o["lr"], weight_decay=o["weight_decay"]),
        "sgd": lambda: torch.optim.SGD(params, o["lr"]),
        "adam": lambda: torch.optim.Adam(params, o["lr"]),
    }[opt_name]()
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = nn.CrossEntropyLoss()
    net.train()

    def step():
        out = net(x)
        loss = loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss.item()

    return step


def infer_step(net, x):
    x = torch.from_numpy(x)
    net.eval()

    def step():
        with torch.no_grad():
            return net(x).numpy()

    return step
